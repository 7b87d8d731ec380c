import { withRoute } from '@/lib/http/route';
import { GRADING_ACCESS, NO_STORE } from '@/lib/grading/access';
import { listMyItems } from '@/lib/grading/my-items';

export const dynamic = 'force-dynamic';

// GET /api/grading/queues/:id/mine — the caller's own labels and skips in the queue, queue order (nobody else's judgement)
export const GET = withRoute<typeof GRADING_ACCESS, { id: string }>(GRADING_ACCESS, async ({ params, user }) =>
  Response.json({ items: await listMyItems({ queueId: params.id, user }) }, { headers: NO_STORE }),
);
