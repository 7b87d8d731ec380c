import { readJson, withRoute } from '@/lib/http/route';
import { sandboxStatus, setSandboxMode, SetSandboxModeSchema } from '@/lib/sandbox/settings';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

const ADMIN = ADMIN_ACCESS;

// GET /api/admin/sandbox — the stored sandbox mode and whether the sandbox works here
export const GET = withRoute(ADMIN, async () => sandboxStatus());

// PUT /api/admin/sandbox — { mode: "sandboxed" | "unsafe" } (audited)
export const PUT = withRoute(ADMIN, async ({ req, user }) => {
  const { mode } = await readJson(req, SetSandboxModeSchema);
  return setSandboxMode({ actorId: user.id, mode });
});
