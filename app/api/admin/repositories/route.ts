import { NextResponse } from 'next/server';
import { readJson, withRoute } from '@/lib/http/route';
import { listRepositories, registerRepository } from '@/lib/repositories/service';
import { RegisterRepositorySchema } from '@/lib/repositories/schemas';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

const ADMIN = ADMIN_ACCESS;

// GET /api/admin/repositories — every repository, archived ones last, with stored and effective settings
export const GET = withRoute(ADMIN, async () => ({ repositories: await listRepositories() }));

// POST /api/admin/repositories — register a repository with its commands, filter policy and model settings
export const POST = withRoute(ADMIN, async ({ req, user }) => {
  const input = await readJson(req, RegisterRepositorySchema);
  const repository = await registerRepository({ actorId: user.id, input });
  return NextResponse.json({ repository }, { status: 201 });
});
