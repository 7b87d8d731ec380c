import 'server-only';
import { getDb } from '../db';
import { CodeHostKind, WebhookDeliveryStatus } from '../generated/prisma/enums';
import { getRunQueue, onDeliveryQueued } from '../queue';
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
  /** resolves once no job is waiting and none is in hand (tests, the bench) */
  idle(): Promise<void>;
}

/** Takes delivery jobs off the queue, a few at a time, until stopped. */
export async function startDeliveryWorker({ pollMs = 500, batch = 4, log = () => undefined }: { pollMs?: number; batch?: number; log?: (entry: Record<string, unknown>) => void } = {}): Promise<DeliveryWorker> {
  const queue = await getRunQueue();
  let stopped = false;
  let wake: (() => void) | undefined;
  let busy = false;
  const idleWaiters: Array<() => void> = [];
  const off = onDeliveryQueued(() => wake?.());
  const loop = (async () => {
    while (!stopped) {
      busy = true;
      const jobs = await queue.fetchDeliveries(batch).catch((err: unknown) => {
        log({ event: 'delivery_queue_error', error: (err as Error).message });
        return [];
      });
      for (const job of jobs) {
        try {
          const outcome = await processDelivery(job.deliveryRowId);
          await queue.completeDelivery(job.jobId);
          log({ event: 'delivery_done', deliveryRowId: job.deliveryRowId, status: typeof outcome === 'string' ? outcome : outcome.status });
        } catch (err) {
          log({ event: 'delivery_error', deliveryRowId: job.deliveryRowId, error: describeError(err) });
          await queue.failDelivery(job.jobId, describeError(err)).catch(() => undefined);
          const attempts = (await getDb().webhookDelivery.findUnique({ where: { id: job.deliveryRowId }, select: { attempts: true } }))?.attempts ?? 0;
          if (attempts > MAX_ATTEMPTS) await recordGaveUp(job.deliveryRowId, describeError(err));
        }
      }
      busy = false;
      if (jobs.length > 0) continue;
      idleWaiters.splice(0).forEach((r) => r());
      if (stopped) break;
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
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        if (!busy) wake?.();
      });
    },
  };
}

/** Attempts after which a delivery is recorded FAILED (the queue's own retry limit is the same). */
const MAX_ATTEMPTS = 6;
