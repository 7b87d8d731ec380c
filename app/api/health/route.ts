import { withRoute } from '@/lib/http/route';
import { getDb } from '@/lib/db';

export const dynamic = 'force-dynamic';

// GET /api/health — liveness and database reachability, for the demo script and load balancers
export const GET = withRoute({ auth: 'public' }, async () => {
  await getDb().$queryRaw`SELECT 1`;
  return { ok: true };
});
