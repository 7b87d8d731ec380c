import { BROWSE_ROLES } from '@/common/roles';
import { withRoute } from '@/lib/http/route';
import { listChanges } from '@/lib/changes/list-changes';
import { ChangeListQuerySchema, searchParamsToObject } from '@/common/change-query';

export const dynamic = 'force-dynamic';

// GET /api/changes — one page of the triage list (filters, search, cursor)
export const GET = withRoute({ auth: 'session', roles: BROWSE_ROLES }, async ({ req }) => {
  const { cursor, limit, ...filters } = ChangeListQuerySchema.parse(searchParamsToObject(req.nextUrl.searchParams));
  const page = await listChanges({ filters, cursor, limit });
  return Response.json(page, { headers: { 'Cache-Control': 'private, no-store' } });
});
