import { isTerminalRunStatus } from '../../common/run-status';
import { noFixCategory } from '../../common/exit-reasons';
import { isApplyKind } from '../../common/decisions';
import { bucketOf } from './histogram';
import { ALL, COUNTER, REPAIR, add, type Counts } from './tables';
import type { ChangeFact, PrecisionFact, RunFact } from './facts';

// What every Insights figure counts, in one place: the raw facts of a set of
// changes (or of settled fixes, for precision; facts.ts), folded here into
// cells of counts (tables.ts holds their shape). The rollups (rollup.ts) are these cells per UTC
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
