import { readJson, withRoute } from '@/lib/http/route';
import { GRADING_ACCESS, GRADING_MANAGER_ACCESS, NO_STORE } from '@/lib/grading/access';
import { getQueueDetail, setQueueStatus } from '@/lib/grading/queues';
import { UpdateQueueSchema } from '@/lib/grading/schemas';

export const dynamic = 'force-dynamic';

// GET /api/grading/queues/:id — the queue, its progress and each grader's (its graders, lead, managers)
export const GET = withRoute<typeof GRADING_ACCESS, { id: string }>(GRADING_ACCESS, async ({ params, user }) =>
  Response.json(await getQueueDetail({ queueId: params.id, user }), { headers: NO_STORE }),
);

// PATCH /api/grading/queues/:id — close or reopen
export const PATCH = withRoute<typeof GRADING_MANAGER_ACCESS, { id: string }>(GRADING_MANAGER_ACCESS, async ({ req, params, user }) => {
  const { status } = await readJson(req, UpdateQueueSchema);
  await setQueueStatus({ actor: user, queueId: params.id, status });
  return { ok: true, status };
});
