import { reconcileStuckApplies } from '../../lib/fixes/apply';
import { recordDeveloperFiles } from '../../lib/insights/developer-files';
import type { RunQueue } from '../../lib/queue';
import { listWaitingRuns, reapRuns } from '../../lib/runs/lease';

// The worker's housekeeping: the jobs every worker runs every few seconds
// beside its runs, in this order. Each is safe to run in any number of
// workers at once (each claims its rows itself). One that fails is logged
// under its name and the others still run. A new job is a new entry here.

export interface HousekeepingContext {
  queue: RunQueue;
  /** QUEUED runs older than this are re-sent to the queue */
  resendAfterMs: number;
}

export interface HousekeepingJob {
  /** the job's name in the logs */
  name: string;
  /** runs the job once; returns the log entry when it did something, else null */
  run(ctx: HousekeepingContext): Promise<Record<string, unknown> | null>;
}

export const HOUSEKEEPING_JOBS: readonly HousekeepingJob[] = [
  {
    // runs whose worker died: re-queued (bounded attempts), failed or cancelled (lib/runs/lease.ts)
    name: 'reaped',
    async run({ queue }) {
      const reaped = await reapRuns();
      for (const runId of reaped.requeued) await queue.enqueue(runId);
      return reaped.requeued.length + reaped.failed.length + reaped.cancelled.length > 0 ? { ...reaped } : null;
    },
  },
  {
    // runs waiting without a job: a job lost between the commit and the send
    name: 'resent',
    async run({ queue, resendAfterMs }) {
      const waiting = await listWaitingRuns({ olderThanMs: resendAfterMs });
      for (const runId of waiting) await queue.enqueue(runId);
      return waiting.length > 0 ? { runs: waiting } : null;
    },
  },
  {
    // an accept that crashed between the git push and the database write:
    // recorded if the branch has the commit, else the fix is handed back (lib/fixes/apply.ts)
    name: 'reconciled_applies',
    async run() {
      const applies = await reconcileStuckApplies();
      return Object.keys(applies).length > 0 ? { applies } : null;
    },
  },
  {
    // what the developer changed after a superseded revision: Insights' "mislocalised" (lib/insights/developer-files.ts)
    name: 'developer_files',
    async run() {
      const developer = await recordDeveloperFiles();
      return developer.recorded > 0 ? { ...developer } : null;
    },
  },
];

/** Runs each job once, in order; a job's failure is logged as `housekeeping_error` with its name and does not stop the rest. */
export async function runHousekeeping(
  ctx: HousekeepingContext,
  log: (entry: Record<string, unknown>) => void,
  jobs: readonly HousekeepingJob[] = HOUSEKEEPING_JOBS,
): Promise<void> {
  for (const job of jobs) {
    try {
      const entry = await job.run(ctx);
      if (entry) log({ event: job.name, ...entry });
    } catch (err) {
      log({ event: 'housekeeping_error', job: job.name, error: (err as Error).message });
    }
  }
}
