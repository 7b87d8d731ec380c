import { readJson, withRoute } from '@/lib/http/route';
import { getRepository, updateRepository } from '@/lib/repositories/service';
import { UpdateRepositorySchema } from '@/lib/repositories/schemas';
import { ADMIN_ACCESS, type AdminAccess } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

type Admin = AdminAccess;
const ADMIN = ADMIN_ACCESS;

// GET /api/admin/repositories/:id — one repository with stored and effective settings
export const GET = withRoute<Admin, { id: string }>(ADMIN, async ({ params }) => ({
  repository: await getRepository({ id: params.id }),
}));

// PATCH /api/admin/repositories/:id — edit fields or settings; { archived: true|false } archives or restores
export const PATCH = withRoute<Admin, { id: string }>(ADMIN, async ({ req, params, user }) => {
  const input = await readJson(req, UpdateRepositorySchema);
  return { repository: await updateRepository({ actorId: user.id, id: params.id, input }) };
});
