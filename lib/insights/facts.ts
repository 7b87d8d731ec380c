import 'server-only';
import type { Db } from '../db';
import type { Prisma } from '../generated/prisma/client';
import { PHASES } from '../../common/run-events';
import { isTerminalRunStatus } from '../../common/run-status';
import { SEARCHED_IN_VAIN_EXIT_REASONS, noFixCategory } from '../../common/exit-reasons';
import { isApplyKind } from '../../common/decisions';
import { bucketOf } from './histogram';
import { SqlParams, utc } from './sql';

// What every Insights figure counts, in one place: the raw facts of a set of
// changes (or of settled fixes, for precision) read from the database, and
// folded into cells of counts. The rollups (rollup.ts) are these cells per UTC
// day, kept by the writers; the readers (read.ts) fold the raw facts of part
// of a day the same way. Nothing else decides what a count means.
//
// A cell is keyed by the day and the filter dimensions. A fact counts in its
// own value of a dimension and, where asked for, in the roll-up '*' (ALL) of
// the repository, policy and model, so a filter reads one cell per day and
// author kind whatever it leaves open. Runs also count in trigger 'REPAIR'
// (AUTO and MANUAL: what every section but cost means when no trigger is
// asked for). "attempted" is a number of changes, not runs: a change counts
// once in each cell any of its runs falls in, which is why the run dimensions
// are rolled up here and never by adding cells (FULL_CUBE says which).
//
// Every count is an integer (cost in millionths of a dollar), so sums and
// differences of cells are exact and a rollup can be compared with a
// recomputation for equality.

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

// ───── why a run produced no fix ─────

const MISLOCALISABLE_SQL = SEARCHED_IN_VAIN_EXIT_REASONS.map((r) => `'${r}'`).join(', ');

// ───── the raw facts ─────

/** Changes whose first failure (createdAt) lies in [from, to), optionally of one repository and author kind. */
export interface ChangeRange {
  from: Date;
  to: Date;
  /** '' matches no repository */
  repositoryId?: string;
  authorKind?: string;
}

export interface ChangeFact {
  id: string;
  day: string;
  repositoryId: string;
  authorKind: string;
  /** the pre-execution filter that skipped it (SKIPPED and never run), else null */
  skip: string | null;
  /** failure report → next revision, ms, for each superseded revision */
  developerMs: number[];
}

export interface RunFact {
  changeId: string;
  day: string;
  repositoryId: string;
  authorKind: string;
  policy: string;
  model: string;
  trigger: string;
  status: string;
  exitReason: string | null;
  /** finishedAt set: its phase times count */
  ended: boolean;
  phases: Array<[string, number]>;
  toolCalls: number;
  tokens: number;
  /** null: the model had no price (unknown, never $0) */
  costUsd: number | null;
  reachedGreen: boolean;
  /** no fix, and none of the files the developer changed next was among the run's suspects */
  mislocalised: boolean;
  fix: null | {
    /** null: posted */
    dropReason: string | null;
    /** the revision's failure report → the fix, ms */
    latencyMs: number;
    decisions: Array<{ kind: string; surface: string; reason: string | null }>;
  };
}

export interface CohortFacts {
  changes: ChangeFact[];
  runs: RunFact[];
}

function changeWhere(range: ChangeRange, p: SqlParams): string {
  const and = [`c."createdAt" >= ${utc(range.from, p)}`, `c."createdAt" < ${utc(range.to, p)}`];
  if (range.repositoryId !== undefined) and.push(`c."repositoryId" = ${p.add(range.repositoryId, 'text')}`);
  if (range.authorKind !== undefined) and.push(`c."authorKind"::text = ${p.add(range.authorKind, 'text')}`);
  return and.join(' AND ');
}

type Row = Record<string, unknown>;

function numbers(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number);
  if (typeof value === 'string') return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number);
  return [];
}

