import { withRoute } from '@/lib/http/route';
import { revokePersonalToken } from '@/lib/tokens/personal-tokens';

export const dynamic = 'force-dynamic';

// DELETE /api/me/tokens/:id — revoke one of your own personal tokens
export const DELETE = withRoute<{ auth: 'session'; roles: 'any' }, { id: string }>({ auth: 'session', roles: 'any' }, async ({ params, user }) => ({
  token: await revokePersonalToken({ userId: user.id, id: params.id }),
}));
