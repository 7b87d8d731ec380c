import { withRoute } from '@/lib/http/route';
import { GRADING_ACCESS, NO_STORE } from '@/lib/grading/access';
import { listDisputed } from '@/lib/grading/disputes';

export const dynamic = 'force-dynamic';

// GET /api/grading/queues/:id/disputed — items waiting to be settled, labels and rationales side by side (managers, admins, the lead grader)
export const GET = withRoute<typeof GRADING_ACCESS, { id: string }>(GRADING_ACCESS, async ({ params, user }) =>
  Response.json({ items: await listDisputed({ queueId: params.id, user }) }, { headers: NO_STORE }),
);
