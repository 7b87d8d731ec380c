import { withRoute } from '@/lib/http/route';
import { revokeCiToken } from '@/lib/tokens/ci-tokens';

export const dynamic = 'force-dynamic';

// DELETE /api/admin/tokens/:id — revoke a CI token (kept for the record, refused from now on)
export const DELETE = withRoute<{ auth: 'session'; roles: ['ADMIN'] }, { id: string }>({ auth: 'session', roles: ['ADMIN'] }, async ({ params, user }) => ({
  token: await revokeCiToken({ actorId: user.id, id: params.id }),
}));
