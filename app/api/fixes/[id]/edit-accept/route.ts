import { REVIEW_ROLES } from '@/common/roles';
import { NextResponse } from 'next/server';
import { readJson, withRoute } from '@/lib/http/route';
import { editAccept } from '@/lib/fixes/edit-accept';
import { EditAcceptBodySchema, surfaceFor } from '@/lib/fixes/schemas';

export const dynamic = 'force-dynamic';

const REVIEWERS = { auth: 'session', roles: REVIEW_ROLES, allowPersonalToken: true } as const;

// POST /api/fixes/:id/edit-accept — re-validate an edited fix (compile gate,
// RED/GREEN, regression) as a REVALIDATE run; a passing run applies it. Answers
// 202 with the run to follow on /runs/<runId>.
export const POST = withRoute<typeof REVIEWERS, { id: string }>(REVIEWERS, async ({ req, params, user, via }) => {
  const body = await readJson(req, EditAcceptBodySchema);
  const surface = surfaceFor(via);
  const { runId, joined } = await editAccept({
    fixId: params.id,
    userId: user.id,
    surface,
    ...(body.files ? { files: body.files } : { diff: body.diff }),
  });
  return NextResponse.json({ runId, joined }, { status: 202 });
});
