import { withRoute } from '@/lib/http/route';
import { GRADING_ACCESS, NO_STORE } from '@/lib/grading/access';
import { getItemFiles } from '@/lib/grading/item-view';

export const dynamic = 'force-dynamic';

// GET /api/grading/queues/:id/items/:itemId/files — the fix's files, whole on
// both sides, for the grading page's diff (code only: nobody's judgement)
export const GET = withRoute<typeof GRADING_ACCESS, { id: string; itemId: string }>(GRADING_ACCESS, async ({ params, user }) =>
  Response.json({ files: await getItemFiles({ queueId: params.id, itemId: params.itemId, user }) }, { headers: NO_STORE }),
);
