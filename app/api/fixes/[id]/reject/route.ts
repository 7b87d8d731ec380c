import { REVIEW_ROLES } from '@/common/roles';
import { readJson, withRoute } from '@/lib/http/route';
import { rejectFix } from '@/lib/fixes/decisions';
import { RejectFixBodySchema, surfaceFor } from '@/lib/fixes/schemas';

export const dynamic = 'force-dynamic';

const REVIEWERS = { auth: 'session', roles: REVIEW_ROLES, allowPersonalToken: true } as const;

// POST /api/fixes/:id/reject — reject with a reason (text required for OTHER)
export const POST = withRoute<typeof REVIEWERS, { id: string }>(REVIEWERS, async ({ req, params, user, via }) => {
  const body = await readJson(req, RejectFixBodySchema);
  const surface = surfaceFor(via);
  return rejectFix({ fixId: params.id, userId: user.id, reason: body.reason, text: body.text, surface });
});
