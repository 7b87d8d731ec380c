import { readJson, withRoute } from '@/lib/http/route';
import { GRADING_ACCESS, GRADING_MANAGER_ACCESS, NO_STORE } from '@/lib/grading/access';
import { createQueue, listQueues } from '@/lib/grading/queues';
import { CreateQueueSchema } from '@/lib/grading/schemas';

export const dynamic = 'force-dynamic';

// GET /api/grading/queues — the queues the caller may see, with progress
export const GET = withRoute(GRADING_ACCESS, async ({ user }) => Response.json({ queues: await listQueues({ user }) }, { headers: NO_STORE }));

// POST /api/grading/queues — build a queue from a filter over fixes (422 when nothing matches)
export const POST = withRoute(GRADING_MANAGER_ACCESS, async ({ req, user }) => {
  const input = await readJson(req, CreateQueueSchema);
  return Response.json(await createQueue({ actor: user, input }), { status: 201 });
});
