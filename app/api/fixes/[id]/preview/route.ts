import { BROWSE_ROLES, hasRoleIn, REVIEW_ROLES } from '@/common/roles';
import { readJson, withRoute } from '@/lib/http/route';
import { recordPreview } from '@/lib/fixes/decisions';
import { getFixForReview } from '@/lib/fixes/patch';
import { PreviewBodySchema, surfaceFor } from '@/lib/fixes/schemas';

export const dynamic = 'force-dynamic';

// POST /api/fixes/:id/preview — a person opened the fix's diff: recorded as a
// PREVIEW (for reviewers and admins, whose previews are the funnel's), and the
// fix comes back as text, evidence and diff (what `flowfix fix show` prints)
// (a read-scoped personal token may: opening a diff is reading it)
export const POST = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES; allowPersonalToken: true; personalTokenScope: 'read' }, { id: string }>(
  { auth: 'session', roles: BROWSE_ROLES, allowPersonalToken: true, personalTokenScope: 'read' },
  async ({ req, params, user, via }) => {
    await readJson(req, PreviewBodySchema);
    const fix = await getFixForReview({ fixId: params.id });
    const decides = hasRoleIn(user.roles, REVIEW_ROLES);
    const surface = surfaceFor(via);
    const recorded = decides ? await recordPreview({ fixId: params.id, userId: user.id, surface }) : null;
    return { fix, preview: recorded ? { decisionId: recorded.decisionId, surface } : null };
  },
);
