import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { ForBranchQuerySchema, getBranchState } from '@/lib/changes/for-branch';

export const dynamic = 'force-dynamic';

// GET /api/changes/for-branch?remote=URL[&remote=URL]&branch=NAME — the editor's
// view of a checkout: the repository with that remote, its newest change on
// the branch (or none), failing tests, newest run and fix (a read-scoped
// personal token may ask)
export const GET = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES; allowPersonalToken: true }>(
  { auth: 'session', roles: BROWSE_ROLES, allowPersonalToken: true },
  async ({ req }) => {
    const query = ForBranchQuerySchema.parse({ remote: req.nextUrl.searchParams.getAll('remote'), branch: req.nextUrl.searchParams.get('branch') ?? '' });
    return Response.json(await getBranchState(query), { headers: { 'Cache-Control': 'private, no-store' } });
  },
);
