import { NextResponse } from 'next/server';
import { readJson, withRoute } from '@/lib/http/route';
import { listHosts, registerHost } from '@/lib/hosts/service';
import { RegisterHostSchema } from '@/lib/hosts/schemas';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

const ADMIN = ADMIN_ACCESS;

// GET /api/admin/hosts — the code hosts and their linked repositories (never a secret)
export const GET = withRoute(ADMIN, async () => ({ hosts: await listHosts() }));

// POST /api/admin/hosts — register a GitHub App or a GitLab instance; its secrets are stored encrypted
export const POST = withRoute(ADMIN, async ({ req, user }) => {
  const input = await readJson(req, RegisterHostSchema);
  return NextResponse.json({ host: await registerHost({ actorId: user.id, input }) }, { status: 201 });
});
