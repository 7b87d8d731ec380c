import 'server-only';
import { getDb } from '../db';
import type { SessionUser } from '../auth/session';
import { csvDocument } from '../../common/csv';
import { queueForLead } from './queues';
import { revealQueueLabels } from './item-rules';
import { VERDICT_KINDS } from '../../common/decisions';

// A queue's export: every item, every label with its tags, rationale and
// history, the skips with their reasons, the reviewers' closing decision, the
// run's policy and model, and the settled label. One row per label in the
// CSV (an item nobody labelled has one row with empty grader columns); items
// with their labels nested in the JSON. Items are numbered from 1 in both.
// The column names are part of the product (documented in the README): add
// columns at the end, never rename. Exporting shows every label, so it is a
// reveal for the exporter (their own labels on those fixes lock).

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
  // added: history, skips, decision, run
  'first_labelled_at',
  'label_history',
  'revealed_at',
  'skips',
  'review_decision',
  'review_reason',
  'review_reason_text',
  'policy',
  'model',
] as const;

/** One entry of a grader's history on a fix: the first label, a revision while blind, a dispute after the reveal. */
export interface ExportLabelEvent {
  kind: 'label' | 'revise' | 'dispute';
  label: string | null;
  tags: string[];
  /** the rationale, or the dispute's note */
  rationale: string;
  at: string;
}

export interface ExportLabel {
  graderId: string;
  graderName: string;
  label: string;
  tags: string[];
  rationale: string;
  /** the latest revision */
  labelledAt: string;
  firstLabelledAt: string;
  /** when the grader first saw the other labels (their label locked); null: still blind */
  revealedAt: string | null;
  history: ExportLabelEvent[];
}

export interface ExportItem {
  /** from 1, as in the CSV's item_position and on the pages */
  position: number;
  fixId: string;
  repository: string;
  changeExternalId: string;
  changeTitle: string;
  policy: string;
  model: string | null;
  labels: ExportLabel[];
  skips: Array<{ graderId: string; graderName: string; reason: string; skippedAt: string }>;
  /** the reviewers' latest closing decision (accept, edit and accept, reject) */
  decision: { kind: string; reason: string | null; reasonText: string | null; by: string; at: string } | null;
  /** settledBy: null for an automatic (unanimous) settlement */
  consensus: { label: string; automatic: boolean; note: string; settledBy: string | null; settledAt: string } | null;
}

export interface QueueExport {
  queue: { id: string; name: string; gradersPerFix: number; status: string; filter: unknown; exportedAt: string };
  items: ExportItem[];
}

export async function exportQueue({ queueId, user }: { queueId: string; user: SessionUser }): Promise<QueueExport> {
  const queue = await queueForLead(queueId, user);
  await revealQueueLabels({ queueId, user, via: 'export' });
  const items = await getDb().gradingItem.findMany({
    where: { queueId },
    orderBy: { position: 'asc' },
    include: {
      skips: { include: { grader: { select: { name: true } } }, orderBy: [{ createdAt: 'asc' }, { graderId: 'asc' }] },
      fix: {
        select: {
          id: true,
          run: { select: { policy: true, model: true } },
          change: { select: { externalId: true, title: true, repository: { select: { name: true } } } },
          grades: { include: { grader: { select: { name: true } } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
          gradeEvents: { where: { kind: { in: ['label', 'revise', 'dispute'] } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
          gradeReveals: { select: { graderId: true, revealedAt: true } },
          decisions: {
            where: { kind: { in: [...VERDICT_KINDS] } },
            orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
            take: 1,
            include: { user: { select: { name: true } } },
          },
          consensus: { include: { settledBy: { select: { name: true } } } },
        },
      },
    },
  });
  return {
    queue: {
      id: queue.id,
      name: queue.name,
      gradersPerFix: queue.gradersPerFix,
      status: queue.status,
      filter: queue.filter,
      exportedAt: new Date().toISOString(),
    },
    items: items.map((i) => {
      const decision = i.fix.decisions[0];
      return {
        position: i.position + 1,
        fixId: i.fix.id,
        repository: i.fix.change.repository.name,
        changeExternalId: i.fix.change.externalId,
        changeTitle: i.fix.change.title,
        policy: i.fix.run.policy,
        model: i.fix.run.model,
        labels: i.fix.grades.map((g) => ({
          graderId: g.graderId,
          graderName: g.grader.name,
          label: g.label,
          tags: g.tags,
          rationale: g.rationale,
          labelledAt: g.updatedAt.toISOString(),
          firstLabelledAt: g.createdAt.toISOString(),
          revealedAt: i.fix.gradeReveals.find((r) => r.graderId === g.graderId)?.revealedAt.toISOString() ?? null,
          history: i.fix.gradeEvents
            .filter((e) => e.actorId === g.graderId)
            .map((e) => ({ kind: e.kind as ExportLabelEvent['kind'], label: e.label, tags: e.tags, rationale: e.rationale, at: e.createdAt.toISOString() })),
        })),
        skips: i.skips.map((s) => ({ graderId: s.graderId, graderName: s.grader.name, reason: s.reason, skippedAt: s.createdAt.toISOString() })),
        decision: decision
          ? { kind: decision.kind, reason: decision.reason, reasonText: decision.reasonText, by: decision.user.name, at: decision.createdAt.toISOString() }
          : null,
        consensus: i.fix.consensus
          ? {
              label: i.fix.consensus.label,
              automatic: i.fix.consensus.automatic,
              note: i.fix.consensus.note,
              settledBy: i.fix.consensus.settledBy?.name ?? null,
              settledAt: i.fix.consensus.settledAt.toISOString(),
            }
          : null,
      };
    }),
  };
}

export function queueExportCsv(data: QueueExport): string {
  const rows: string[][] = [];
  for (const item of data.items) {
    const c = item.consensus;
    const settlement = c ? [c.label, String(c.automatic), c.note, c.settledBy ?? '', c.settledAt] : ['', '', '', '', ''];
    const head = [data.queue.id, data.queue.name, String(item.position), item.fixId, item.repository, item.changeExternalId, item.changeTitle];
    const d = item.decision;
    const itemTail = [JSON.stringify(item.skips), d?.kind ?? '', d?.reason ?? '', d?.reasonText ?? '', item.policy, item.model ?? ''];
    if (item.labels.length === 0) rows.push([...head, '', '', '', '', '', '', ...settlement, '', '', '', ...itemTail]);
    for (const l of item.labels) {
      rows.push([
        ...head,
        l.graderId,
        l.graderName,
        l.label,
        l.tags.join(';'),
        l.rationale,
        l.labelledAt,
        ...settlement,
        l.firstLabelledAt,
        JSON.stringify(l.history),
        l.revealedAt ?? '',
        ...itemTail,
      ]);
    }
  }
  return csvDocument(EXPORT_COLUMNS, rows);
}
