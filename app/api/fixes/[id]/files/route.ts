import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { getFixFiles } from '@/lib/fixes/queries';

export const dynamic = 'force-dynamic';

// GET /api/fixes/:id/files — each file the fix touches, original and modified text, for the diff viewer
export const GET = withRoute<{ auth: 'session'; roles: typeof BROWSE_ROLES }, { id: string }>(
  { auth: 'session', roles: BROWSE_ROLES },
  async ({ params }) => {
    const files = await getFixFiles({ id: params.id });
    return Response.json({ files }, { headers: { 'Cache-Control': 'private, no-store' } });
  },
);
