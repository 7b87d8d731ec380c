import { REVIEW_ROLES } from '@/common/roles';
import { readJson, withRoute } from '@/lib/http/route';
import { acceptFix, recordLocalApply } from '@/lib/fixes/apply';
import { AcceptBodySchema, surfaceFor } from '@/lib/fixes/schemas';

export const dynamic = 'force-dynamic';

const REVIEWERS = { auth: 'session', roles: REVIEW_ROLES, allowPersonalToken: true } as const;

// POST /api/fixes/:id/accept — apply the fix as a commit on the change's
// branch (mode "branch"), or record that the reviewer applied it in their own
// checkout (mode "local", `flowfix fix apply`). 409 names whoever decided first,
// or says the branch moved and the fix is now stale.
export const POST = withRoute<typeof REVIEWERS, { id: string }>(REVIEWERS, async ({ req, params, user, via }) => {
  const body = await readJson(req, AcceptBodySchema);
  const surface = surfaceFor(via);
  if (body.mode === 'local') return recordLocalApply({ fixId: params.id, userId: user.id, surface, checkoutHead: body.headRev });
  return acceptFix({ fixId: params.id, userId: user.id, surface });
});
