import { readJson, withRoute } from '@/lib/http/route';
import { GRADING_ACCESS } from '@/lib/grading/access';
import { skipItem } from '@/lib/grading/labelling';
import { SkipInputSchema } from '@/lib/grading/schemas';

export const dynamic = 'force-dynamic';

// POST /api/grading/queues/:id/items/:itemId/skip — set the item aside with a reason ({ reason })
export const POST = withRoute<typeof GRADING_ACCESS, { id: string; itemId: string }>(GRADING_ACCESS, async ({ req, params, user }) => {
  const { reason } = await readJson(req, SkipInputSchema);
  await skipItem({ queueId: params.id, itemId: params.itemId, user, reason });
  return { ok: true };
});
