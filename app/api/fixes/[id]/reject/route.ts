import { readJson, withRoute } from '@/lib/http/route';
import { rejectFix } from '@/lib/fixes/decisions';
import { RejectFixBodySchema, surfaceFor } from '@/lib/fixes/schemas';

export const dynamic = 'force-dynamic';

// POST /api/fixes/:id/reject — reject with a reason (text required for OTHER)
export const POST = withRoute<{ auth: 'session'; roles: ['REVIEWER', 'ADMIN']; allowPersonalToken: true }, { id: string }>(
  { auth: 'session', roles: ['REVIEWER', 'ADMIN'], allowPersonalToken: true },
  async ({ req, params, user, via }) => {
    const body = await readJson(req, RejectFixBodySchema);
    const surface = surfaceFor(via);
    return rejectFix({ fixId: params.id, userId: user.id, reason: body.reason, text: body.text, surface });
  },
);
