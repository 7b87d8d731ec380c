import { BROWSE_ROLES } from '@/common/roles';
import { readQuery, withRoute } from '@/lib/http/route';
import { listReviewQueue, ReviewQueueQuerySchema } from '@/lib/fixes/queries';

export const dynamic = 'force-dynamic';

// GET /api/review-queue — fixes waiting for a decision, newest first (cursor paged)
export const GET = withRoute({ auth: 'session', roles: BROWSE_ROLES }, async ({ req }) => {
  const { limit, cursor, history } = readQuery(req, ReviewQueueQuerySchema);
  const page = await listReviewQueue({ limit, cursor, history });
  return Response.json(page, { headers: { 'Cache-Control': 'private, no-store' } });
});
