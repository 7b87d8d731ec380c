import { BROWSE_ROLES } from '@/common/roles';
import { readQuery, withRoute } from '@/lib/http/route';
import { listRuns, RunListQuerySchema } from '@/lib/runs/list';

export const dynamic = 'force-dynamic';

// GET /api/runs — every run, newest first, filtered by status, repository and policy (cursor paged)
export const GET = withRoute({ auth: 'session', roles: BROWSE_ROLES }, async ({ req }) => {
  const query = readQuery(req, RunListQuerySchema);
  return Response.json(await listRuns({ query }), { headers: { 'Cache-Control': 'private, no-store' } });
});
