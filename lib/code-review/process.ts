import 'server-only';
import { getDb } from '../db';
import { CodeHostKind, WebhookDeliveryStatus } from '../generated/prisma/enums';
import { getRunQueue, HOST_EVENT_QUEUE, HOST_JOB_RETRIES, HOST_SYNC_QUEUE, onHostJobQueued, type HostJobQueue } from '../queue';
import { syncChange } from './sync';
import { processGitHubDelivery } from './github-events';
import type { ProcessOutcome } from '../hosts/schemas';
import { processGitLabDelivery } from './gitlab-events';

// The background half of a webhook delivery: a job on the queue names the
// WebhookDelivery row; the row says what to do and records the outcome. An
// attempt claims the row (RECEIVED → PROCESSING, one conditional write, so
// two jobs for one delivery never both work on it); a delivery already
// settled or claimed is skipped, so a job delivered twice costs a read. An
// error (the host answered 5xx after the client's own retries) hands the row
// back (RECEIVED, the attempt counted and the error kept) and fails the job,
// which pg-boss retries later with backoff, until one attempt settles it.
//
// Two crash windows leave a delivery with no job to finish it: the server
// dies between recording the delivery and queueing it, or a worker dies
// while the row is PROCESSING (pg-boss expires the job, retries it, and the
// retry finds the row claimed). The sweeper (sweepStuckDeliveries), run by
// every delivery worker's loop, queues such deliveries again.

export async function processDelivery(deliveryRowId: string): Promise<ProcessOutcome | 'already_settled' | 'claimed_elsewhere'> {
  const db = getDb();
  const claim = await db.webhookDelivery.updateMany({
    where: { id: deliveryRowId, status: WebhookDeliveryStatus.RECEIVED },
    data: { status: WebhookDeliveryStatus.PROCESSING, attempts: { increment: 1 }, startedAt: new Date() },
  });
  const row = await db.webhookDelivery.findUnique({ where: { id: deliveryRowId }, include: { host: true } });
  if (!row || (claim.count === 0 && row.status !== WebhookDeliveryStatus.PROCESSING)) return 'already_settled';
  // another attempt holds it; if that worker died, the sweeper hands the row back
  if (claim.count === 0) return 'claimed_elsewhere';
  const payload = row.payload as Record<string, unknown>;
  const projectId =
    row.host.kind === CodeHostKind.GITHUB
      ? (payload.repository as { id: number }).id
      : ((payload.project as { id?: number } | undefined)?.id ?? payload.project_id);
  const link = await db.codeHostRepository.findUnique({
    where: { hostId_externalId: { hostId: row.hostId, externalId: String(projectId) } },
    include: { repository: { select: { name: true } } },
  });
  let outcome: ProcessOutcome;
  try {
    if (!link) outcome = { status: 'IGNORED', detail: 'the repository was unlinked since the delivery arrived' };
    else if (row.host.kind === CodeHostKind.GITHUB)
      outcome = await processGitHubDelivery({ host: row.host, link, event: row.event, payload, deliveryId: row.deliveryId });
    else outcome = await processGitLabDelivery({ host: row.host, link, event: row.event, payload, deliveryId: row.deliveryId });
  } catch (err) {
    await db.webhookDelivery.updateMany({
      where: { id: row.id, status: WebhookDeliveryStatus.PROCESSING },
      data: { status: WebhookDeliveryStatus.RECEIVED, detail: `attempt failed: ${describeError(err)}` },
    });
    throw err;
  }
  await db.webhookDelivery.updateMany({
    where: { id: row.id, status: WebhookDeliveryStatus.PROCESSING },
    data: { status: outcome.status, detail: outcome.detail.slice(0, 10_000), processedAt: new Date() },
  });
  return outcome;
}

function describeError(err: unknown): string {
  const status = (err as { status?: unknown }).status;
  return `${typeof status === 'number' ? `HTTP ${status}: ` : ''}${(err as Error).message ?? String(err)}`.slice(0, 2000);
}

const UNSETTLED = [WebhookDeliveryStatus.RECEIVED, WebhookDeliveryStatus.PROCESSING];

/** Marks a delivery FAILED once the queue has given up on it (the sweeper writes its own verdict). */
async function recordGaveUp(deliveryRowId: string, error: string): Promise<void> {
  await getDb().webhookDelivery.updateMany({
    where: { id: deliveryRowId, status: { in: UNSETTLED } },
    data: { status: WebhookDeliveryStatus.FAILED, detail: error.slice(0, 10_000), processedAt: new Date() },
  });
}

/** Attempts after which a delivery is recorded FAILED: the first and the queue's retries. */
const MAX_ATTEMPTS = HOST_JOB_RETRIES + 1;

export const DELIVERY_SWEEP = {
  /** how often each delivery worker sweeps */
  everyMs: 60_000,
  /**
   * A delivery is stuck when it is this old (RECEIVED), or its claim is
   * (PROCESSING), and no live job carries it. Processing takes seconds; a
   * job of a live worker is always live (pg-boss keeps it active), so this
   * only decides how soon a lost one is noticed.
   */
  olderThanMs: 10 * 60_000,
  /** re-queues of one delivery before it is recorded FAILED */
  maxRequeues: 3,
  batch: 100,
} as const;

export interface SweepResult {
  requeued: string[];
  failed: string[];
}

/**
 * Queues again the deliveries that no job will finish (see the top of this
 * file), or records them FAILED, with the last error kept, once they were
 * attempted or re-queued as often as allowed. Safe to run in any number of
 * processes at once: the re-queue is claimed with one conditional write on
 * the row's sweep count, a delivery a live job carries is left alone, and a
 * re-queued one is not looked at again for `olderThanMs` (the processes'
 * clocks are assumed to agree far better than that).
 */
