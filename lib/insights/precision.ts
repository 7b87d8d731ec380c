import 'server-only';
import { getDb } from '../db';
import { ALL, COUNTER, NO_MODEL, PRECISION_TABLE, addAll, type Counts } from './tables';
import { InsightsReader, OWN, keyedCounts, n, withInsightsSnapshot } from './read';
import { wilson } from '../../common/stats';
import { GRADE_LABELS, type GradeLabelName } from '../../common/grading';
import { loadSettledSources } from './facts';

// How good are flowfix's fixes, as the graders judged them: the share of each
// label over settled fixes (a Consensus row, automatic or settled by a
// person), with 95% Wilson intervals, optionally grouped; and the reviewers'
// decisions beside the graders' verdicts. The one query module the managers'
// pages read precision from. The period is the fix's creation time. The
// counts come from the Insights precision rollup (lib/insights/rollup.ts,
// defined in lib/insights/cells.ts), kept by the writers.

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

function shareOf(count: number, n: number): Share {
  const interval = wilson(count, n);
  return { count, share: n > 0 ? count / n : null, low: interval?.low ?? null, high: interval?.high ?? null };
}

/** Where a query may read: a reader of the filter's period in a snapshot (Insights shares one), else a new one. */
export interface PrecisionOptions {
  reader?: InsightsReader;
}

async function withReader<T>(filter: PrecisionFilter, options: PrecisionOptions | undefined, fn: (reader: InsightsReader) => Promise<T>): Promise<T> {
  if (options?.reader) return fn(options.reader);
  return withInsightsSnapshot(getDb(), (tx) => fn(new InsightsReader(tx, { from: filter.from ?? null, to: filter.to ?? null })));
}

/** the filter's cell: its repository, policy and model, or every one */
function cellWhere(filter: PrecisionFilter): Record<string, string> {
  return { repositoryId: filter.repositoryId || ALL, policy: filter.policy || ALL, model: filter.model || ALL };
}

const LABEL_COUNT: Record<GradeLabelName, string> = { CORRECT: 'correct', OVERFITTING: 'overfitting', INCORRECT: 'incorrect', IRRELEVANT: 'irrelevant' };

/** Settled fixes and their label shares; without groupBy one row (key null), else one row per group in key order. */
export async function precision(filter: PrecisionFilter, groupBy?: PrecisionGroup, options?: PrecisionOptions): Promise<PrecisionRow[]> {
  return withReader(filter, options, async (reader) => {
    // settled fixes by repository, policy and model (one query whatever the
    // grouping: a fix has one of each, so every grouping adds these up), or by day for months
    const fine =
      groupBy === 'month' ? cellWhere(filter) : { repositoryId: filter.repositoryId || OWN, policy: filter.policy || OWN, model: filter.model || OWN };
    const sums = await reader.sums({ table: PRECISION_TABLE, where: fine }, groupBy === 'month' ? ['day'] : ['repositoryId', 'policy', 'model']);
    const keyOf = (d: Record<string, string>): string | null => {
      switch (groupBy) {
        case 'repository':
          return d.repositoryId!;
        case 'policy':
          return d.policy!;
        case 'model':
          return d.model === NO_MODEL ? null : d.model!;
        case 'month':
          return d.day!.slice(0, 7);
        default:
          return null;
      }
    };
    const groups = new Map<string, Counts>();
    for (const { group, counts } of sums.values()) {
      const key = keyOf(group) ?? '\u0000';
      let sum = groups.get(key);
      if (!sum) groups.set(key, (sum = new Map()));
      addAll(sum, counts);
    }
    if (!groupBy && groups.size === 0) groups.set('\u0000', new Map());
    const names =
      groupBy === 'repository'
        ? new Map(
            (await reader.tx.repository.findMany({ where: { id: { in: [...groups.keys()] } }, select: { id: true, name: true } })).map((r) => [r.id, r.name]),
          )
        : new Map<string, string>();
    const labelOf = (key: string | null): string => {
      if (!groupBy) return 'All settled fixes';
      if (key === null) return 'no model';
      return groupBy === 'repository' ? (names.get(key) ?? key) : key;
    };
    return [...groups.entries()]
      .map(([id, counts]) => ({ key: id === '\u0000' ? null : id, counts }))
      .sort((a, b) => (a.key === b.key ? 0 : a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : 1))
      .map(({ key, counts }) => {
        const settled = GRADE_LABELS.reduce((sum, l) => sum + n(counts, LABEL_COUNT[l]), 0);
        return {
          key,
          label: labelOf(key),
          settled,
          correct: shareOf(n(counts, 'correct'), settled),
          overfitting: shareOf(n(counts, 'overfitting'), settled),
          incorrect: shareOf(n(counts, 'incorrect'), settled),
          irrelevant: shareOf(n(counts, 'irrelevant'), settled),
        };
      });
  });
}

