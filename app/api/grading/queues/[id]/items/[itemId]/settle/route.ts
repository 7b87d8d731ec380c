import { readJson, withRoute } from '@/lib/http/route';
import { GRADING_ACCESS } from '@/lib/grading/access';
import { settleItem } from '@/lib/grading/disputes';
import { SettleInputSchema } from '@/lib/grading/schemas';

export const dynamic = 'force-dynamic';

// POST /api/grading/queues/:id/items/:itemId/settle — record the settled label with a note (managers, admins, the lead grader)
export const POST = withRoute<typeof GRADING_ACCESS, { id: string; itemId: string }>(GRADING_ACCESS, async ({ req, params, user }) => {
  const { label, note } = await readJson(req, SettleInputSchema);
  await settleItem({ queueId: params.id, itemId: params.itemId, user, label, note });
  return { ok: true };
});
