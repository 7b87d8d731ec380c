import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { getFixPatch } from '@/lib/fixes/patch';

export const dynamic = 'force-dynamic';

// GET /api/fixes/:id/patch — the fix's diff as a file for `git apply` ("Download patch")
export const GET = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES; allowPersonalToken: true }, { id: string }>(
  { auth: 'session', roles: BROWSE_ROLES, allowPersonalToken: true },
  async ({ params }) => {
    const { diff, filename, status } = await getFixPatch({ fixId: params.id });
    return new Response(diff, {
      headers: {
        'Content-Type': 'text/x-diff; charset=utf-8',
        'Content-Disposition': `attachment; filename="${filename}"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'X-Flowfix-Fix-Status': status,
      },
    });
  },
);
