import 'server-only';
import { Prisma } from '../generated/prisma/client';
import { getDb } from '../db';
import { wilson } from '../../common/stats';
import { GRADE_LABELS, type GradeLabelName } from '../../common/grading';

// How good are flowfix's fixes, as the graders judged them: the share of each
// label over settled fixes (a Consensus row, automatic or settled by a
// person), with 95% Wilson intervals, optionally grouped; and the reviewers'
// decisions beside the graders' verdicts. The one query module the managers'
// pages read precision from. The period is the fix's creation time.

export interface PrecisionFilter {
  from?: Date;
  to?: Date;
  repositoryId?: string;
  policy?: string;
  model?: string;
}
export type PrecisionGroup = 'repository' | 'policy' | 'model' | 'month';
/** A count out of the row's settled fixes, its share and 95% Wilson interval; share and bounds null when n = 0. */
export interface Share {
  count: number;
  share: number | null;
  low: number | null;
  high: number | null;
}
export interface PrecisionRow {
  /** the group's key (repository id, policy, model, "YYYY-MM"); null for the ungrouped row and for fixes without a model */
  key: string | null;
  label: string;
  settled: number;
  correct: Share;
  overfitting: Share;
  incorrect: Share;
  irrelevant: Share;
}

export const PRECISION_GROUPS: readonly PrecisionGroup[] = ['repository', 'policy', 'model', 'month'];

function whereOf(filter: PrecisionFilter): Prisma.Sql {
  const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.from) parts.push(Prisma.sql`f."createdAt" >= ${filter.from}`);
  if (filter.to) parts.push(Prisma.sql`f."createdAt" < ${filter.to}`);
  if (filter.repositoryId) parts.push(Prisma.sql`ch."repositoryId" = ${filter.repositoryId}`);
  if (filter.policy) parts.push(Prisma.sql`r.policy = ${filter.policy}`);
  if (filter.model) parts.push(Prisma.sql`r.model = ${filter.model}`);
  return Prisma.join(parts, ' AND ');
}

const GROUP_SQL: Record<PrecisionGroup | 'none', { key: Prisma.Sql; label: Prisma.Sql }> = {
  none: { key: Prisma.sql`NULL::text`, label: Prisma.sql`'All settled fixes'::text` },
  repository: { key: Prisma.sql`rp.id`, label: Prisma.sql`rp.name` },
  policy: { key: Prisma.sql`r.policy`, label: Prisma.sql`r.policy` },
  model: { key: Prisma.sql`r.model`, label: Prisma.sql`COALESCE(r.model, 'no model')` },
  month: {
    key: Prisma.sql`to_char(date_trunc('month', f."createdAt"), 'YYYY-MM')`,
    label: Prisma.sql`to_char(date_trunc('month', f."createdAt"), 'YYYY-MM')`,
  },
};

function shareOf(count: number, n: number): Share {
  const interval = wilson(count, n);
  return { count, share: n > 0 ? count / n : null, low: interval?.low ?? null, high: interval?.high ?? null };
}

