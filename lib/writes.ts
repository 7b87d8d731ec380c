import 'server-only';
import type { Prisma } from './generated/prisma/client';
import { getDb, type Db, type Tx } from './db';
import type { CohortSlice } from './insights/rollup';

// The one way to write what other features read back: changes, runs, fixes,
// decisions and grades. A writer says what it wrote (`log.wrote('fix',
// { changeId })`); it never calls Insights or the code host itself. Two
// features subscribe:
//
// - Insights, in the transaction and after the writer's last statement: the
//   rollups of every written change are recomputed from the raw rows before
//   the commit, so they can never disagree with them (lib/insights/rollup.ts
//   explains the locks and why the refresh must come last);
// - the code-host sync, after the commit: the change's pull request comment
//   and check are queued for an update (lib/code-review/sync.ts). It never throws;
//   a failed queueing is logged and the next write queues it again.
//
// The subscribers' modules are loaded on first use, not imported here, so
// that every feature can write through this module while Insights and the
// code hosts depend on those features and not the other way round. They are
// loaded before the first transaction opens, never inside one: loading a
// module takes time a transaction would spend holding its locks.
// test/unit/core/writes-hook.test.ts checks that every transaction in lib/
// and agent/ that writes those rows goes through writeTx.

// `lease`: a run moved between QUEUED and RUNNING (claimed, handed back,
// re-queued), which the pull request's check shows and Insights does not
// count. `label`: a grader's label; `consensus`: a fix's settled label (set,
// or reopened by a dispute), which is what precision counts.
export const WRITE_KINDS = ['change', 'run', 'lease', 'fix', 'decision', 'label', 'consensus'] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/** What a transaction wrote, as its subscribers see it once the writer is done. */
export interface Written {
  kinds: ReadonlySet<WriteKind>;
  changeIds: ReadonlySet<string>;
  /** fixes named without their change (a label knows its fix); Insights looks their changes up */
  fixIds: ReadonlySet<string>;
  /** cohort slices the written changes were in before this transaction, when it moved them */
  movedFrom: readonly CohortSlice[];
  /** the changes written by one of these kinds */
  changeIdsFor(kinds: readonly WriteKind[]): string[];
}

/** Handed to the writer: it records what it wrote, in any order, as often as it likes. */
export class WriteLog implements Written {
  readonly kinds = new Set<WriteKind>();
  readonly changeIds = new Set<string>();
  readonly fixIds = new Set<string>();
  readonly movedFrom: CohortSlice[] = [];
  private readonly byKind = new Map<WriteKind, Set<string>>();

  wrote(kind: WriteKind, of: { changeId?: string | null; changeIds?: Iterable<string>; fixId?: string | null }): this {
    this.kinds.add(kind);
    const ids = [...(of.changeIds ?? []), ...(of.changeId ? [of.changeId] : [])];
    for (const id of ids) {
      this.changeIds.add(id);
      let set = this.byKind.get(kind);
      if (!set) this.byKind.set(kind, (set = new Set()));
      set.add(id);
    }
    if (of.fixId) this.fixIds.add(of.fixId);
    return this;
  }

  /** The change was in this cohort slice before the transaction (ingestion may move it). */
  moved(slice: CohortSlice): this {
    this.movedFrom.push(slice);
    return this;
  }

  changeIdsFor(kinds: readonly WriteKind[]): string[] {
    const out = new Set<string>();
    for (const kind of kinds) for (const id of this.byKind.get(kind) ?? []) out.add(id);
    return [...out];
  }

  get empty(): boolean {
    return this.kinds.size === 0;
  }
}

export interface WriteSubscriber {
  name: string;
  /** in the writer's transaction, after its last statement */
  inTransaction?: (tx: Tx, written: Written) => Promise<void>;
  /** after the commit; an error is logged, never thrown to the writer */
  afterCommit?: (written: Written) => Promise<void>;
}

/** Kinds the pull request's comment and check reflect: grading is not shown there. */
const CODE_REVIEW_KINDS: readonly WriteKind[] = ['change', 'run', 'lease', 'fix', 'decision'];
/** Kinds Insights counts (lib/insights/facts.ts): a lease moving and an unsettled label are not. */
const INSIGHTS_KINDS: readonly WriteKind[] = ['change', 'run', 'fix', 'decision', 'consensus'];

let modules: Promise<{ insights: typeof import('./insights/rollup'); codeReview: typeof import('./code-review/sync') }> | undefined;
function subscriberModules() {
  modules ??= Promise.all([import('./insights/rollup'), import('./code-review/sync')]).then(([insights, codeReview]) => ({ insights, codeReview }));
  return modules;
}

const SUBSCRIBERS: WriteSubscriber[] = [
  {
    name: 'insights rollups',
    inTransaction: async (tx, written) => {
      if (!INSIGHTS_KINDS.some((k) => written.kinds.has(k))) return;
      const { insights } = await subscriberModules();
      await insights.refreshInsightsRollups({ tx, changeIds: written.changeIdsFor(INSIGHTS_KINDS), fixIds: written.fixIds, slices: [...written.movedFrom] });
    },
  },
  {
    name: 'code-host sync',
    afterCommit: async (written) => {
      const changeIds = written.changeIdsFor(CODE_REVIEW_KINDS);
      if (changeIds.length === 0) return;
      const { codeReview } = await subscriberModules();
      for (const id of changeIds) await codeReview.notifyCodeHost(id);
    },
  },
];

/** Tests listen in; returns the function that stops listening. */
export function subscribeToWrites(subscriber: WriteSubscriber): () => void {
  SUBSCRIBERS.push(subscriber);
  return () => {
    const i = SUBSCRIBERS.indexOf(subscriber);
    if (i >= 0) SUBSCRIBERS.splice(i, 1);
  };
}

export interface WriteTxOptions {
  db?: Db;
  isolationLevel?: Prisma.TransactionIsolationLevel;
  timeout?: number;
  maxWait?: number;
}

/**
 * Runs `write` in one transaction and hands what it recorded to the
 * subscribers: in the transaction once `write` has returned, then after the
 * commit. A `write` that throws rolls everything back and nobody hears of it.
 */
export async function writeTx<T>(write: (tx: Tx, log: WriteLog) => Promise<T>, options: WriteTxOptions = {}): Promise<T> {
  const { db = getDb(), ...given } = options;
  // more room than Prisma's 5 s: the Insights refresh waits on the slice locks of concurrent writers
  const txOptions = { maxWait: 5_000, timeout: 15_000, ...given };
  await subscriberModules();
  const log = new WriteLog();
  const result = await db.$transaction(async (tx) => {
    const value = await write(tx, log);
    if (!log.empty) for (const s of [...SUBSCRIBERS]) await s.inTransaction?.(tx, log);
    return value;
  }, txOptions);
  if (!log.empty) await announce(log);
  return result;
}

async function announce(written: Written): Promise<void> {
  for (const s of [...SUBSCRIBERS]) {
    if (!s.afterCommit) continue;
    try {
      await s.afterCommit(written);
    } catch (err) {
      console.error(`flowfix: the ${s.name} subscriber failed after a commit`, err);
    }
  }
}
