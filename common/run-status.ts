import type { RunStatus } from '../lib/generated/prisma/enums';

// The statuses a run never leaves. The database writes them (lib/runs), the
// stream stops on them and the run page stops listening on them. Plain data
// (the type import is erased), so client components may use it.

export const TERMINAL_RUN_STATUSES = ['FIXED', 'NO_FIX', 'FAILED', 'CANCELLED'] as const satisfies readonly RunStatus[];

export function isTerminalRunStatus(status: string): boolean {
  return (TERMINAL_RUN_STATUSES as readonly string[]).includes(status);
}

/** Every run status, in the order a run goes through them. */
export const RUN_STATUSES = ['QUEUED', 'RUNNING', ...TERMINAL_RUN_STATUSES] as const satisfies readonly RunStatus[];

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
] as const;
