import { readQuery, withRoute } from '@/lib/http/route';
import { auditActions, queryAudit, type AuditPage } from '@/lib/audit';
import { AuditPageQuerySchema } from '@/common/audit-query';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

// GET /api/admin/audit?actor=&action=&from=&to=&cursor=&limit= — the audit log, newest first, a keyset page at a time
export const GET = withRoute(ADMIN_ACCESS, async ({ req }) => {
  const { cursor, limit, ...filter } = readQuery(req, AuditPageQuerySchema);
  const [page, actions] = await Promise.all([queryAudit({ filter, cursor, limit }), auditActions()]);
  return Response.json({ ...page, actions } satisfies AuditPage, { headers: { 'Cache-Control': 'private, no-store' } });
});