/** The grading precision route's answer. */
export interface PrecisionResponse {
  overall: PrecisionRow;
  groups: PrecisionRow[];
  reviewers: Awaited<ReturnType<typeof reviewersVsGraders>>;
  sources: SettledSources;
}

/**
 * Where the settled fixes come from, so a count larger than one queue's is
 * explained: each settled fix once, under the newest grading queue that holds
 * it, else as seeded with the demo's history (settled before any queue), else
 * as settled in no queue. They add up to `settled`.
 */
export interface SettledSources {
  /** newest queue first */
  queues: Array<{ id: string; name: string; settled: number }>;
  demoHistory: number;
  noQueue: number;
}

export async function settledSources(filter: PrecisionFilter, options?: PrecisionOptions): Promise<SettledSources> {
  return withReader(filter, options, async (reader) => {
    const rows = await loadSettledSources(reader.tx, {
      from: filter.from ?? null,
      to: filter.to ?? null,
      repositoryId: filter.repositoryId || undefined,
      policy: filter.policy || undefined,
      model: filter.model || undefined,
    });
    const queues = await reader.tx.gradingQueue.findMany({
      where: { id: { in: rows.flatMap((r) => (r.queueId ? [r.queueId] : [])) } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { id: true, name: true },
    });
    const settledIn = new Map(rows.flatMap((r) => (r.queueId ? [[r.queueId, r.settled] as const] : [])));
    return {
      queues: queues.map((q) => ({ id: q.id, name: q.name, settled: settledIn.get(q.id) ?? 0 })),
      demoHistory: rows.filter((r) => r.queueId === null && r.demoHistory).reduce((s, r) => s + r.settled, 0),
      noQueue: rows.filter((r) => r.queueId === null && !r.demoHistory).reduce((s, r) => s + r.settled, 0),
    };
  });
}

/**
 * Reviewers beside graders, over settled fixes: accepted (applied) fixes the
 * graders judged overfitting or incorrect, rejected fixes they judged correct,
 * and the reasons the reviewers gave for those rejections (the latest reject
 * decision's reason; "UNSPECIFIED" when it gave none).
 */
export async function reviewersVsGraders(
  filter: PrecisionFilter,
  options?: PrecisionOptions,
): Promise<{
  acceptedJudgedBad: number;
  acceptedSettled: number;
  rejectedJudgedCorrect: number;
  rejectedSettled: number;
  rejectedCorrectByReason: Array<{ reason: string; count: number }>;
}> {
  return withReader(filter, options, async (reader) => {
    const counts = await reader.total({ table: PRECISION_TABLE, where: cellWhere(filter), counters: true });
    return {
      acceptedJudgedBad: n(counts, 'acceptedJudgedBad'),
      acceptedSettled: n(counts, 'acceptedSettled'),
      rejectedJudgedCorrect: n(counts, 'rejectedJudgedCorrect'),
      rejectedSettled: n(counts, 'rejectedSettled'),
      rejectedCorrectByReason: [...keyedCounts(counts, COUNTER.rejectedCorrect).entries()]
        .map(([reason, count]) => ({ reason, count }))
        .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0)),
    };
  });
}
