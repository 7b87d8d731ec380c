import { REVIEW_ROLES } from '@/common/roles';
import { AppError } from '@/lib/errors';
import { withRoute } from '@/lib/http/route';
import { StartRunBodySchema } from '@/lib/runs/schemas';
import { startManualRun } from '@/lib/runs/service';

export const dynamic = 'force-dynamic';

const REVIEWERS = { auth: 'session', roles: REVIEW_ROLES } as const;

/** An empty body means "the repository's policy". */
async function readBody(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_request', 'The request body is not valid JSON', { cause: err });
  }
}

// POST /api/changes/:id/runs — "Run agent": queue a repair run of the current revision (or join the active one)
export const POST = withRoute<typeof REVIEWERS, { id: string }>(REVIEWERS, async ({ req, params, user }) => {
  const body = StartRunBodySchema.parse(await readBody(req));
  const started = await startManualRun({ changeId: params.id, userId: user.id, ...(body.policy ? { policy: body.policy } : {}) });
  return Response.json({ runId: started.runId, joined: started.joined, policy: started.policy }, { status: started.joined ? 200 : 202 });
});
