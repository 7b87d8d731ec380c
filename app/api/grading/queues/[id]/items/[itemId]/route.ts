import { withRoute } from '@/lib/http/route';
import { GRADING_ACCESS, NO_STORE } from '@/lib/grading/access';
import { getItemView } from '@/lib/grading/item-view';

export const dynamic = 'force-dynamic';

// GET /api/grading/queues/:id/items/:itemId — the item as its grader sees it (blind until their own label)
export const GET = withRoute<typeof GRADING_ACCESS, { id: string; itemId: string }>(GRADING_ACCESS, async ({ params, user }) =>
  Response.json(await getItemView({ queueId: params.id, itemId: params.itemId, user }), { headers: NO_STORE }),
);
