import 'server-only';
import { getDb } from '../db';
import type { SessionUser } from '../auth/session';
import { csvDocument } from '../../common/csv';
import { queueForLead } from './queues';

// A queue's export: every item, every label with its tags and rationale, and
// the settled label. One row per label in the CSV (an item nobody labelled
// has one row with empty grader columns); items with their labels nested in
// the JSON. The column names are part of the product (documented in the
// README): add columns at the end, never rename.

export const EXPORT_COLUMNS = [
  'queue_id',
  'queue_name',
  'item_position',
  'fix_id',
  'repository',
  'change_external_id',
  'change_title',
  'grader_id',
  'grader_name',
  'label',
  'tags',
  'rationale',
  'labelled_at',
  'consensus_label',
  'consensus_automatic',
  'consensus_note',
  'consensus_settled_by',
  'consensus_settled_at',
] as const;

export interface ExportLabel {
  graderId: string;
  graderName: string;
  label: string;
  tags: string[];
  rationale: string;
  labelledAt: string;
}

export interface ExportItem {
  position: number;
  fixId: string;
  repository: string;
  changeExternalId: string;
  changeTitle: string;
  labels: ExportLabel[];
  consensus: { label: string; automatic: boolean; note: string; settledBy: string; settledAt: string } | null;
}

export interface QueueExport {
  queue: { id: string; name: string; gradersPerFix: number; status: string; filter: unknown; exportedAt: string };
  items: ExportItem[];
}

export async function exportQueue({ queueId, user }: { queueId: string; user: SessionUser }): Promise<QueueExport> {
  const queue = await queueForLead(queueId, user);
  const items = await getDb().gradingItem.findMany({
    where: { queueId },
    orderBy: { position: 'asc' },
    include: {
      fix: {
        select: {
          id: true,
          change: { select: { externalId: true, title: true, repository: { select: { name: true } } } },
          grades: { include: { grader: { select: { name: true } } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
          consensus: { include: { settledBy: { select: { name: true } } } },
        },
      },
    },
  });
  return {
    queue: { id: queue.id, name: queue.name, gradersPerFix: queue.gradersPerFix, status: queue.status, filter: queue.filter, exportedAt: new Date().toISOString() },
    items: items.map((i) => ({
      position: i.position,
      fixId: i.fix.id,
      repository: i.fix.change.repository.name,
      changeExternalId: i.fix.change.externalId,
      changeTitle: i.fix.change.title,
      labels: i.fix.grades.map((g) => ({
        graderId: g.graderId,
        graderName: g.grader.name,
        label: g.label,
        tags: g.tags,
        rationale: g.rationale,
        labelledAt: g.updatedAt.toISOString(),
      })),
      consensus: i.fix.consensus
        ? {
            label: i.fix.consensus.label,
            automatic: i.fix.consensus.automatic,
            note: i.fix.consensus.note,
            settledBy: i.fix.consensus.settledBy.name,
            settledAt: i.fix.consensus.settledAt.toISOString(),
          }
        : null,
    })),
  };
}

export function queueExportCsv(data: QueueExport): string {
  const rows: string[][] = [];
  for (const item of data.items) {
    const c = item.consensus;
    const tail = c ? [c.label, String(c.automatic), c.note, c.settledBy, c.settledAt] : ['', '', '', '', ''];
    const head = [data.queue.id, data.queue.name, String(item.position + 1), item.fixId, item.repository, item.changeExternalId, item.changeTitle];
    if (item.labels.length === 0) rows.push([...head, '', '', '', '', '', '', ...tail]);
    for (const l of item.labels) rows.push([...head, l.graderId, l.graderName, l.label, l.tags.join(';'), l.rationale, l.labelledAt, ...tail]);
  }
  return csvDocument(EXPORT_COLUMNS, rows);
}
