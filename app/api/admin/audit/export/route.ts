import { readQuery, withRoute } from '@/lib/http/route';
import { auditCsv, exportAudit } from '@/lib/audit';
import { AuditExportQuerySchema } from '@/common/audit-query';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

// GET /api/admin/audit/export?format=csv|json&actor=&action=&from=&to= — every entry the filter matches, as a download
export const GET = withRoute(ADMIN_ACCESS, async ({ req }) => {
  const { format, ...filter } = readQuery(req, AuditExportQuerySchema);
  const entries = await exportAudit({ filter });
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  const body = format === 'csv' ? auditCsv(entries) : JSON.stringify({ filter, entries }, null, 2) + '\n';
  return new Response(body, {
    headers: {
      'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
      'Content-Disposition': `attachment; filename="flowfix-audit-${stamp}.${format}"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  });
});
