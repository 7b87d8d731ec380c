import { NextResponse } from 'next/server';
import { readJson, withRoute } from '@/lib/http/route';
import { linkRepository, listHostRepositories } from '@/lib/hosts/service';
import { LinkRepositorySchema } from '@/lib/hosts/schemas';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

const ADMIN = ADMIN_ACCESS;

// GET /api/admin/hosts/[id]/repositories — the projects the host lists for flowfix, and what each is linked to
export const GET = withRoute<typeof ADMIN, { id: string }>(ADMIN, async ({ params }) => ({ repositories: await listHostRepositories(params.id) }));

// POST /api/admin/hosts/[id]/repositories — link a flowfix repository to one of those projects
export const POST = withRoute<typeof ADMIN, { id: string }>(ADMIN, async ({ req, user, params }) => {
  const input = await readJson(req, LinkRepositorySchema);
  return NextResponse.json({ host: await linkRepository({ actorId: user.id, hostId: params.id, input }) }, { status: 201 });
});
