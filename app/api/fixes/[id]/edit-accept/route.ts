import { NextResponse } from 'next/server';
import { readJson, withRoute } from '@/lib/http/route';
import { editAccept } from '@/lib/fixes/edit-accept';
import { EditAcceptBodySchema, surfaceFor } from '@/lib/fixes/schemas';

export const dynamic = 'force-dynamic';

// POST /api/fixes/:id/edit-accept — re-validate an edited fix (compile gate,
// RED/GREEN, regression) as a REVALIDATE run; a passing run applies it. Answers
// 202 with the run to follow on /runs/<runId>.
export const POST = withRoute<{ auth: 'session'; roles: ['REVIEWER', 'ADMIN']; allowPersonalToken: true }, { id: string }>(
  { auth: 'session', roles: ['REVIEWER', 'ADMIN'], allowPersonalToken: true },
  async ({ req, params, user, via }) => {
    const body = await readJson(req, EditAcceptBodySchema);
    const surface = surfaceFor(via);
    const { runId, joined } = await editAccept({
      fixId: params.id,
      userId: user.id,
      surface,
      ...(body.files ? { files: body.files } : { diff: body.diff }),
    });
    return NextResponse.json({ runId, joined }, { status: 202 });
  },
);
