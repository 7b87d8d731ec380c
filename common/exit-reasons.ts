// How a run ends, named: the one list of exit reasons (stored in
// Run.exitReason) and what each means for Insights' "why no fix". Plain data,
// so the browser may use it. A new exit reason must say its category here,
// or this file does not compile: no reason falls silently into "other".

export const EXIT_REASONS = [
  'fixed',
  'not_reproduced', // the target tests passed on the head revision (flaky)
  'not_caused_by_change', // every target test fails on the base revision too (when that filter is on; some failing there are left out, agent/phases/red.ts)
  'setup_failed', // install or build failed before any edit (or the sandbox stopped it: the detail names the limit)
  'sandbox_unavailable', // no working sandbox, and the unsafe mode is off
  'no_candidate', // the policy ran out of candidates
  'tool_call_limit',
  'time_limit',
  'token_budget',
  'cost_budget',
  'model_error', // the model endpoint kept failing after retries
  'cancelled',
  'regression_failed',
  'final_rerun_failed',
  'worker_lost', // the workers' lease ran out on every attempt (lib/runs/lease.ts)
  'internal_error', // flowfix itself failed (a bug, its database, saving the trajectory): the detail says where
] as const;
export type NamedExitReason = (typeof EXIT_REASONS)[number];
/**
 * Exit reasons of a run that localised and then searched in vain: it ran out
 * of candidates, its candidates failed the regression or final gate, or its
 * budget or time ran out. Insights calls such a run mislocalised when the
 * developer's next revision changed none of its suspects' files; a run that
 * did not reproduce, or was stopped, never got to be wrong about where.
 */
export const SEARCHED_IN_VAIN_EXIT_REASONS = [
  'no_candidate',
  'regression_failed',
  'final_rerun_failed',
  'tool_call_limit',
  'time_limit',
  'token_budget',
  'cost_budget',
] as const satisfies readonly NamedExitReason[];

/** `dropped:<filter>`: a post-execution filter dropped the fix the run found */
export type ExitReason = NamedExitReason | `dropped:${string}`;

export const NO_FIX_CATEGORIES = [
  'not_reproduced',
  'not_caused_by_change',
  'mislocalised',
  'compile_rejected',
  'green_not_reached',
  'regression_failed',
  'budget_exhausted',
  'model_unavailable',
  'worker_lost',
  'setup_failed',
  'cancelled',
  'internal_error',
  'other',
] as const;
export type NoFixCategory = (typeof NO_FIX_CATEGORIES)[number];

/**
 * Each way a run ends without a fix, as a category. `no_candidate` is split
 * by the run's trajectory (see noFixCategory); `fixed` is not a no-fix.
 */
const CATEGORY_OF: Record<Exclude<NamedExitReason, 'fixed'>, NoFixCategory | 'by_trajectory'> = {
  not_reproduced: 'not_reproduced',
  not_caused_by_change: 'not_caused_by_change',
  setup_failed: 'setup_failed',
  sandbox_unavailable: 'setup_failed',
  no_candidate: 'by_trajectory',
  tool_call_limit: 'budget_exhausted',
  time_limit: 'budget_exhausted',
  token_budget: 'budget_exhausted',
  cost_budget: 'budget_exhausted',
  model_error: 'model_unavailable',
  cancelled: 'cancelled',
  regression_failed: 'regression_failed',
  final_rerun_failed: 'regression_failed',
  worker_lost: 'worker_lost',
  internal_error: 'internal_error',
};

export function isExitReason(value: string): value is ExitReason {
  return (EXIT_REASONS as readonly string[]).includes(value) || /^dropped:.+/.test(value);
}

/**
 * A run's exit reason as a category. A run that searched in vain where the
 * developer, next time, changed none of its suspects' files is mislocalised,
 * whatever its search ran out of (the exit reason is kept beside it). A
 * policy that ran out of candidates ("no_candidate") is otherwise split by
 * its trajectory: when no candidate ever reached the GREEN gate the compile
 * gate rejected them all, else GREEN was never reached. What is not a named
 * reason (a dropped fix, a row older than this list) is "other".
 */
export function noFixCategory(exitReason: string | null, reachedGreen: boolean, mislocalised = false): NoFixCategory {
  if (mislocalised && (SEARCHED_IN_VAIN_EXIT_REASONS as readonly string[]).includes(exitReason ?? '')) return 'mislocalised';
  if (exitReason === null || exitReason === 'fixed' || !Object.hasOwn(CATEGORY_OF, exitReason)) return 'other';
  const category = CATEGORY_OF[exitReason as keyof typeof CATEGORY_OF];
  if (category !== 'by_trajectory') return category;
  return reachedGreen ? 'green_not_reached' : 'compile_rejected';
}
