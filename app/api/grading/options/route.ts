import { withRoute } from '@/lib/http/route';
import { GRADING_MANAGER_ACCESS, NO_STORE } from '@/lib/grading/access';
import { queueFormOptions } from '@/lib/grading/queues';

export const dynamic = 'force-dynamic';

// GET /api/grading/options — what the queue form offers: graders, repositories, policies, models
export const GET = withRoute(GRADING_MANAGER_ACCESS, async () => Response.json(await queueFormOptions(), { headers: NO_STORE }));
