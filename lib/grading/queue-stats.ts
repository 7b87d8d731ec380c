import 'server-only';
import { getDb } from '../db';
import type { SessionUser } from '../auth/session';
import { GRADE_LABELS, type GradeLabelName } from '../../common/grading';
import { agreementWithConsensus, fleissKappa, krippendorffAlpha, pairwiseCohen, labelsAsFirstGiven, percentAgreement, type Unit } from './agreement';
import { queueForLead } from './queues';

// A queue's agreement figures: its labels loaded and handed to
// agreement.ts. Rater ids become names for the page; ids stay beside them.
//
// Only final labels count: items that are settled or have all their labels
// (lib/grading/item-rules.ts). An item still waiting for labels is left out: its
// labels may still change, and the queue's lead, who may be grading too,
// would read in the figures what the others said about an item they can
// still relabel. Each label counts as it stood when it became final (the item
// complete, or its grader shown the others' labels): a revision after that
// counts as first given (labelsAsFirstGiven), so moving to the majority once
// the outcome could be known never raises agreement.

export interface QueueAgreement {
  items: number;
  /** final items (settled, or with all their labels) with at least two labels: what the statistics are computed over */
  rated: number;
  /** labels given in the queue, final or not */
  labels: number;
  percentAgreement: number | null;
  fleissKappa: number | null;
  krippendorffAlpha: number | null;
  categories: readonly GradeLabelName[];
  pairs: Array<{
    a: { id: string; name: string };
    b: { id: string; name: string };
    shared: number;
    kappa: number | null;
    agreement: number | null;
    confusion: number[][];
  }>;
  graders: Array<{ id: string; name: string; labelled: number; settled: number; agreeing: number; share: number | null }>;
}

export async function queueAgreement({ queueId, user }: { queueId: string; user: SessionUser }): Promise<QueueAgreement> {
  await queueForLead(queueId, user);
  const db = getDb();
  const [items, grades, events, reveals] = await Promise.all([
    db.$queryRaw<Array<{ fixId: string; needed: number; settled: GradeLabelName | null }>>`
      SELECT i."fixId",
        (SELECT min(q."gradersPerFix") FROM "GradingItem" o JOIN "GradingQueue" q ON q.id = o."queueId" WHERE o."fixId" = i."fixId")::int AS needed,
        c.label::text AS settled
      FROM "GradingItem" i LEFT JOIN "Consensus" c ON c."fixId" = i."fixId"
      WHERE i."queueId" = ${queueId}`,
    db.$queryRaw<Array<{ fixId: string; graderId: string; label: GradeLabelName; createdAt: Date }>>`
      SELECT g."fixId", g."graderId", g.label::text AS label, g."createdAt"
      FROM "Grade" g JOIN "GradingItem" i ON i."fixId" = g."fixId"
      WHERE i."queueId" = ${queueId}`,
    db.$queryRaw<Array<{ fixId: string; actorId: string; label: GradeLabelName; createdAt: Date }>>`
      SELECT e."fixId", e."actorId", e.label::text AS label, e."createdAt"
      FROM "GradeEvent" e JOIN "GradingItem" i ON i."fixId" = e."fixId"
      WHERE i."queueId" = ${queueId} AND e.kind IN ('label', 'revise') AND e.label IS NOT NULL`,
    db.$queryRaw<Array<{ fixId: string; graderId: string; revealedAt: Date }>>`
      SELECT v."fixId", v."graderId", v."revealedAt"
      FROM "GradeReveal" v JOIN "GradingItem" i ON i."fixId" = v."fixId"
      WHERE i."queueId" = ${queueId}`,
  ]);
  const byFix = <T extends { fixId: string }>(rows: T[]) => {
    const m = new Map<string, T[]>();
    for (const r of rows) m.set(r.fixId, [...(m.get(r.fixId) ?? []), r]);
    return m;
  };
  const gradesOf = byFix(grades);
  const eventsOf = byFix(events);
  const revealsOf = byFix(reveals);
  const byItem: Array<{ unit: Unit; settled: GradeLabelName | null }> = [];
  const names = new Map<string, string>();
  const labelled = new Map<string, number>();
  let labels = 0;
  for (const item of items) {
    const own = gradesOf.get(item.fixId) ?? [];
    for (const g of own) labelled.set(g.graderId, (labelled.get(g.graderId) ?? 0) + 1);
    labels += own.length;
    // the moment the item had all its labels: its needed-th label's first giving
    const given = own.map((g) => g.createdAt.getTime()).sort((a, b) => a - b);
    const completeAt = item.needed > 0 && given.length >= item.needed ? given[item.needed - 1] : null;
    if (completeAt === null && item.settled === null) continue;
    const finalAt = new Map<string, Date>();
    for (const g of own) {
      const seen = revealsOf
        .get(item.fixId)
        ?.find((v) => v.graderId === g.graderId)
        ?.revealedAt.getTime();
      const at = Math.min(completeAt ?? Infinity, seen ?? Infinity);
      if (Number.isFinite(at)) finalAt.set(g.graderId, new Date(at));
    }
    const unit = labelsAsFirstGiven({
      current: own.map((g) => ({ rater: g.graderId, label: g.label })),
      events: (eventsOf.get(item.fixId) ?? []).map((e) => ({ rater: e.actorId, label: e.label, at: e.createdAt })),
      finalAt,
    });
    byItem.push({ unit, settled: item.settled });
  }
  for (const u of await getDb().user.findMany({ where: { id: { in: [...labelled.keys()] } }, select: { id: true, name: true } })) {
    names.set(u.id, u.name);
  }
  const entries = byItem;
  const units = entries.map((e) => e.unit);
  const person = (id: string) => ({ id, name: names.get(id) ?? id });
  return {
    items: items.length,
    rated: units.filter((u) => Object.keys(u).length >= 2).length,
    labels,
    percentAgreement: percentAgreement(units),
    fleissKappa: fleissKappa(units),
    krippendorffAlpha: krippendorffAlpha(units),
    categories: GRADE_LABELS,
    pairs: pairwiseCohen(units, GRADE_LABELS).map((p) => ({ ...p, a: person(p.a), b: person(p.b) })),
    graders: agreementWithConsensus(
      units,
      entries.map((e) => e.settled),
    )
      .map((g) => ({ ...person(g.rater), labelled: labelled.get(g.rater) ?? 0, settled: g.settled, agreeing: g.agreeing, share: g.share }))
      .sort((x, y) => x.name.localeCompare(y.name)),
  };
}
