import 'server-only';
import { getDb } from '../db';
import { CodeHostKind, WebhookDeliveryStatus } from '../generated/prisma/enums';
import { getRunQueue, HOST_EVENT_QUEUE, HOST_SYNC_QUEUE, onHostJobQueued, type HostJobQueue } from '../queue';
import { syncChange } from './sync';
import { processGitHubDelivery, type ProcessOutcome } from './github-events';
import { processGitLabDelivery } from './gitlab-events';

// The background half of a webhook delivery: a job on the queue names the
// WebhookDelivery row; the row says what to do and records the outcome. A
// delivery already settled is skipped, so a job delivered twice costs a read.
// An error (the host answered 5xx after the client's own retries) fails the
// job and pg-boss retries it later with backoff; the row stays RECEIVED, with
// the attempt counted and the last error kept, until one attempt settles it.

export async function processDelivery(deliveryRowId: string): Promise<ProcessOutcome | 'already_settled'> {
  const db = getDb();
  const row = await db.webhookDelivery.findUnique({ where: { id: deliveryRowId }, include: { host: true } });
  if (!row || row.status !== WebhookDeliveryStatus.RECEIVED) return 'already_settled';
  await db.webhookDelivery.update({ where: { id: row.id }, data: { attempts: { increment: 1 } } });
  const payload = row.payload as Record<string, unknown>;
  const projectId = row.host.kind === CodeHostKind.GITHUB ? (payload.repository as { id: number }).id : ((payload.project as { id?: number } | undefined)?.id ?? payload.project_id);
  const link = await db.codeHostRepository.findUnique({
    where: { hostId_externalId: { hostId: row.hostId, externalId: String(projectId) } },
    include: { repository: { select: { name: true } } },
  });
  let outcome: ProcessOutcome;
  try {
    if (!link) outcome = { status: 'IGNORED', detail: 'the repository was unlinked since the delivery arrived' };
    else if (row.host.kind === CodeHostKind.GITHUB) outcome = await processGitHubDelivery({ host: row.host, link, event: row.event, payload, deliveryId: row.deliveryId });
    else outcome = await processGitLabDelivery({ host: row.host, link, event: row.event, payload, deliveryId: row.deliveryId });
  } catch (err) {
    await db.webhookDelivery.update({ where: { id: row.id }, data: { detail: `attempt failed: ${describeError(err)}` } });
    throw err;
  }
  await db.webhookDelivery.updateMany({
    where: { id: row.id, status: WebhookDeliveryStatus.RECEIVED },
    data: { status: outcome.status, detail: outcome.detail.slice(0, 10_000), processedAt: new Date() },
  });
  return outcome;
}

function describeError(err: unknown): string {
  const status = (err as { status?: unknown }).status;
  return `${typeof status === 'number' ? `HTTP ${status}: ` : ''}${(err as Error).message ?? String(err)}`.slice(0, 2000);
}

/** Marks a delivery FAILED once the queue has given up on it. */
async function recordGaveUp(deliveryRowId: string, error: string): Promise<void> {
  await getDb().webhookDelivery.updateMany({
    where: { id: deliveryRowId, status: WebhookDeliveryStatus.RECEIVED },
    data: { status: WebhookDeliveryStatus.FAILED, detail: error.slice(0, 10_000), processedAt: new Date() },
  });
}

export interface DeliveryWorker {
  stop(): Promise<void>;
}

type Handler = (id: string) => Promise<string>;

/**
 * Takes code-host jobs off the queue until stopped: webhook deliveries
 * (processDelivery) and pull-request syncs (syncChange, lib/hosts/sync.ts).
 */
export async function startDeliveryWorker({ pollMs = 500, batch = 4, log = () => undefined }: { pollMs?: number; batch?: number; log?: (entry: Record<string, unknown>) => void } = {}): Promise<DeliveryWorker> {
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
        if (attempts > MAX_ATTEMPTS) await recordGaveUp(id, describeError(err));
      },
    ],
    [HOST_SYNC_QUEUE, async (id) => (await syncChange(id)).join(', ') || 'nothing to do', async () => undefined],
  ];
  const loop = (async () => {
    while (!stopped) {
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
        const t = setTimeout(done, pollMs);
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

/** Attempts after which a delivery is recorded FAILED (the queue's own retry limit is the same). */
const MAX_ATTEMPTS = 6;
