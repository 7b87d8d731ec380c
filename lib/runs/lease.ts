import type { Prisma } from '../generated/prisma/client';
import { ChangeStatus, RunStatus } from '../generated/prisma/enums';
import { isTerminalRunStatus } from '../../common/run-status';
import { getDb } from '../db';
import { insertRunEventsTx, notifySaved } from './events';
import type { RunEventInput } from '../../common/run-events';
import { writeTx } from '../writes';
import type { Tx } from '../db';

// Who works on a run. A worker claims a QUEUED run (or one whose lease
// expired) in one transaction holding the Run row lock, and keeps the lease
// alive with a heartbeat. Ownership = leaseOwner + status RUNNING: the
// heartbeat, event appends and finishRun all check it, so a worker that lost
// its run (taken over after its lease expired, handed back, cancelled while
// it was away) can no longer write anything. All times are the database's
// now(), never a worker's clock.

/** Lease length: a worker that misses heartbeats this long is presumed dead. */
export const DEFAULT_LEASE_MS = 30_000;
/** Heartbeat period; also how fast a cancel reaches the worker (~1 s). */
export const DEFAULT_HEARTBEAT_MS = 1_000;

export interface LockedRun {
  id: string;
  status: RunStatus;
  trigger: 'AUTO' | 'MANUAL' | 'REVALIDATE';
  changeId: string;
  revisionId: string;
  attempt: number;
  maxAttempts: number;
  leaseOwner: string | null;
  cancelRequestedAt: Date | null;
  leaseExpired: boolean;
}

export async function lockRunTx({ tx, runId }: { tx: Tx; runId: string }): Promise<LockedRun | null> {
  const rows = await tx.$queryRaw<LockedRun[]>`
    SELECT id, status::text AS status, trigger::text AS trigger, "changeId", "revisionId", attempt, "maxAttempts",
           "leaseOwner", "cancelRequestedAt",
           ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now()) AS "leaseExpired"
    FROM "Run" WHERE id = ${runId} FOR UPDATE`;
  return rows[0] ?? null;
}

/** Is this run's revision the change's current one? Only then may its outcome set the change's status. */
async function revisionIsCurrentTx({ tx, run }: { tx: Tx; run: Pick<LockedRun, 'changeId' | 'revisionId'> }): Promise<boolean> {
  const rev = await tx.changeRevision.findUnique({ where: { id: run.revisionId }, select: { headRev: true, supersededAt: true } });
  if (!rev || rev.supersededAt) return false;
  const change = await tx.change.findUnique({ where: { id: run.changeId }, select: { headRev: true } });
  return change?.headRev === rev.headRev;
}

/**
 * Moves the change's status along with its run. REVALIDATE runs (a reviewer's
 * edited fix going back through the gates) never move the change: their
 * outcome belongs to the review, not to triage.
 */
export async function setChangeStatusForRunTx({
  tx,
  run,
  status,
  statusReason,
}: {
  tx: Tx;
  run: Pick<LockedRun, 'id' | 'changeId' | 'revisionId' | 'trigger'>;
  status: ChangeStatus;
  statusReason: string | null;
}): Promise<void> {
  if (run.trigger === 'REVALIDATE') return;
  if (!(await revisionIsCurrentTx({ tx, run }))) return;
  // another run of this change still active (e.g. queued after this one): it owns the status
  const other = await tx.run.findFirst({
    where: { changeId: run.changeId, id: { not: run.id }, activeKey: { not: null }, trigger: { not: 'REVALIDATE' } },
    select: { id: true },
  });
  if (other && status !== ChangeStatus.RUNNING && status !== ChangeStatus.QUEUED) return;
  await tx.change.update({ where: { id: run.changeId }, data: { status, statusReason } });
}

export interface CloseRunInput {
  tx: Tx;
  run: LockedRun;
  status: RunStatus;
  exitReason: string;
  exitDetail?: string | null;
  data?: Omit<Prisma.RunUncheckedUpdateInput, 'status' | 'exitReason' | 'exitDetail'>;
  changeStatus: { status: ChangeStatus; reason: string | null };
  finalPayload?: Record<string, unknown>;
}

/**
 * The one way a run ends: terminal status, lease and active key cleared (so
 * a new trigger starts a new run), change status moved, and the stream's
 * 'final' event appended in the same transaction. Returns the final seq.
 */
export async function closeRunTx(input: CloseRunInput): Promise<number> {
  const { tx, run } = input;
  await tx.run.update({
    where: { id: run.id },
    data: {
      ...input.data,
      status: input.status,
      exitReason: input.exitReason,
      exitDetail: input.exitDetail ?? null,
      activeKey: null,
      leaseOwner: null,
      leaseExpiresAt: null,
      finishedAt: new Date(),
    },
  });
  await setChangeStatusForRunTx({ tx, run, status: input.changeStatus.status, statusReason: input.changeStatus.reason });
  return insertRunEventsTx({
    tx,
    runId: run.id,
    events: [
      {
        type: 'final',
        payload: {
          ...(input.finalPayload ?? {}),
          runStatus: input.status,
          exitReason: input.exitReason,
          ...(input.exitDetail ? { detail: input.exitDetail } : {}),
        },
      },
    ],
  });
}

