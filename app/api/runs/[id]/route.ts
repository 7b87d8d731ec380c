import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { getRunByIdOrThrow } from '@/lib/runs/queries';

export const dynamic = 'force-dynamic';

// GET /api/runs/:id — a run's status, counters, change, fix and estimate basis
export const GET = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES }, { id: string }>({ auth: 'session', roles: BROWSE_ROLES }, async ({ params }) => {
  const run = await getRunByIdOrThrow({ id: params.id });
  return Response.json({ run }, { headers: { 'Cache-Control': 'private, no-store' } });
});
