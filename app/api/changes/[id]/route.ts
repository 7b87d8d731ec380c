import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { getChangeDetail } from '@/lib/changes/detail';

export const dynamic = 'force-dynamic';

// GET /api/changes/:id — the change page's data: change, failures, log, runs, fixes
export const GET = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES }, { id: string }>({ auth: 'session', roles: BROWSE_ROLES }, async ({ params }) => {
  const detail = await getChangeDetail({ id: params.id });
  return Response.json(detail, { headers: { 'Cache-Control': 'private, no-store' } });
});
