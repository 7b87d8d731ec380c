import { readJson, withRoute } from '@/lib/http/route';
import { GRADING_ACCESS } from '@/lib/grading/access';
import { submitGrade } from '@/lib/grading/labelling';
import { GradeInputSchema } from '@/lib/grading/schemas';

export const dynamic = 'force-dynamic';

// POST /api/grading/queues/:id/items/:itemId/grade — label or relabel the item's fix ({ label, tags, rationale })
export const POST = withRoute<typeof GRADING_ACCESS, { id: string; itemId: string }>(GRADING_ACCESS, async ({ req, params, user }) => {
  const input = await readJson(req, GradeInputSchema);
  return submitGrade({ queueId: params.id, itemId: params.itemId, user, input });
});
