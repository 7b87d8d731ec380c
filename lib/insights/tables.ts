// The rollup tables' shape and the counts they hold: which dimensions key a
// row, which counts are columns and which live under keys in jsonb, and the
// arithmetic of counts. What a count means is decided by cells.ts, from the
// facts facts.ts reads; the rollups (rollup.ts) and the readers (read.ts)
// store and add these.

export const ALL = '*';
/** `model` of a run without one */
export const NO_MODEL = '';
/** trigger roll-up of AUTO and MANUAL runs: the repair runs */
export const REPAIR = 'REPAIR';

/** count name → value; absent = 0 */
export type Counts = Map<string, number>;

export interface RollupTable {
  name: 'InsightsCohortDay' | 'InsightsRunDay' | 'InsightsPrecisionDay';
  /** the primary key, in order; `day` is a DATE, the rest text */
  dims: readonly string[];
  /** integer columns; every other count lives under its key in a jsonb column (KEYED_COLUMN) */
  scalars: readonly string[];
  /** scalars that are BIGINT */
  bigints: readonly string[];
  /** its jsonb columns of keyed counts */
  keyed: readonly KeyedColumn[];
}

/**
 * The jsonb columns of keyed counts: the reasons (`counters`), and one per
 * histogram, so that a section reads only the histograms it shows (a
 * histogram is up to a few hundred buckets a row).
 */
export type KeyedColumn = 'counters' | 'histDeveloper' | 'histFix' | 'histPhase' | 'histToolCalls' | 'histTokens';

export const COHORT_TABLE: RollupTable = {
  name: 'InsightsCohortDay',
  dims: ['repositoryId', 'authorKind', 'day'],
  scalars: ['changes', 'skipped'],
  bigints: [],
  keyed: ['counters', 'histDeveloper'],
};

export const RUN_TABLE: RollupTable = {
  name: 'InsightsRunDay',
  dims: ['repositoryId', 'authorKind', 'day', 'policy', 'model', 'trigger'],
  scalars: [
    'attempted',
    'runs',
    'toolCalls',
    'tokens',
    'costMicros',
    'unpriced',
    'finished',
    'noFix',
    'found',
    'dropped',
    'posted',
    'postedZeroCost',
    'previewed',
    'applied',
    'rejected',
    'accepts',
    'editAccepts',
    'rejects',
  ],
  bigints: ['toolCalls', 'tokens', 'costMicros'],
  keyed: ['counters', 'histFix', 'histPhase', 'histToolCalls', 'histTokens'],
};

export const PRECISION_TABLE: RollupTable = {
  name: 'InsightsPrecisionDay',
  dims: ['repositoryId', 'day', 'policy', 'model'],
  scalars: ['correct', 'overfitting', 'incorrect', 'irrelevant', 'acceptedSettled', 'acceptedJudgedBad', 'rejectedSettled', 'rejectedJudgedCorrect'],
  bigints: [],
  keyed: ['counters'],
};

/** Keys of the keyed counts: `<prefix><what>` */
export const COUNTER = {
  /** cohort: skipped changes by pre-execution filter */
  skip: 'skip:',
  /** cohort: histogram of failure report → the developer's next revision, ms */
  developerMs: 'dev:',
  /** runs: found fixes a post-execution filter dropped (or that arrived stale), by reason */
  drop: 'drop:',
  /**
   * runs: changes with at least one such fix, by reason: what the funnel's
   * reasons show, so that a reason's bar counts what its drill-down (the
   * triage list, drill-down.ts) lists: changes, not fixes
   */
  dropChanges: 'dropchg:',
  /** runs: finished runs without a fix, `<category>:<exit reason>` */
  noFix: 'nofix:',
  /** runs: posted fixes previewed on a surface, `<surface>` */
  surfacePreviewed: 'seen:',
  /** runs: posted fixes applied from a surface, `<surface>` */
  surfaceApplied: 'applied:',
  /** runs: reject decisions by reason */
  reject: 'reject:',
  /** runs: histogram of failure report → fix posted, ms */
  fixMs: 'fix:',
  /** runs: histograms of finished runs' phase times, `<phase>:<bucket>`, ms */
  phaseMs: 'phase:',
  /** runs: histograms of tool calls and tokens per run */
  toolCalls: 'tools:',
  tokens: 'tokens:',
  /** precision: fixes rejected by reviewers and judged correct, by the last reject's reason */
  rejectedCorrect: 'rcr:',
} as const;

/** the histograms' columns, by the prefix of their keys; every other keyed count is in `counters` */
export const HISTOGRAM_COLUMN: Readonly<Record<string, KeyedColumn>> = {
  [COUNTER.developerMs]: 'histDeveloper',
  [COUNTER.fixMs]: 'histFix',
  [COUNTER.phaseMs]: 'histPhase',
  [COUNTER.toolCalls]: 'histToolCalls',
  [COUNTER.tokens]: 'histTokens',
};

const columnOf = new Map<string, KeyedColumn>();

/** The jsonb column a keyed count is kept in. */
export function keyedColumn(key: string): KeyedColumn {
  let column = columnOf.get(key);
  if (column === undefined) {
    column = Object.entries(HISTOGRAM_COLUMN).find(([prefix]) => key.startsWith(prefix))?.[1] ?? 'counters';
    // the keys are a bounded set (buckets and reasons): remembered
    if (columnOf.size < 100_000) columnOf.set(key, column);
  }
  return column;
}

// ───── counts ─────

export function add(counts: Counts, key: string, n: number): void {
  const v = (counts.get(key) ?? 0) + n;
  if (v === 0) counts.delete(key);
  else counts.set(key, v);
}

/** adds every count of `from`, times `sign` */
export function addAll(into: Counts, from: Counts, sign = 1): void {
  for (const [k, v] of from) add(into, k, sign * v);
}
