import { withRoute } from '@/lib/http/route';
import { unlockUser } from '@/lib/users/service';

export const dynamic = 'force-dynamic';

// POST /api/admin/users/:id/unlock — lift a sign-in lock (too many failed attempts) now
export const POST = withRoute<{ auth: 'session'; roles: ['ADMIN'] }, { id: string }>({ auth: 'session', roles: ['ADMIN'] }, async ({ params, user }) => ({
  user: await unlockUser({ actorId: user.id, id: params.id }),
}));
