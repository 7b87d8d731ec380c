import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { getFixById } from '@/lib/fixes/queries';

export const dynamic = 'force-dynamic';

// GET /api/fixes/:id — one fix: sanitised summary, evidence, run figures, status
export const GET = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES }, { id: string }>({ auth: 'session', roles: BROWSE_ROLES }, async ({ params }) => {
  const fix = await getFixById({ id: params.id });
  return Response.json(fix, { headers: { 'Cache-Control': 'private, no-store' } });
});