/** Settled fixes and their label shares; without groupBy one row (key null), else one row per group in key order. */
export async function precision(filter: PrecisionFilter, groupBy?: PrecisionGroup): Promise<PrecisionRow[]> {
  const group = GROUP_SQL[groupBy ?? 'none'];
  const rows = await getDb().$queryRaw<Array<{ key: string | null; label: string; grade: GradeLabelName; n: number }>>`
    SELECT ${group.key} AS key, ${group.label} AS label, c.label::text AS grade, count(*)::int AS n
    FROM "Consensus" c
    JOIN "Fix" f ON f.id = c."fixId"
    JOIN "Run" r ON r.id = f."runId"
    JOIN "Change" ch ON ch.id = f."changeId"
    JOIN "Repository" rp ON rp.id = ch."repositoryId"
    WHERE ${whereOf(filter)}
    GROUP BY 1, 2, 3`;
  const groups = new Map<string, { key: string | null; label: string; counts: Record<GradeLabelName, number> }>();
  for (const row of rows) {
    const id = `${row.key ?? '\u0000'}`;
    let g = groups.get(id);
    if (!g) {
      g = { key: row.key, label: row.label, counts: { CORRECT: 0, OVERFITTING: 0, INCORRECT: 0, IRRELEVANT: 0 } };
      groups.set(id, g);
    }
    g.counts[row.grade] += Number(row.n);
  }
  if (!groupBy && groups.size === 0) {
    groups.set('\u0000', { key: null, label: 'All settled fixes', counts: { CORRECT: 0, OVERFITTING: 0, INCORRECT: 0, IRRELEVANT: 0 } });
  }
  return [...groups.values()]
    .sort((a, b) => (a.key === b.key ? 0 : a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : 1))
    .map((g) => {
      const settled = GRADE_LABELS.reduce((sum, l) => sum + g.counts[l], 0);
      return {
        key: g.key,
        label: g.label,
        settled,
        correct: shareOf(g.counts.CORRECT, settled),
        overfitting: shareOf(g.counts.OVERFITTING, settled),
        incorrect: shareOf(g.counts.INCORRECT, settled),
        irrelevant: shareOf(g.counts.IRRELEVANT, settled),
      };
    });
}

/**
 * Reviewers beside graders, over settled fixes: accepted (applied) fixes the
 * graders judged overfitting or incorrect, rejected fixes they judged correct,
 * and the reasons the reviewers gave for those rejections (the latest reject
 * decision's reason; "UNSPECIFIED" when it gave none).
 */
export async function reviewersVsGraders(filter: PrecisionFilter): Promise<{
  acceptedJudgedBad: number;
  acceptedSettled: number;
  rejectedJudgedCorrect: number;
  rejectedSettled: number;
  rejectedCorrectByReason: Array<{ reason: string; count: number }>;
}> {
  const where = whereOf(filter);
  const [counts] = await getDb().$queryRaw<
    Array<{ acceptedSettled: number; acceptedJudgedBad: number; rejectedSettled: number; rejectedJudgedCorrect: number }>
  >`
    SELECT
      count(*) FILTER (WHERE f.status = 'APPLIED')::int AS "acceptedSettled",
      count(*) FILTER (WHERE f.status = 'APPLIED' AND c.label IN ('OVERFITTING', 'INCORRECT'))::int AS "acceptedJudgedBad",
      count(*) FILTER (WHERE f.status = 'REJECTED')::int AS "rejectedSettled",
      count(*) FILTER (WHERE f.status = 'REJECTED' AND c.label = 'CORRECT')::int AS "rejectedJudgedCorrect"
    FROM "Consensus" c
    JOIN "Fix" f ON f.id = c."fixId"
    JOIN "Run" r ON r.id = f."runId"
    JOIN "Change" ch ON ch.id = f."changeId"
    WHERE ${where}`;
  const reasons = await getDb().$queryRaw<Array<{ reason: string; count: number }>>`
    SELECT COALESCE(d.reason::text, 'UNSPECIFIED') AS reason, count(*)::int AS count
    FROM "Consensus" c
    JOIN "Fix" f ON f.id = c."fixId"
    JOIN "Run" r ON r.id = f."runId"
    JOIN "Change" ch ON ch.id = f."changeId"
    LEFT JOIN LATERAL (
      SELECT reason FROM "Decision" WHERE "fixId" = f.id AND kind = 'REJECT' ORDER BY "createdAt" DESC, id DESC LIMIT 1
    ) d ON TRUE
    WHERE ${where} AND f.status = 'REJECTED' AND c.label = 'CORRECT'
    GROUP BY 1
    ORDER BY 2 DESC, 1`;
  return {
    acceptedJudgedBad: Number(counts?.acceptedJudgedBad ?? 0),
    acceptedSettled: Number(counts?.acceptedSettled ?? 0),
    rejectedJudgedCorrect: Number(counts?.rejectedJudgedCorrect ?? 0),
    rejectedSettled: Number(counts?.rejectedSettled ?? 0),
    rejectedCorrectByReason: reasons.map((r) => ({ reason: r.reason, count: Number(r.count) })),
  };
}
