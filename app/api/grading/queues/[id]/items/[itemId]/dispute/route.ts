import { readJson, withRoute } from '@/lib/http/route';
import { GRADING_ACCESS } from '@/lib/grading/access';
import { disputeItem } from '@/lib/grading/disputes';
import { DisputeInputSchema } from '@/lib/grading/schemas';

export const dynamic = 'force-dynamic';

// POST /api/grading/queues/:id/items/:itemId/dispute — a grader whose label is final (the fix has all its labels, or they have seen the others) proposes another with a note ({ label, note }); a settled fix is reopened
export const POST = withRoute<typeof GRADING_ACCESS, { id: string; itemId: string }>(GRADING_ACCESS, async ({ req, params, user }) => {
  const { label, note } = await readJson(req, DisputeInputSchema);
  return disputeItem({ queueId: params.id, itemId: params.itemId, user, label, note });
});
