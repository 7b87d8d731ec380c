import { readJson, withRoute } from '@/lib/http/route';
import { updateUser } from '@/lib/users/service';
import { UpdateUserSchema } from '@/lib/users/schemas';
import { ADMIN_ACCESS, type AdminAccess } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

// PATCH /api/admin/users/:id — rename, set roles, disable/enable, reset the password
export const PATCH = withRoute<AdminAccess, { id: string }>(ADMIN_ACCESS, async ({ req, params, user }) => {
  const input = await readJson(req, UpdateUserSchema);
  return { user: await updateUser({ actorId: user.id, id: params.id, input }) };
});
