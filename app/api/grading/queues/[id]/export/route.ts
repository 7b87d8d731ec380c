import { readQuery, withRoute } from '@/lib/http/route';
import { GRADING_ACCESS } from '@/lib/grading/access';
import { exportQueue, queueExportCsv } from '@/lib/grading/export';
import { ExportQuerySchema } from '@/lib/grading/schemas';

export const dynamic = 'force-dynamic';

// GET /api/grading/queues/:id/export?format=csv|json — every item, label, tag, rationale and settled label, as a download
export const GET = withRoute<typeof GRADING_ACCESS, { id: string }>(GRADING_ACCESS, async ({ req, params, user }) => {
  const { format } = readQuery(req, ExportQuerySchema);
  const data = await exportQueue({ queueId: params.id, user });
  const body = format === 'csv' ? queueExportCsv(data) : JSON.stringify(data, null, 2) + '\n';
  return new Response(body, {
    headers: {
      'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
      'Content-Disposition': `attachment; filename="flowfix-grading-${data.queue.id}.${format}"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  });
});