export async function sweepStuckDeliveries({
  now = new Date(),
  olderThanMs = DELIVERY_SWEEP.olderThanMs,
}: { now?: Date; olderThanMs?: number } = {}): Promise<SweepResult> {
  const db = getDb();
  const cutoff = new Date(now.getTime() - olderThanMs);
  const notSweptSince = { OR: [{ sweptAt: null }, { sweptAt: { lte: cutoff } }] };
  const candidates = await db.webhookDelivery.findMany({
    where: {
      OR: [
        { status: WebhookDeliveryStatus.RECEIVED, receivedAt: { lte: cutoff }, ...notSweptSince },
        { status: WebhookDeliveryStatus.PROCESSING, startedAt: { lte: cutoff }, ...notSweptSince },
      ],
    },
    orderBy: { receivedAt: 'asc' },
    take: DELIVERY_SWEEP.batch,
    select: { id: true, status: true, attempts: true, sweeps: true, detail: true },
  });
  const result: SweepResult = { requeued: [], failed: [] };
  if (candidates.length === 0) return result;
  const queue = await getRunQueue();
  const live = await queue.liveHostJobIds(
    HOST_EVENT_QUEUE,
    candidates.map((c) => c.id),
  );
  for (const c of candidates.filter((c) => !live.has(c.id))) {
    if (c.sweeps >= DELIVERY_SWEEP.maxRequeues || c.attempts >= MAX_ATTEMPTS) {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: c.id, status: c.status, sweeps: c.sweeps },
        data: {
          status: WebhookDeliveryStatus.FAILED,
          detail:
            `${c.detail ?? 'no attempt finished'}\ngiven up after ${c.attempts} attempt(s) and ${c.sweeps} re-queue(s) by the sweeper: no job was left to finish it`.slice(
              0,
              10_000,
            ),
          processedAt: now,
        },
      });
      if (count > 0) result.failed.push(c.id);
      continue;
    }
    const { count } = await db.webhookDelivery.updateMany({
      where: { id: c.id, status: c.status, sweeps: c.sweeps },
      data: { status: WebhookDeliveryStatus.RECEIVED, sweeps: { increment: 1 }, sweptAt: now },
    });
    if (count === 0) continue; // another sweeper (or a late attempt) got there first
    await queue.enqueueHostJob(HOST_EVENT_QUEUE, c.id);
    result.requeued.push(c.id);
  }
  return result;
}

export interface DeliveryWorker {
  stop(): Promise<void>;
}

type Handler = (id: string) => Promise<string>;

/**
 * Takes code-host jobs off the queue until stopped: webhook deliveries
 * (processDelivery) and pull-request syncs (syncChange, lib/code-review/sync.ts).
 */
export async function startDeliveryWorker({
  pollMs = 500,
  batch = 4,
  sweepEveryMs = DELIVERY_SWEEP.everyMs,
  sweepOlderThanMs = DELIVERY_SWEEP.olderThanMs,
  log = () => undefined,
}: {
  pollMs?: number;
  batch?: number;
  sweepEveryMs?: number;
  sweepOlderThanMs?: number;
  log?: (entry: Record<string, unknown>) => void;
} = {}): Promise<DeliveryWorker> {
  const queue = await getRunQueue();
  let stopped = false;
  let wake: (() => void) | undefined;
  const off = onHostJobQueued(() => wake?.());
  const handlers: Array<[HostJobQueue, Handler, (id: string, err: unknown) => Promise<void>]> = [
    [
      HOST_EVENT_QUEUE,
      async (id) => {
        const outcome = await processDelivery(id);
        return typeof outcome === 'string' ? outcome : outcome.status;
      },
      async (id, err) => {
        const attempts = (await getDb().webhookDelivery.findUnique({ where: { id }, select: { attempts: true } }))?.attempts ?? 0;
        if (attempts >= MAX_ATTEMPTS) await recordGaveUp(id, describeError(err));
      },
    ],
    [HOST_SYNC_QUEUE, async (id) => (await syncChange(id)).join(', ') || 'nothing to do', async () => undefined],
  ];
  let nextSweep = Date.now() + Math.min(sweepEveryMs, 5_000);
  const loop = (async () => {
    while (!stopped) {
      if (Date.now() >= nextSweep) {
        nextSweep = Date.now() + sweepEveryMs;
        await sweepStuckDeliveries({ olderThanMs: sweepOlderThanMs })
          .then((r) => (r.requeued.length || r.failed.length ? log({ event: 'host_delivery_sweep', ...r }) : undefined))
          .catch((err: unknown) => log({ event: 'host_sweep_error', error: describeError(err) }));
      }
      let worked = 0;
      for (const [name, handler, gaveUp] of handlers) {
        const jobs = await queue.fetchHostJobs(name, batch).catch((err: unknown) => {
          log({ event: 'host_queue_error', error: (err as Error).message });
          return [];
        });
        worked += jobs.length;
        for (const job of jobs) {
          try {
            const result = await handler(job.id);
            await queue.completeHostJob(name, job.jobId);
            log({ event: 'host_job_done', queue: name, id: job.id, result });
          } catch (err) {
            log({ event: 'host_job_error', queue: name, id: job.id, error: describeError(err) });
            await queue.failHostJob(name, job.jobId, describeError(err)).catch(() => undefined);
            await gaveUp(job.id, err).catch(() => undefined);
          }
        }
      }
      if (worked > 0 || stopped) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, Math.max(0, Math.min(pollMs, nextSweep - Date.now())));
        function done() {
          clearTimeout(t);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      off();
      wake?.();
      await loop;
    },
  };
}
