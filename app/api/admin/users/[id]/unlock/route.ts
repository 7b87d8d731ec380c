import { withRoute } from '@/lib/http/route';
import { unlockUser } from '@/lib/users/service';
import { ADMIN_ACCESS, type AdminAccess } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

// POST /api/admin/users/:id/unlock — lift a sign-in lock (too many failed attempts) now
export const POST = withRoute<AdminAccess, { id: string }>(ADMIN_ACCESS, async ({ params, user }) => ({
  user: await unlockUser({ actorId: user.id, id: params.id }),
}));
