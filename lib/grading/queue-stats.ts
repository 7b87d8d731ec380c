import 'server-only';
import { getDb } from '../db';
import type { SessionUser } from '../auth/session';
import { GRADE_LABELS, type GradeLabelName } from '../../common/grading';
import {
  agreementWithConsensus,
  fleissKappa,
  krippendorffAlpha,
  pairwiseCohen,
  percentAgreement,
  type Unit,
} from './agreement';
import { queueForLead } from './queues';

// A queue's agreement figures: its labels loaded in one query and handed to
// agreement.ts. Rater ids become names for the page; ids stay beside them.

export interface QueueAgreement {
  items: number;
  /** items with at least two labels (what the statistics are computed over) */
  rated: number;
  labels: number;
  percentAgreement: number | null;
  fleissKappa: number | null;
  krippendorffAlpha: number | null;
  categories: readonly GradeLabelName[];
  pairs: Array<{ a: { id: string; name: string }; b: { id: string; name: string }; shared: number; kappa: number | null; agreement: number | null; confusion: number[][] }>;
  graders: Array<{ id: string; name: string; labelled: number; settled: number; agreeing: number; share: number | null }>;
}

export async function queueAgreement({ queueId, user }: { queueId: string; user: SessionUser }): Promise<QueueAgreement> {
  await queueForLead(queueId, user);
  // one row per item, its labels aggregated: a third of the rows to carry
  const rows = await getDb().$queryRaw<Array<{ graders: string[] | null; labels: GradeLabelName[] | null; settled: GradeLabelName | null }>>`
    SELECT array_agg(g."graderId" ORDER BY g."graderId") FILTER (WHERE g."graderId" IS NOT NULL) AS graders,
           array_agg(g.label::text ORDER BY g."graderId") FILTER (WHERE g."graderId" IS NOT NULL) AS labels,
           c.label::text AS settled
    FROM "GradingItem" i
    LEFT JOIN "Grade" g ON g."fixId" = i."fixId"
    LEFT JOIN "Consensus" c ON c."fixId" = i."fixId"
    WHERE i."queueId" = ${queueId}
    GROUP BY i.id, c.label`;
  const byItem: Array<{ unit: Unit; settled: GradeLabelName | null }> = [];
  const names = new Map<string, string>();
  const labelled = new Map<string, number>();
  let labels = 0;
  for (const r of rows) {
    const unit: Unit = {};
    (r.graders ?? []).forEach((graderId, k) => {
      unit[graderId] = r.labels![k];
      labelled.set(graderId, (labelled.get(graderId) ?? 0) + 1);
      labels += 1;
    });
    byItem.push({ unit, settled: r.settled });
  }
  for (const u of await getDb().user.findMany({ where: { id: { in: [...labelled.keys()] } }, select: { id: true, name: true } })) {
    names.set(u.id, u.name);
  }
  const entries = byItem;
  const units = entries.map((e) => e.unit);
  const person = (id: string) => ({ id, name: names.get(id) ?? id });
  return {
    items: entries.length,
    rated: units.filter((u) => Object.keys(u).length >= 2).length,
    labels,
    percentAgreement: percentAgreement(units),
    fleissKappa: fleissKappa(units),
    krippendorffAlpha: krippendorffAlpha(units),
    categories: GRADE_LABELS,
    pairs: pairwiseCohen(units, GRADE_LABELS).map((p) => ({ ...p, a: person(p.a), b: person(p.b) })),
    graders: agreementWithConsensus(units, entries.map((e) => e.settled))
      .map((g) => ({ ...person(g.rater), labelled: labelled.get(g.rater) ?? 0, settled: g.settled, agreeing: g.agreeing, share: g.share }))
      .sort((x, y) => x.name.localeCompare(y.name)),
  };
}
