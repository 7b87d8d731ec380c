import { withRoute } from '@/lib/http/route';
import { GRADING_ACCESS, NO_STORE } from '@/lib/grading/access';
import { getItemView } from '@/lib/grading/item-view';
import { nextItem } from '@/lib/grading/next-item';

export const dynamic = 'force-dynamic';

// POST /api/grading/queues/:id/next — reserve the caller's next item and return it (blind); item null when none is left
export const POST = withRoute<typeof GRADING_ACCESS, { id: string }>(GRADING_ACCESS, async ({ params, user }) => {
  const next = await nextItem({ queueId: params.id, user });
  const item = next ? await getItemView({ queueId: params.id, itemId: next.itemId, user }) : null;
  return Response.json({ item }, { headers: NO_STORE });
});
