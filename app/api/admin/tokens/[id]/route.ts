import { withRoute } from '@/lib/http/route';
import { revokeCiToken } from '@/lib/tokens/ci-tokens';
import { ADMIN_ACCESS, type AdminAccess } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

// DELETE /api/admin/tokens/:id — revoke a CI token (kept for the record, refused from now on)
export const DELETE = withRoute<AdminAccess, { id: string }>(ADMIN_ACCESS, async ({ params, user }) => ({
  token: await revokeCiToken({ actorId: user.id, id: params.id }),
}));
