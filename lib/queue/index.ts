import 'server-only';
import { EventEmitter } from 'node:events';
import PgBoss from 'pg-boss';
import { getDbHandle, type DbHandle } from '../db';
import { z } from 'zod';

// The run queue: pg-boss over the same PostgreSQL (server mode) or the same
// PGlite instance (embedded mode, through pg-boss's `db.executeSql` option).
//
// pg-boss only dispatches. The Run row is the truth about who works on what:
// a worker that fetches a job claims the run atomically (lib/runs/lease.ts)
// and completes the job at once, whatever the claim said; from then on the
// run's lease and heartbeat, not the job, track the work. So a job delivered
// twice, or a job for a finished run, costs one failed claim and nothing else,
// and pg-boss's job expiry never has to match a 30-minute repair.

/** The run queue's payload: only the id; the Run row is the truth. */
export const RunJobSchema = z.object({ runId: z.string().min(1).max(200) });
export type RunJob = z.infer<typeof RunJobSchema>;

export const RUN_QUEUE = 'flowfix-runs';
// Code-host webhook deliveries to process (lib/code-review/process.ts). Unlike a
// run, a delivery's processing is short and safe to repeat, so the job itself
// carries it: a failure (the host answered 502 after the client's own
// retries) is retried by pg-boss with exponential backoff.
export const HOST_EVENT_QUEUE = 'flowfix-host-events';
// Bringing a change's pull request up to date (the check run, the comment):
// one waiting job per change ('short' policy + singletonKey), so a burst of
// run transitions costs one sync, which reads the state when it runs.
export const HOST_SYNC_QUEUE = 'flowfix-host-sync';
export type HostJobQueue = typeof HOST_EVENT_QUEUE | typeof HOST_SYNC_QUEUE;
export const HOST_JOB_RETRIES = 6;
const HOST_JOB_RETRY_DELAY_S = 2;

export interface QueuedJob {
  jobId: string;
  runId: string;
}

export interface RunQueue {
  /** at most one waiting job per run ('short' policy + singletonKey): re-sends are harmless */
  enqueue(runId: string): Promise<void>;
  fetch(max: number): Promise<QueuedJob[]>;
  complete(jobIds: string[]): Promise<void>;
  /** a code-host job: a webhook delivery's row id (HOST_EVENT_QUEUE) or a change id to sync (HOST_SYNC_QUEUE) */
  enqueueHostJob(queue: HostJobQueue, id: string): Promise<void>;
  fetchHostJobs(queue: HostJobQueue, max: number): Promise<Array<{ jobId: string; id: string }>>;
  completeHostJob(queue: HostJobQueue, jobId: string): Promise<void>;
  /** retried later with backoff, up to the retry limit */
  failHostJob(queue: HostJobQueue, jobId: string, error: string): Promise<void>;
  /** of these ids, the ones a job waits for, will retry, or is working on now */
  liveHostJobIds(queue: HostJobQueue, ids: string[]): Promise<Set<string>>;
  stop(): Promise<void>;
}

type ExecuteSql = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;

/** pg-boss on PGlite: parameterised statements through query(), scripts (no parameters, maybe several statements) through exec(). */
function pgliteExecutor(handle: DbHandle): ExecuteSql {
  const pglite = handle.pglite;
  if (!pglite) throw new Error('embedded queue needs the PGlite instance');
  return async (text, values) => {
    if (values && values.length > 0) return pglite.query(text, values as unknown[]);
    const results = await pglite.exec(text);
    return results.at(-1) ?? { rows: [] };
  };
}

