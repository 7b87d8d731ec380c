import 'server-only';
import { ratio } from '../../common/insights-query';
import { COHORT_TABLE, COUNTER, RUN_TABLE } from './tables';
import { keyedCounts, n, type InsightsReader } from './read';
import { cohortWhere, runCellWhere, type InsightsScope } from './scope';

// FlowAgent's funnel for the cohort (scope.ts): changes with failures →
// skipped by pre-execution filters (by reason) → attempted (a repair run) →
// fix found → dropped by post-execution filters (by reason) → posted →
// previewed (any decision: a reviewer cannot decide unseen) → applied (accept
// or edit-accept). The first three steps count changes, the rest fixes (one
// per run): a change attempted on two revisions can yield two fixes.

export const FUNNEL_STEPS = ['changes', 'skipped', 'attempted', 'found', 'dropped', 'posted', 'previewed', 'applied'] as const;
export type FunnelStepKey = (typeof FUNNEL_STEPS)[number];

/** Which step each step's retention is measured against. */
const BASE: Record<FunnelStepKey, FunnelStepKey | null> = {
  changes: null,
  skipped: 'changes',
  attempted: 'changes',
  found: 'attempted',
  dropped: 'found',
  posted: 'found',
  previewed: 'posted',
  applied: 'previewed',
};

export interface FunnelReason {
  reason: string;
  count: number;
  /** of the step's count */
  share: number | null;
}

export interface FunnelStep {
  key: FunnelStepKey;
  count: number;
  /** the step this one is a share of (skipped and attempted: of changes; dropped and posted: of fixes found) */
  base: FunnelStepKey | null;
  /** count / the base step's count; null when the base is 0 */
  retention: number | null;
  /** count / changes with failures */
  ofChanges: number | null;
  /**
   * skipped and dropped only, largest first; each counts changes (a change
   * with two fixes dropped for one reason once), the changes its drill-down lists
   */
  reasons?: FunnelReason[];
}

export interface Funnel {
  steps: FunnelStep[];
  /** changes neither skipped nor attempted (yet): waiting, or attempted only by runs the filter leaves out */
  notAttempted: number;
}

export async function funnel({ scope, reader }: { scope: InsightsScope; reader: InsightsReader }): Promise<Funnel> {
  const [cohort, runs] = await Promise.all([
    reader.total({ table: COHORT_TABLE, where: cohortWhere(scope), counters: true }),
    reader.total({ table: RUN_TABLE, where: runCellWhere(scope, { repairOnly: true }), counters: true }),
  ]);
  const counts: Record<FunnelStepKey, number> = {
    changes: n(cohort, 'changes'),
    skipped: n(cohort, 'skipped'),
    attempted: n(runs, 'attempted'),
    found: n(runs, 'found'),
    dropped: n(runs, 'dropped'),
    posted: n(runs, 'posted'),
    previewed: n(runs, 'previewed'),
    applied: n(runs, 'applied'),
  };
  const reasons: Partial<Record<FunnelStepKey, Map<string, number>>> = {
    skipped: keyedCounts(cohort, COUNTER.skip),
    // changes, like the skipped ones: what the reason's drill-down lists (drill-down.ts)
    dropped: keyedCounts(runs, COUNTER.dropChanges),
  };
  const changes = counts.changes;
  const steps = FUNNEL_STEPS.map((key): FunnelStep => {
    const count = counts[key];
    const base = BASE[key];
    const step: FunnelStep = {
      key,
      count,
      base,
      retention: base ? ratio(count, counts[base]) : null,
      ofChanges: ratio(count, changes),
    };
    const byReason = reasons[key];
    if (byReason) {
      step.reasons = [...byReason.entries()]
        .map(([reason, c]) => ({ reason, count: c, share: ratio(c, count) }))
        .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
    }
    return step;
  });
  return { steps, notAttempted: changes - counts.skipped - counts.attempted };
}
