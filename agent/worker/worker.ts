import { probeSandbox } from '../../lib/sandbox';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { getRunQueue, onRunQueued, type RunQueue } from '../../lib/queue';
import { claimRun, DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_MS } from '../../lib/runs/lease';
import { startDeliveryWorker, type DeliveryWorker } from '../../lib/code-review/process';
import { executeRun, type RunOutcome } from './execute';
import { runHousekeeping } from './housekeeping';

// The worker loop: fetch as many jobs as there are free slots, claim each run
// atomically, and run the claimed ones in the background. Also, every few
// seconds, the housekeeping jobs (./housekeeping.ts: runs whose worker died
// are reaped, runs waiting without a job re-sent, stuck accepts reconciled,
// the developer's next files recorded). Any number of these
// loops may run, in any number of processes on any number of machines; the
// Run row's lease decides who works on what.

export interface WorkerOptions {
  concurrency: number;
  workerId?: string;
  leaseMs?: number;
  heartbeatMs?: number;
  /** queue polling period when idle (an in-process enqueue wakes the loop at once) */
  pollMs?: number;
  reapEveryMs?: number;
  /** QUEUED runs older than this are re-sent to the queue (a job lost between commit and send) */
  resendAfterMs?: number;
  workDir?: string;
  log?: (entry: Record<string, unknown>) => void;
  /** also process code-host webhook deliveries from the queue (lib/code-review/process.ts); default true */
  deliveries?: boolean;
}

export interface RunWorker {
  readonly workerId: string;
  /** runs held right now */
  active(): number;
  /** stop taking work; let held runs finish for `graceMs`, then abort them and hand them back */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

export function defaultWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export async function startWorker(opts: WorkerOptions): Promise<RunWorker> {
  const workerId = opts.workerId ?? defaultWorkerId();
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const pollMs = opts.pollMs ?? 500;
  const reapEveryMs = opts.reapEveryMs ?? Math.max(1000, Math.floor(leaseMs / 2));
  const resendAfterMs = opts.resendAfterMs ?? 60_000;
  const log = opts.log ?? (() => undefined);
  // probed once per process; a run on a machine without a sandbox ends as sandbox_unavailable (execute.ts)
  const probe = probeSandbox();
  log({ event: 'sandbox', ok: probe.ok, ...(probe.ok ? {} : { reason: probe.reason }) });
  const queue: RunQueue = await getRunQueue();
  const shutdown = new AbortController();
  const held = new Map<string, Promise<RunOutcome>>();
  let stopping = false;
  let nextReap = Date.now() + Math.random() * reapEveryMs;

  let wake: (() => void) | undefined;
  const nudge = () => wake?.();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  const offQueued = onRunQueued(nudge);

  const hold = (runId: string) => {
    const p = executeRun({ runId, workerId, leaseMs, heartbeatMs, shutdown: shutdown.signal, ...(opts.workDir ? { workDir: opts.workDir } : {}), log })
      .catch((err: unknown): RunOutcome => {
        log({ event: 'run_crashed', runId, error: (err as Error).stack ?? String(err) });
        return { kind: 'lost' };
      })
      .then(async (outcome) => {
        held.delete(runId);
        log({ event: 'run_done', runId, ...outcome });
        if (outcome.kind === 'released') await queue.enqueue(runId).catch(() => undefined);
        nudge();
        return outcome;
      });
    held.set(runId, p);
  };

  const loop = async () => {
    while (!stopping) {
      try {
        if (Date.now() >= nextReap) {
          nextReap = Date.now() + reapEveryMs;
          await runHousekeeping({ queue, resendAfterMs }, log);
        }
        const free = opts.concurrency - held.size;
        const jobs = free > 0 ? await queue.fetch(free) : [];
        for (const job of jobs) {
          // claimed or not, the job is done: from here the Run row tracks the work
          const claim = stopping ? undefined : await claimRun({ runId: job.runId, workerId, leaseMs });
          if (claim?.claimed) {
            log({ event: 'claim', runId: job.runId, attempt: claim.attempt, workerId });
            hold(job.runId);
          } else if (claim) {
            log({ event: 'claim_refused', runId: job.runId, reason: claim.reason });
          } else {
            await queue.enqueue(job.runId);
          }
        }
        await queue.complete(jobs.map((j) => j.jobId));
        if (jobs.length === 0 || held.size >= opts.concurrency) await sleep(pollMs);
      } catch (err) {
        log({ event: 'loop_error', error: (err as Error).message });
        await sleep(pollMs * 2);
      }
    }
  };
  const looping = loop();
  const deliveries: DeliveryWorker | undefined = opts.deliveries === false ? undefined : await startDeliveryWorker({ pollMs, log });
  log({ event: 'worker_started', workerId, concurrency: opts.concurrency });

  return {
    workerId,
    active: () => held.size,
    async stop({ graceMs = 20_000 } = {}) {
      stopping = true;
      offQueued();
      nudge();
      await looping;
      await deliveries?.stop();
      if (held.size > 0) {
        log({ event: 'draining', runs: [...held.keys()], graceMs });
        let timer: NodeJS.Timeout | undefined;
        const graceOver = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
        });
        await Promise.race([Promise.allSettled([...held.values()]), graceOver]);
        clearTimeout(timer);
        // still running: abort and hand back, so another worker takes them at once
        shutdown.abort();
        await Promise.allSettled([...held.values()]);
      }
      log({ event: 'worker_stopped', workerId });
    },
  };
}