function jsonValue(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

// The funnel's two reasons, defined once: the facts below count them and the
// triage list's drill-down (drill-down.ts) selects the changes they counted.
/** Change `c`: the pre-execution filter that skipped it (SKIPPED and never run), else NULL. */
export const SKIP_REASON_SQL = `CASE WHEN c.status = 'SKIPPED' AND NOT EXISTS (SELECT 1 FROM "Run" x WHERE x."changeId" = c.id)
    THEN COALESCE(c."statusReason", 'unknown') END`;
/** Fix `f` of revision `v`: why it was dropped, else NULL (posted). */
export const DROP_REASON_SQL = `CASE WHEN f.status = 'DROPPED' THEN COALESCE(NULLIF(regexp_replace(f."dropReason", '^dropped:', ''), ''), 'unknown')
       WHEN v."supersededAt" IS NOT NULL AND v."supersededAt" <= f."createdAt" THEN 'stale' END`;

/** The facts of the changes in `range` and of everything that happened to them: two queries. */
export async function loadCohortFacts(db: Db | Prisma.TransactionClient, range: ChangeRange): Promise<CohortFacts> {
  const cp = new SqlParams();
  const changeSql = `
SELECT c.id, to_char(c."createdAt", 'YYYY-MM-DD') AS day, c."repositoryId" AS repo, c."authorKind"::text AS author,
  ${SKIP_REASON_SQL} AS skip,
  ARRAY(SELECT (EXTRACT(EPOCH FROM (v."supersededAt" - v."createdAt")) * 1000)::float8 FROM "ChangeRevision" v
        WHERE v."changeId" = c.id AND v."supersededAt" IS NOT NULL) AS dev_ms
FROM "Change" c WHERE ${changeWhere(range, cp)}`;
  const rp = new SqlParams();
  // a fix whose revision was superseded before the fix existed arrived stale:
  // dropped as "stale" whatever its status says
  const runSql = `
SELECT r."changeId" AS change_id, to_char(c."createdAt", 'YYYY-MM-DD') AS day, c."repositoryId" AS repo, c."authorKind"::text AS author,
  r.policy, COALESCE(r.model, '') AS model, r.trigger::text AS trigger, r.status::text AS status, r."exitReason" AS exit_reason,
  (r."finishedAt" IS NOT NULL) AS ended, r."phaseTimings" AS phases, r."toolCalls" AS tool_calls,
  (r."promptTokens"::float8 + r."completionTokens") AS tokens, r."costUsd" AS cost,
  CASE WHEN r."exitReason" = 'no_candidate' THEN EXISTS (
    SELECT 1 FROM "RunEvent" e WHERE e."runId" = r.id AND e.type = 'gate' AND e.payload->>'gate' = 'green') ELSE FALSE END AS reached_green,
  CASE WHEN f.id IS NULL AND r."exitReason" IN (${MISLOCALISABLE_SQL}) AND jsonb_typeof(rv."nextFiles") = 'array' AND jsonb_array_length(rv."nextFiles") > 0 THEN
    EXISTS (SELECT 1 FROM "RunEvent" e WHERE e."runId" = r.id AND e.type = 'suspects')
    AND NOT EXISTS (
      SELECT 1 FROM "RunEvent" e CROSS JOIN LATERAL jsonb_array_elements(COALESCE(e.payload->'suspects', '[]'::jsonb)) s
      WHERE e."runId" = r.id AND e.type = 'suspects' AND s->>'file' IN (SELECT jsonb_array_elements_text(rv."nextFiles")))
  ELSE FALSE END AS mislocalised,
  f.id AS fix_id,
  ${DROP_REASON_SQL} AS drop_reason,
  (EXTRACT(EPOCH FROM (f."createdAt" - v."createdAt")) * 1000)::float8 AS fix_ms,
  CASE WHEN f.id IS NOT NULL THEN (
    SELECT json_agg(json_build_array(d.kind::text, d.surface::text, d.reason::text)) FROM "Decision" d WHERE d."fixId" = f.id) END AS decisions
FROM "Run" r JOIN "Change" c ON c.id = r."changeId"
LEFT JOIN "Fix" f ON f."runId" = r.id LEFT JOIN "ChangeRevision" v ON v.id = f."revisionId"
LEFT JOIN "ChangeRevision" rv ON rv.id = r."revisionId"
WHERE ${changeWhere(range, rp)}`;
  const changeRows = await db.$queryRawUnsafe<Row[]>(changeSql, ...cp.values);
  const runRows = await db.$queryRawUnsafe<Row[]>(runSql, ...rp.values);
  return {
    changes: changeRows.map((r) => ({
      id: String(r.id),
      day: String(r.day),
      repositoryId: String(r.repo),
      authorKind: String(r.author),
      skip: r.skip === null || r.skip === undefined ? null : String(r.skip),
      developerMs: numbers(r.dev_ms),
    })),
    runs: runRows.map((r): RunFact => {
      const phases = jsonValue(r.phases);
      const decisions = (jsonValue(r.decisions) ?? []) as Array<[string, string, string | null]>;
      return {
        changeId: String(r.change_id),
        day: String(r.day),
        repositoryId: String(r.repo),
        authorKind: String(r.author),
        policy: String(r.policy),
        model: String(r.model),
        trigger: String(r.trigger),
        status: String(r.status),
        exitReason: r.exit_reason === null || r.exit_reason === undefined ? null : String(r.exit_reason),
        ended: r.ended === true,
        phases:
          phases && typeof phases === 'object' && !Array.isArray(phases)
            ? PHASES.flatMap((phase): Array<[string, number]> => {
                const v = (phases as Record<string, unknown>)[phase];
                return typeof v === 'number' && Number.isFinite(v) ? [[phase, v]] : [];
              })
            : [],
        toolCalls: Number(r.tool_calls),
        tokens: Number(r.tokens),
        costUsd: r.cost === null || r.cost === undefined ? null : Number(r.cost),
        reachedGreen: r.reached_green === true,
        mislocalised: r.mislocalised === true,
        fix:
          r.fix_id === null || r.fix_id === undefined
            ? null
            : {
                dropReason: r.drop_reason === null || r.drop_reason === undefined ? null : String(r.drop_reason),
                latencyMs: Number(r.fix_ms),
                decisions: decisions.map(([kind, surface, reason]) => ({ kind, surface, reason })),
              },
      };
    }),
  };
}

/** Settled fixes made (Fix.createdAt) in [from, to), optionally of one repository. */
export interface FixRange {
  from: Date;
  to: Date;
  repositoryId?: string;
}

export interface PrecisionFact {
  day: string;
  repositoryId: string;
  policy: string;
  model: string;
  label: string;
  status: string;
  /** the reason of the latest reject decision, for a rejected fix */
  rejectReason: string | null;
}

export async function loadPrecisionFacts(db: Db | Prisma.TransactionClient, range: FixRange): Promise<PrecisionFact[]> {
  const p = new SqlParams();
  const and = [`f."createdAt" >= ${utc(range.from, p)}`, `f."createdAt" < ${utc(range.to, p)}`];
  if (range.repositoryId !== undefined) and.push(`ch."repositoryId" = ${p.add(range.repositoryId, 'text')}`);
  const rows = await db.$queryRawUnsafe<Row[]>(
    `
SELECT to_char(f."createdAt", 'YYYY-MM-DD') AS day, ch."repositoryId" AS repo, r.policy, COALESCE(r.model, '') AS model,
  cs.label::text AS label, f.status::text AS status,
  CASE WHEN f.status = 'REJECTED' THEN (
    SELECT d.reason::text FROM "Decision" d WHERE d."fixId" = f.id AND d.kind = 'REJECT' ORDER BY d."createdAt" DESC, d.id DESC LIMIT 1) END AS reject_reason
FROM "Fix" f JOIN "Consensus" cs ON cs."fixId" = f.id JOIN "Run" r ON r.id = f."runId" JOIN "Change" ch ON ch.id = f."changeId"
WHERE ${and.join(' AND ')}`,
    ...p.values,
  );
  return rows.map((r) => ({
    day: String(r.day),
    repositoryId: String(r.repo),
    policy: String(r.policy),
    model: String(r.model),
    label: String(r.label),
    status: String(r.status),
    rejectReason: r.reject_reason === null || r.reject_reason === undefined ? null : String(r.reject_reason),
  }));
}

// ───── folding facts into cells ─────

/**
 * Which values of a dimension a fact counts in: its own, the roll-up '*'
 * (repository, policy, model), and for triggers 'REPAIR' (AUTO and MANUAL
 * runs only).
 */
export type Choice = 'own' | 'all' | 'repair';

export interface Expansion {
  repositoryId: readonly Choice[];
  authorKind: readonly Choice[];
  policy: readonly Choice[];
  model: readonly Choice[];
  trigger: readonly Choice[];
}

/**
 * Every cell a fact belongs to: what the rollups keep. No roll-up over the
 * author kind nor over every trigger: they split the changes (and runs) in
 * two or three, so a reader adds those rows up; "attempted" counts changes
 * once per cell, and a change has one author kind. A change's runs of
 * several triggers, policies or models are why REPAIR and the '*' policy
 * and model cells are kept rather than added up.
 */
export const FULL_CUBE: Expansion = {
  repositoryId: ['own', 'all'],
  authorKind: ['own'],
  policy: ['own', 'all'],
  model: ['own', 'all'],
  trigger: ['own', 'repair'],
};

export interface Cell {
  /** the table's dims, in order */
  dims: string[];
  counts: Counts;
}

/** table → cell key → cell */
export type Cells = Map<string, Cell>;

export function cellKey(dims: readonly string[]): string {
  return dims.join('\u0001');
}

function valuesOf(own: string, choices: readonly Choice[]): string[] {
  const out: string[] = [];
  for (const c of choices) {
    if (c === 'own') out.push(own);
    else if (c === 'all') out.push(ALL);
    else if (own !== 'REVALIDATE') out.push(REPAIR);
  }
  return out;
}

/** every combination of the dimensions' values, in order */
function combinations(values: string[][]): string[][] {
  let out: string[][] = [[]];
  for (const vs of values) out = out.flatMap((prefix) => vs.map((v) => [...prefix, v]));
  return out;
}

export function add(counts: Counts, key: string, n: number): void {
  const v = (counts.get(key) ?? 0) + n;
  if (v === 0) counts.delete(key);
  else counts.set(key, v);
}

/** adds every count of `from`, times `sign` */
export function addAll(into: Counts, from: Counts, sign = 1): void {
  for (const [k, v] of from) add(into, k, sign * v);
}

/**
 * Adds contributions into cells fast: a rebuild folds a day's thousands of
 * runs into thousands of cells, each run into a dozen, so count names are
 * numbered once and a cell is an array of numbers by that index.
 */
class Accumulator {
  private readonly index = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly cells = new Map<string, { dims: string[]; values: number[] }>();

  /** a contribution: count index, value, index, value, … */
  contribution(counts: Counts): number[] {
    const out: number[] = [];
    for (const [name, v] of counts) {
      let i = this.index.get(name);
      if (i === undefined) {
        i = this.names.length;
        this.names.push(name);
        this.index.set(name, i);
      }
      out.push(i, v);
    }
    return out;
  }

  /** the cell of these dims (created empty), to add contributions to */
  cell(dims: string[]): number[] {
    const key = cellKey(dims);
    let cell = this.cells.get(key);
    if (!cell) this.cells.set(key, (cell = { dims, values: [] }));
    return cell.values;
  }

  static add(values: number[], contribution: number[]): void {
    for (let j = 0; j < contribution.length; j += 2) {
      const i = contribution[j]!;
      values[i] = (values[i] ?? 0) + contribution[j + 1]!;
    }
  }

  /** the cells with their counts by name, added into `into` */
  into(into: Cells): Cells {
    for (const [key, { dims, values }] of this.cells) {
      let cell = into.get(key);
      if (!cell) into.set(key, (cell = { dims, counts: new Map() }));
      values.forEach((v, i) => {
        if (v) add(cell!.counts, this.names[i]!, v);
      });
      if (cell.counts.size === 0) into.delete(key);
    }
    return into;
  }
}

/** The cohort table's cells of these changes. */
export function foldChanges(changes: readonly ChangeFact[], x: Pick<Expansion, 'repositoryId' | 'authorKind'>, into: Cells = new Map()): Cells {
  const acc = new Accumulator();
  for (const c of changes) {
    const counts: Counts = new Map([['changes', 1]]);
    if (c.skip !== null) {
      counts.set('skipped', 1);
      counts.set(COUNTER.skip + c.skip, 1);
    }
    for (const ms of c.developerMs) add(counts, COUNTER.developerMs + bucketOf(ms), 1);
    const contribution = acc.contribution(counts);
    for (const [repo, author] of combinations([valuesOf(c.repositoryId, x.repositoryId), valuesOf(c.authorKind, x.authorKind)])) {
      Accumulator.add(acc.cell([repo!, author!, c.day]), contribution);
    }
  }
  return acc.into(into);
}


/** What one run adds to each cell it falls in. */
function runContribution(r: RunFact): Counts {
  const c: Counts = new Map([['runs', 1]]);
  add(c, 'toolCalls', r.toolCalls);
  add(c, 'tokens', r.tokens);
  if (r.costUsd === null) c.set('unpriced', 1);
  else add(c, 'costMicros', Math.round(r.costUsd * 1_000_000));
  add(c, COUNTER.toolCalls + bucketOf(r.toolCalls), 1);
  add(c, COUNTER.tokens + bucketOf(r.tokens), 1);
  if (isTerminalRunStatus(r.status)) {
    c.set('finished', 1);
    if (!r.fix) {
      c.set('noFix', 1);
      c.set(`${COUNTER.noFix}${noFixCategory(r.exitReason, r.reachedGreen, r.mislocalised)}:${r.exitReason ?? 'unknown'}`, 1);
    }
  }
  if (r.ended) for (const [phase, ms] of r.phases) add(c, `${COUNTER.phaseMs}${phase}:${bucketOf(ms)}`, 1);
  const fix = r.fix;
  if (fix) {
    c.set('found', 1);
    if (fix.dropReason !== null) {
      c.set('dropped', 1);
      c.set(COUNTER.drop + fix.dropReason, 1);
    } else {
      c.set('posted', 1);
      if (r.costUsd === 0) c.set('postedZeroCost', 1);
      c.set(COUNTER.fixMs + bucketOf(fix.latencyMs), 1);
      const seen = new Set<string>();
      const appliedFrom = new Set<string>();
      for (const d of fix.decisions) {
        seen.add(d.surface);
        if (isApplyKind(d.kind)) appliedFrom.add(d.surface);
        if (d.kind === 'ACCEPT') add(c, 'accepts', 1);
        else if (d.kind === 'EDIT_ACCEPT') add(c, 'editAccepts', 1);
        else if (d.kind === 'REJECT') {
          add(c, 'rejects', 1);
          add(c, COUNTER.reject + (d.reason ?? 'OTHER'), 1);
        }
      }
      // a reviewer cannot decide unseen: any decision is a preview
      if (seen.size > 0) c.set('previewed', 1);
      if (appliedFrom.size > 0) c.set('applied', 1);
      if (fix.decisions.some((d) => d.kind === 'REJECT')) c.set('rejected', 1);
      for (const s of seen) c.set(COUNTER.surfacePreviewed + s, 1);
      for (const s of appliedFrom) c.set(COUNTER.surfaceApplied + s, 1);
    }
  }
  return c;
}

/** The run table's cells of these runs (and of their changes: "attempted"). */
export function foldRuns(runs: readonly RunFact[], x: Expansion, into: Cells = new Map()): Cells {
  const acc = new Accumulator();
  const attempted = acc.contribution(new Map([['attempted', 1]]));
  // the cells of a run's own dimension values: computed once per combination
  const cellsOf = new Map<string, number[][]>();
  // change → the cells its runs fall in
  const byChange = new Map<string, Set<number[]>>();
  for (const r of runs) {
    const own = [r.repositoryId, r.authorKind, r.day, r.policy, r.model, r.trigger];
    const ownKey = cellKey(own);
    let cells = cellsOf.get(ownKey);
    if (!cells) {
      cells = combinations([
        valuesOf(r.repositoryId, x.repositoryId),
        valuesOf(r.authorKind, x.authorKind),
        [r.day],
        valuesOf(r.policy, x.policy),
        valuesOf(r.model, x.model),
        valuesOf(r.trigger, x.trigger),
      ]).map((dims) => acc.cell(dims));
      cellsOf.set(ownKey, cells);
    }
    const contribution = acc.contribution(runContribution(r));
    let mine = byChange.get(r.changeId);
    if (!mine) byChange.set(r.changeId, (mine = new Set()));
    for (const values of cells) {
      Accumulator.add(values, contribution);
      mine.add(values);
    }
  }
  for (const cells of byChange.values()) for (const values of cells) Accumulator.add(values, attempted);
  // a change once per reason and cell, however many of its fixes were dropped for it
  const droppedChanges = new Map<string, Set<number[]>>();
  for (const r of runs) {
    const reason = r.fix?.dropReason;
    if (reason === null || reason === undefined) continue;
    const key = `${r.changeId}\u0000${reason}`;
    let mine = droppedChanges.get(key);
    if (!mine) droppedChanges.set(key, (mine = new Set()));
    for (const values of cellsOf.get(cellKey([r.repositoryId, r.authorKind, r.day, r.policy, r.model, r.trigger]))!) mine.add(values);
  }
  for (const [key, cells] of droppedChanges) {
    const one = acc.contribution(new Map([[COUNTER.dropChanges + key.slice(key.indexOf('\u0000') + 1), 1]]));
    for (const values of cells) Accumulator.add(values, one);
  }
  return acc.into(into);
}

export function foldPrecision(facts: readonly PrecisionFact[], x: Pick<Expansion, 'repositoryId' | 'policy' | 'model'>, into: Cells = new Map()): Cells {
  const acc = new Accumulator();
  for (const f of facts) {
    const c: Counts = new Map([[f.label.toLowerCase(), 1]]);
    if (f.status === 'APPLIED') {
      c.set('acceptedSettled', 1);
      if (f.label === 'OVERFITTING' || f.label === 'INCORRECT') c.set('acceptedJudgedBad', 1);
    } else if (f.status === 'REJECTED') {
      c.set('rejectedSettled', 1);
      if (f.label === 'CORRECT') {
        c.set('rejectedJudgedCorrect', 1);
        c.set(COUNTER.rejectedCorrect + (f.rejectReason ?? 'UNSPECIFIED'), 1);
      }
    }
    const contribution = acc.contribution(c);
    for (const [repo, policy, model] of combinations([valuesOf(f.repositoryId, x.repositoryId), valuesOf(f.policy, x.policy), valuesOf(f.model, x.model)])) {
      Accumulator.add(acc.cell([repo!, f.day, policy!, model!]), contribution);
    }
  }
  return acc.into(into);
}
