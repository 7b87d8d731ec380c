import { REVIEW_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { cancelRun } from '@/lib/runs/service';

export const dynamic = 'force-dynamic';

const REVIEWERS = { auth: 'session', roles: REVIEW_ROLES } as const;

// POST /api/runs/:id/cancel — ask a run to stop (a queued run ends at once; a running one within about a second)
export const POST = withRoute<typeof REVIEWERS, { id: string }>(REVIEWERS, async ({ params, user }) => {
  const result = await cancelRun({ runId: params.id, userId: user.id });
  return { runId: result.runId, status: result.status, alreadyFinished: result.alreadyFinished };
});
