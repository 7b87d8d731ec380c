import { NextResponse } from 'next/server';
import { readJson, withRoute } from '@/lib/http/route';
import { createUser, listUsers } from '@/lib/users/service';
import { CreateUserSchema } from '@/lib/users/schemas';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

const ADMIN = ADMIN_ACCESS;

// GET /api/admin/users — every user with roles and status (never password hashes)
export const GET = withRoute(ADMIN, async () => ({ users: await listUsers() }));

// POST /api/admin/users — create a user with an initial password and roles
export const POST = withRoute(ADMIN, async ({ req, user }) => {
  const input = await readJson(req, CreateUserSchema);
  const created = await createUser({ actorId: user.id, input });
  return NextResponse.json({ user: created }, { status: 201 });
});
