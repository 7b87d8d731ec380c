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