async function startQueue(handle: DbHandle): Promise<RunQueue> {
  const options: PgBoss.ConstructorOptions = {
    // cron schedules are not used; maintenance (archiving done jobs) is
    schedule: false,
    supervise: true,
    application_name: 'flowfix-queue',
  };
  const boss =
    handle.target.kind === 'postgres'
      ? new PgBoss({ ...options, connectionString: handle.target.location, max: 3 })
      : new PgBoss({ ...options, db: { executeSql: pgliteExecutor(handle) } });
  // pg-boss reports background errors as events; an unhandled 'error' event would crash the process
  boss.on('error', (err) => queueErrors.emit('error', err));
  await boss.start();
  await boss.createQueue(RUN_QUEUE, { name: RUN_QUEUE, policy: 'short' }).catch(async (err: unknown) => {
    // two processes creating the queue at once: the loser finds it there
    if (!(await boss.getQueue(RUN_QUEUE))) throw err;
  });
  for (const [name, policy] of [
    [HOST_EVENT_QUEUE, 'standard'],
    [HOST_SYNC_QUEUE, 'short'],
  ] as const) {
    await boss
      .createQueue(name, { name, policy, retryLimit: HOST_JOB_RETRIES, retryDelay: HOST_JOB_RETRY_DELAY_S, retryBackoff: true })
      .catch(async (err: unknown) => {
        if (!(await boss.getQueue(name))) throw err;
      });
  }

  return {
    async enqueue(runId) {
      const data = RunJobSchema.parse({ runId });
      await boss.send(RUN_QUEUE, data, { singletonKey: runId, retryLimit: 0 });
      wakeups.emit('queued', runId);
    },
    async fetch(max) {
      if (max <= 0) return [];
      const jobs = await boss.fetch<{ runId: string }>(RUN_QUEUE, { batchSize: max });
      const out: QueuedJob[] = [];
      const invalid: string[] = [];
      for (const job of jobs ?? []) {
        const parsed = RunJobSchema.safeParse(job.data);
        if (parsed.success) out.push({ jobId: job.id, runId: parsed.data.runId });
        else invalid.push(job.id);
      }
      if (invalid.length > 0) await boss.fail(RUN_QUEUE, invalid);
      return out;
    },
    async complete(jobIds) {
      if (jobIds.length > 0) await boss.complete(RUN_QUEUE, jobIds);
    },
    async enqueueHostJob(queue, id) {
      await boss.send(queue, { id }, { singletonKey: id });
      wakeups.emit('host-job', queue);
    },
    async fetchHostJobs(queue, max) {
      if (max <= 0) return [];
      const jobs = await boss.fetch<{ id?: unknown }>(queue, { batchSize: max });
      const out: Array<{ jobId: string; id: string }> = [];
      for (const job of jobs ?? []) {
        if (typeof job.data?.id === 'string') out.push({ jobId: job.id, id: job.data.id });
        else await boss.fail(queue, job.id, { message: 'malformed job' });
      }
      return out;
    },
    async completeHostJob(queue, jobId) {
      await boss.complete(queue, jobId);
    },
    async failHostJob(queue, jobId, error) {
      await boss.fail(queue, jobId, { message: error.slice(0, 2000) });
    },
    async liveHostJobIds(queue, ids) {
      if (ids.length === 0) return new Set();
      // pg-boss has no lookup by payload; its job table is its public schema. The ids
      // go in as one JSON array, which both drivers (pg, PGlite) bind the same way.
      const { rows } = await boss.getDb().executeSql(
        `SELECT DISTINCT data->>'id' AS id FROM pgboss.job
          WHERE name = $1 AND state IN ('created', 'retry', 'active') AND data->>'id' IN (SELECT jsonb_array_elements_text($2::jsonb))`,
        [queue, JSON.stringify(ids)],
      );
      return new Set((rows as Array<{ id: string }>).map((r) => r.id));
    },
    async stop() {
      await boss.stop({ graceful: false, wait: true, close: true });
    },
  };
}

// ───── the process-wide queue ─────

interface QueueSlot {
  handle: DbHandle;
  queue: Promise<RunQueue>;
}

// On globalThis: Next bundles routes separately and instrumentation.ts loads
// the worker through yet another bundle; all must share one pg-boss.
const globalForQueue = globalThis as unknown as {
  __flowfixQueue?: QueueSlot;
  __flowfixQueueWakeups?: EventEmitter;
  __flowfixQueueErrors?: EventEmitter;
};

const wakeups = (globalForQueue.__flowfixQueueWakeups ??= new EventEmitter().setMaxListeners(0));
const queueErrors = (globalForQueue.__flowfixQueueErrors ??= new EventEmitter().setMaxListeners(0));
if (queueErrors.listenerCount('error') === 0) {
  // default: keep the process alive; workers attach their own logger
  queueErrors.on('error', () => undefined);
}

/** The queue of the process's database (started on first use). */
export function getRunQueue({ handle = getDbHandle() }: { handle?: DbHandle } = {}): Promise<RunQueue> {
  const slot = globalForQueue.__flowfixQueue;
  if (slot && slot.handle === handle) return slot.queue;
  if (slot) void slot.queue.then((q) => q.stop()).catch(() => undefined);
  const queue = startQueue(handle);
  globalForQueue.__flowfixQueue = { handle, queue };
  queue.catch(() => {
    if (globalForQueue.__flowfixQueue?.queue === queue) globalForQueue.__flowfixQueue = undefined;
  });
  return queue;
}

/** Stops the process-wide queue (shutdown, tests); with `handle`, only a queue on that database. */
export async function stopRunQueue({ handle }: { handle?: DbHandle } = {}): Promise<void> {
  const slot = globalForQueue.__flowfixQueue;
  if (handle && slot?.handle !== handle) return;
  globalForQueue.__flowfixQueue = undefined;
  if (slot) await (await slot.queue).stop();
}

/** In-process wake-up when this process enqueues a run (embedded mode: no polling delay). */
export function onRunQueued(listener: (runId: string) => void): () => void {
  wakeups.on('queued', listener);
  return () => wakeups.off('queued', listener);
}

/** In-process wake-up when this process queues a code-host job. */
export function onHostJobQueued(listener: (queue: HostJobQueue) => void): () => void {
  wakeups.on('host-job', listener);
  return () => wakeups.off('host-job', listener);
}

export function onQueueError(listener: (err: unknown) => void): () => void {
  queueErrors.on('error', listener);
  return () => queueErrors.off('error', listener);
}
