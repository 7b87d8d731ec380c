import { withRoute } from '@/lib/http/route';
import { GRADING_ACCESS, NO_STORE } from '@/lib/grading/access';
import { queueAgreement } from '@/lib/grading/queue-stats';

export const dynamic = 'force-dynamic';

// GET /api/grading/queues/:id/agreement — percent agreement, Fleiss, Krippendorff, Cohen per pair, per grader (managers, admins, the lead grader)
export const GET = withRoute<typeof GRADING_ACCESS, { id: string }>(GRADING_ACCESS, async ({ params, user }) =>
  Response.json(await queueAgreement({ queueId: params.id, user }), { headers: NO_STORE }),
);