/** Ends a run that was cancelled while no worker was running it. */
export function closeCancelledTx({ tx, run, detail }: { tx: Tx; run: LockedRun; detail: string }): Promise<number> {
  return closeRunTx({
    tx,
    run,
    status: RunStatus.CANCELLED,
    exitReason: 'cancelled',
    exitDetail: detail,
    changeStatus: { status: ChangeStatus.NO_FIX, reason: 'cancelled' },
  });
}

/** Ends a run whose workers kept dying: every attempt is used up. */
export function closeOutOfAttemptsTx({ tx, run }: { tx: Tx; run: LockedRun }): Promise<number> {
  return closeRunTx({
    tx,
    run,
    status: RunStatus.FAILED,
    exitReason: 'worker_lost',
    exitDetail: `the worker stopped responding ${run.attempt} time(s); no attempts left`,
    changeStatus: { status: ChangeStatus.NO_FIX, reason: 'worker_lost' },
  });
}

export type ClaimResult =
  | { claimed: true; runId: string; attempt: number; workerId: string }
  | { claimed: false; runId: string; reason: 'not_found' | 'finished' | 'held' | 'cancelled' | 'worker_lost' };

/**
 * Claims a run for `workerId`: a QUEUED run, or a RUNNING one whose lease
 * expired (its worker died). Each claim is one attempt; a run whose attempts
 * are used up fails with 'worker_lost' instead, and a run cancelled while
 * nobody held it ends CANCELLED here.
 */
export async function claimRun({ runId, workerId, leaseMs = DEFAULT_LEASE_MS }: { runId: string; workerId: string; leaseMs?: number }): Promise<ClaimResult> {
  let notice: { seq: number } | undefined;
  const result = await writeTx(async (tx, written): Promise<ClaimResult> => {
    const run = await lockRunTx({ tx, runId });
    if (!run) return { claimed: false, runId, reason: 'not_found' };
    if (isTerminalRunStatus(run.status)) return { claimed: false, runId, reason: 'finished' };
    if (run.status === RunStatus.RUNNING && !run.leaseExpired) return { claimed: false, runId, reason: 'held' };
    if (run.cancelRequestedAt) {
      const seq = await closeCancelledTx({ tx, run, detail: 'cancelled before a worker started it' });
      notice = { seq };
      written.wrote('run', { changeId: run.changeId });
      return { claimed: false, runId, reason: 'cancelled' };
    }
    if (run.attempt >= run.maxAttempts) {
      const seq = await closeOutOfAttemptsTx({ tx, run });
      notice = { seq };
      written.wrote('run', { changeId: run.changeId });
      return { claimed: false, runId, reason: 'worker_lost' };
    }
    const rows = await tx.$queryRaw<Array<{ attempt: number }>>`
      UPDATE "Run" SET status = 'RUNNING', "leaseOwner" = ${workerId},
        "leaseExpiresAt" = now() + (${leaseMs}::int * interval '1 millisecond'),
        "heartbeatAt" = now(), attempt = attempt + 1, "startedAt" = COALESCE("startedAt", now())
      WHERE id = ${runId} RETURNING attempt`;
    const attempt = Number(rows[0].attempt);
    await setChangeStatusForRunTx({ tx, run, status: ChangeStatus.RUNNING, statusReason: null });
    const seq = await insertRunEventsTx({
      tx,
      runId,
      events: [
        {
          type: 'status',
          payload: { status: 'running', attempt, maxAttempts: run.maxAttempts, ...(run.status === RunStatus.RUNNING ? { takeover: true } : {}) },
        },
      ],
    });
    notice = { seq };
    written.wrote('lease', { changeId: run.changeId });
    return { claimed: true, runId, attempt, workerId };
  });
  if (notice) await notifySaved({ runId, seq: notice.seq });
  return result;
}

export interface HeartbeatResult {
  /** false: the run is no longer ours (taken over, handed back, finished); stop at once */
  owned: boolean;
  cancelRequested: boolean;
}

/** Extends the lease only while `workerId` still owns the run; reports a pending cancel. */
export async function heartbeat({
  runId,
  workerId,
  leaseMs = DEFAULT_LEASE_MS,
}: {
  runId: string;
  workerId: string;
  leaseMs?: number;
}): Promise<HeartbeatResult> {
  const rows = await getDb().$queryRaw<Array<{ cancelled: boolean }>>`
    UPDATE "Run" SET "leaseExpiresAt" = now() + (${leaseMs}::int * interval '1 millisecond'), "heartbeatAt" = now()
    WHERE id = ${runId} AND "leaseOwner" = ${workerId} AND status = 'RUNNING'
    RETURNING ("cancelRequestedAt" IS NOT NULL) AS cancelled`;
  if (rows.length === 0) return { owned: false, cancelRequested: false };
  return { owned: true, cancelRequested: rows[0].cancelled };
}

