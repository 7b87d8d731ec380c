import { withRoute } from '@/lib/http/route';
import { INSIGHTS_ROLES } from '@/common/roles';
import { listRunModels } from '@/lib/insights/options';

export const dynamic = 'force-dynamic';

// GET /api/insights/options — what the Insights filter offers: the models runs have used, newest first
// (a static segment: it wins over the [section] beside it)
export const GET = withRoute({ auth: 'session', roles: INSIGHTS_ROLES }, async () => {
  const models = await listRunModels();
  return Response.json({ models }, { headers: { 'Cache-Control': 'private, no-store' } });
});
