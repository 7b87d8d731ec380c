import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { getFixFiles } from '@/lib/fixes/queries';

export const dynamic = 'force-dynamic';

// GET /api/fixes/:id/files — each file the fix touches, original and modified text, for the diff viewer
// (the dashboard's, and the editor extension's with its personal token)
export const GET = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES; allowPersonalToken: true }, { id: string }>(
  { auth: 'session', roles: BROWSE_ROLES, allowPersonalToken: true },
  async ({ params }) => {
    // an edited fix that was committed shows the reviewer's edit: what the branch has
    const files = await getFixFiles({ id: params.id, diffOf: 'committed' });
    return Response.json({ files }, { headers: { 'Cache-Control': 'private, no-store' } });
  },
);