/**
 * Hands a run back to the queue (worker shutdown): QUEUED, lease cleared, and
 * the attempt not counted, since nothing went wrong with it. The caller
 * re-enqueues it. Returns false when the run was not ours any more.
 */
export async function releaseRun({ runId, workerId, reason }: { runId: string; workerId: string; reason: string }): Promise<boolean> {
  let seq = -1;
  const released = await writeTx(async (tx, written) => {
    const run = await lockRunTx({ tx, runId });
    if (!run || run.status !== RunStatus.RUNNING || run.leaseOwner !== workerId) return false;
    await tx.$executeRaw`
      UPDATE "Run" SET status = 'QUEUED', "leaseOwner" = NULL, "leaseExpiresAt" = NULL, attempt = GREATEST(attempt - 1, 0)
      WHERE id = ${runId}`;
    await setChangeStatusForRunTx({ tx, run, status: ChangeStatus.QUEUED, statusReason: null });
    seq = await insertRunEventsTx({ tx, runId, events: [{ type: 'status', payload: { status: 'requeued', reason } }] });
    written.wrote('lease', { changeId: run.changeId });
    return true;
  });
  if (released) await notifySaved({ runId, seq });
  return released;
}

export interface ReapResult {
  /** runs put back in the queue: the caller enqueues them */
  requeued: string[];
  failed: string[];
  cancelled: string[];
}

/**
 * Runs whose worker stopped heart-beating: re-queued while attempts remain,
 * else FAILED 'worker_lost'; a pending cancel wins. Also ends QUEUED runs
 * whose cancel was requested (ingestion stales them without touching status).
 * SKIP LOCKED: several workers may reap at once without waiting on each other.
 */
export async function reapRuns({ limit = 100 }: { limit?: number } = {}): Promise<ReapResult> {
  const out: ReapResult = { requeued: [], failed: [], cancelled: [] };
  const notices: Array<{ runId: string; seq: number }> = [];
  await writeTx(async (tx, written) => {
    const rows = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM "Run"
      WHERE (status = 'RUNNING' AND "leaseExpiresAt" < now())
         OR (status = 'QUEUED' AND "cancelRequestedAt" IS NOT NULL)
      ORDER BY "createdAt" LIMIT ${limit}::int FOR UPDATE SKIP LOCKED`;
    for (const { id } of rows) {
      const run = await lockRunTx({ tx, runId: id });
      if (!run) continue;
      const events: RunEventInput[] = [];
      if (run.cancelRequestedAt) {
        const detail = run.status === RunStatus.QUEUED ? 'cancelled before a worker started it' : 'cancelled; its worker stopped responding';
        const seq = await closeCancelledTx({ tx, run, detail });
        notices.push({ runId: id, seq });
        out.cancelled.push(id);
        written.wrote('run', { changeId: run.changeId });
      } else if (run.attempt >= run.maxAttempts) {
        const seq = await closeOutOfAttemptsTx({ tx, run });
        notices.push({ runId: id, seq });
        out.failed.push(id);
        written.wrote('run', { changeId: run.changeId });
      } else {
        await tx.$executeRaw`UPDATE "Run" SET status = 'QUEUED', "leaseOwner" = NULL, "leaseExpiresAt" = NULL WHERE id = ${id}`;
        await setChangeStatusForRunTx({ tx, run, status: ChangeStatus.QUEUED, statusReason: null });
        events.push({ type: 'status', payload: { status: 'requeued', reason: 'worker_lost', attempt: run.attempt, maxAttempts: run.maxAttempts } });
        notices.push({ runId: id, seq: await insertRunEventsTx({ tx, runId: id, events }) });
        out.requeued.push(id);
        written.wrote('lease', { changeId: run.changeId });
      }
    }
  });
  for (const n of notices) await notifySaved(n);
  return out;
}

/** QUEUED runs that have waited longer than `olderThanMs`: re-sent to the queue in case their job was lost (a crash between commit and send). */
export async function listWaitingRuns({ olderThanMs, limit = 500 }: { olderThanMs: number; limit?: number }): Promise<string[]> {
  const rows = await getDb().$queryRaw<Array<{ id: string }>>`
    SELECT id FROM "Run" WHERE status = 'QUEUED' AND "cancelRequestedAt" IS NULL
      AND "createdAt" < now() - (${olderThanMs}::int * interval '1 millisecond')
    ORDER BY "createdAt" LIMIT ${limit}::int`;
  return rows.map((r) => r.id);
}
