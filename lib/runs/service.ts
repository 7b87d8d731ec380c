import type { Prisma } from '../generated/prisma/client';
import { ChangeStatus, FixStatus, RunStatus } from '../generated/prisma/enums';
import { isTerminalRunStatus } from '../../common/run-status';
import { writeAudit } from '../audit';
import { getDb } from '../db';
import { AppError, isUniqueViolation } from '../errors';
import { sanitizeHtml } from '../html/sanitize';
import { SUPERSEDED } from '../../common/fix-choice';
import { getRunQueue } from '../queue';
import { ModelSettingsSchema } from '../../common/settings';
import { insertRunEventsTx, LeaseLostError, notifySaved } from './events';
import { closeCancelledTx, closeRunTx, lockRunTx, setChangeStatusForRunTx } from './lease';
import { allowedPolicies, defaultPolicy } from '../triage/policy';
import { writeTx } from '../writes';
import { FinishRunResultSchema, RequestRunInputSchema, type FinishRunResult, type RequestRunInput } from './schemas';
import type { RunPolicy } from '../../common/settings';

// The run lifecycle's data functions (a run never lives inside an HTTP
// request): a route or ingestion records the intent here and the queue
// carries it to a worker (agent/worker), which claims it (lease.ts), streams
// its events (events.ts) and ends it with finishRun.

export { LeaseLostError } from './events';
export { claimRun, heartbeat, releaseRun, reapRuns } from './lease';

// ───── request ─────

export interface RequestRunResult {
  runId: string;
  /** true: an active run of this revision existed and the caller joined it */
  joined: boolean;
}

/**
 * Records the intent to repair a revision and queues it. One active run per
 * revision (Run.activeKey is unique while QUEUED/RUNNING): a second trigger,
 * even a simultaneous one on another machine, gets the active run's id back.
 * REVALIDATE runs (an edited fix) have their own key per fix.
 */
export async function requestRun(input: RequestRunInput): Promise<RequestRunResult> {
  const params = RequestRunInputSchema.parse(input);
  const db = getDb();
  const change = await db.change.findUnique({ where: { id: params.changeId }, select: { id: true, headRev: true } });
  if (!change) throw new AppError('not_found', 'Change not found');
  const revision = params.revisionId
    ? await db.changeRevision.findUnique({ where: { id: params.revisionId } })
    : await db.changeRevision.findUnique({ where: { changeId_headRev: { changeId: change.id, headRev: change.headRev } } });
  if (!revision || revision.changeId !== change.id) throw new AppError('not_found', 'Revision not found');
  if (params.trigger !== 'REVALIDATE' && (revision.supersededAt || revision.headRev !== change.headRev)) {
    throw new AppError('conflict', 'A newer revision of this change exists; repair that one');
  }
  const activeKey = params.trigger === 'REVALIDATE' ? `${revision.id}:revalidate:${params.sourceFixId}` : revision.id;

  // A unique violation means another trigger won the race; its run may also
  // finish between our insert and our read, hence the few rounds.
  for (let round = 0; round < 4; round++) {
    const existing = await db.run.findUnique({ where: { activeKey }, select: { id: true } });
    if (existing) return { runId: existing.id, joined: true };
    let created: { id: string; seq: number } | undefined;
    try {
      created = await writeTx(async (tx, written) => {
        const run = await tx.run.create({
          data: {
            changeId: change.id,
            revisionId: revision.id,
            trigger: params.trigger,
            policy: params.policy,
            model: params.model ?? null,
            activeKey,
            requestedById: params.requestedById ?? null,
            sourceFixId: params.sourceFixId ?? null,
            inputDiff: params.inputDiff ?? null,
          },
          select: { id: true, changeId: true, revisionId: true, trigger: true },
        });
        await setChangeStatusForRunTx({ tx, run, status: ChangeStatus.QUEUED, statusReason: null });
        const seq = await insertRunEventsTx({
          tx,
          runId: run.id,
          events: [{ type: 'status', payload: { status: 'queued', trigger: params.trigger, policy: params.policy } }],
        });
        if (params.requestedById) {
          await writeAudit(
            {
              actorId: params.requestedById,
              actorKind: 'user',
              action: 'run.request',
              targetType: 'run',
              targetId: run.id,
              data: { changeId: change.id, policy: params.policy, trigger: params.trigger },
            },
            tx,
          );
        }
        // a queued run is an attempt (and a run to pay for)
        written.wrote('run', { changeId: change.id });
        return { id: run.id, seq };
      });
    } catch (err) {
      if (isUniqueViolation(err)) continue;
      throw err;
    }
    await notifySaved({ runId: created.id, seq: created.seq });
    await enqueueRun({ runId: created.id });
    return { runId: created.id, joined: false };
  }
  throw new AppError('conflict', 'Could not start or join a run; try again');
}

/**
 * Sends a run to the queue. A failure here leaves the run QUEUED in the
 * database, where the workers' sweep (listWaitingRuns) finds it, so it is
 * not the caller's error.
 */
export async function enqueueRun({ runId }: { runId: string }): Promise<boolean> {
  try {
    await (await getRunQueue()).enqueue(runId);
    return true;
  } catch (err) {
    console.error(`flowfix: could not enqueue run ${runId}; the worker sweep will pick it up`, err);
    return false;
  }
}

// ───── cancel ─────

export interface CancelRunResult {
  runId: string;
  status: RunStatus;
  /** the run had already ended: nothing to cancel */
  alreadyFinished: boolean;
}

/**
 * Asks a run to stop. A QUEUED run ends CANCELLED at once; a RUNNING run gets
 * cancelRequestedAt, which its worker sees on its next heartbeat (~1 s) and
 * turns into an abort: the command in flight is killed with its process group.
 */
export async function cancelRun({ runId, userId }: { runId: string; userId?: string | null }): Promise<CancelRunResult> {
  let notice: number | undefined;
  const result = await writeTx(async (tx, written): Promise<CancelRunResult> => {
    const run = await lockRunTx({ tx, runId });
    if (!run) throw new AppError('not_found', 'Run not found');
    if (isTerminalRunStatus(run.status)) return { runId, status: run.status, alreadyFinished: true };
    const now = new Date();
    await tx.run.update({
      where: { id: runId },
      data: { cancelRequestedAt: run.cancelRequestedAt ?? now, cancelRequestedById: userId ?? null },
    });
    if (userId) {
      await writeAudit({ actorId: userId, actorKind: 'user', action: 'run.cancel', targetType: 'run', targetId: runId, data: { status: run.status } }, tx);
    }
    if (run.status === RunStatus.QUEUED) {
      notice = await closeCancelledTx({ tx, run, detail: 'cancelled before a worker started it' });
      written.wrote('run', { changeId: run.changeId });
      return { runId, status: RunStatus.CANCELLED, alreadyFinished: false };
    }
    notice = await insertRunEventsTx({ tx, runId, events: [{ type: 'status', payload: { status: 'cancel_requested' } }] });
    return { runId, status: run.status, alreadyFinished: false };
  });
  if (notice !== undefined) await notifySaved({ runId, seq: notice });
  return result;
}

// ───── finish ─────

const RUN_STATUS_OF: Record<FinishRunResult['status'], RunStatus> = {
  fixed: RunStatus.FIXED,
  no_fix: RunStatus.NO_FIX,
  failed: RunStatus.FAILED,
  cancelled: RunStatus.CANCELLED,
};

export interface FinishRunOutcome {
  status: RunStatus;
  fixId: string | null;
  fixStatus: FixStatus | null;
}

/**
 * Ends a run with its worker's result, in one transaction and only while the
 * worker still owns it: terminal status and counters, the fix (at most one:
 * Fix.runId is unique and the run leaves RUNNING here, under its row lock),
 * the change's status and the final event.
 */
export async function finishRun({ runId, workerId, result }: { runId: string; workerId: string; result: FinishRunResult }): Promise<FinishRunOutcome> {
  const r = FinishRunResultSchema.parse(result);
  let seq = -1;
  const outcome = await writeTx(
    async (tx, written): Promise<FinishRunOutcome> => {
      const run = await lockRunTx({ tx, runId });
      if (!run || run.status !== RunStatus.RUNNING || run.leaseOwner !== workerId) throw new LeaseLostError(runId);
      const status = RUN_STATUS_OF[r.status];
      const revision = await tx.changeRevision.findUniqueOrThrow({ where: { id: run.revisionId }, select: { supersededAt: true } });

      let fix: { id: string; status: FixStatus } | null = null;
      const yieldsFix = r.diff.trim() !== '' && (r.status === 'fixed' || r.dropped !== undefined);
      if (yieldsFix) {
        const fixStatus = r.dropped ? FixStatus.DROPPED : revision.supersededAt ? FixStatus.STALE : FixStatus.READY;
        fix = await tx.fix.create({
          data: {
            runId,
            changeId: run.changeId,
            revisionId: run.revisionId,
            diff: r.diff,
            files: r.files,
            summaryHtml: sanitizeHtml(r.summaryHtml),
            evidence: r.evidence as Prisma.InputJsonValue,
            status: fixStatus,
            dropReason: r.dropped?.reason ?? null,
          },
          select: { id: true, status: true },
        });
      }
      // One fix waits for a decision per change: a new READY fix replaces the
      // older ones (a second "Run agent" while a fix was ready), and a run
      // that found nothing leaves a ready fix where it was. A REVALIDATE run
      // checks a reviewer's edit of the waiting fix: it replaces nothing, the
      // edit-accept that asked for it settles both.
      if (fix?.status === FixStatus.READY && run.trigger !== 'REVALIDATE') {
        await tx.fix.updateMany({
          where: { changeId: run.changeId, status: FixStatus.READY, id: { not: fix.id } },
          data: { status: FixStatus.STALE, dropReason: SUPERSEDED },
        });
      }
      const readyRemains = fix?.status !== FixStatus.READY && (await tx.fix.count({ where: { changeId: run.changeId, status: FixStatus.READY } })) > 0;

      const changeStatus =
        fix?.status === FixStatus.READY || readyRemains
          ? { status: ChangeStatus.FIX_READY, reason: null }
          : r.dropped
            ? { status: ChangeStatus.NO_FIX, reason: `dropped:${r.dropped.reason}` }
            : { status: ChangeStatus.NO_FIX, reason: r.exitReason };
      seq = await closeRunTx({
        tx,
        run,
        status,
        exitReason: r.exitReason,
        exitDetail: r.exitDetail ?? r.dropped?.detail ?? null,
        data: {
          phaseTimings: r.phaseTimings as Prisma.InputJsonValue,
          toolCalls: r.usage.toolCalls,
          promptTokens: r.usage.promptTokens,
          completionTokens: r.usage.completionTokens,
          costUsd: r.usage.costUsd,
        },
        changeStatus,
        finalPayload: { ...(r.finalPayload ?? {}), status: r.status, fixId: fix?.id ?? null, fixStatus: fix?.status ?? null },
      });
      written.wrote('run', { changeId: run.changeId });
      if (fix) written.wrote('fix', { changeId: run.changeId, fixId: fix.id });
      return { status, fixId: fix?.id ?? null, fixStatus: fix?.status ?? null };
    },
    { timeout: 30_000 },
  );
  await notifySaved({ runId, seq });
  return outcome;
}

// ───── what a worker needs ─────

/** The run row a worker builds its repair input from (with planRevisionRepair for settings and targets). */
export async function getRunWorkContext({ runId }: { runId: string }) {
  const run = await getDb().run.findUnique({
    where: { id: runId },
    include: { change: { select: { title: true, description: true, author: true, repositoryId: true, externalId: true } } },
  });
  if (!run) throw new AppError('not_found', `Run ${runId} not found`);
  return run;
}
export type RunWorkContext = Awaited<ReturnType<typeof getRunWorkContext>>;

/** Has the change moved on since this run's revision (FlowAgent's stale fixes)? */
export async function checkRunStale({ runId }: { runId: string }): Promise<{ stale: boolean; detail?: string }> {
  const run = await getDb().run.findUnique({
    where: { id: runId },
    select: { revision: { select: { headRev: true, supersededAt: true } }, change: { select: { headRev: true } } },
  });
  if (!run) return { stale: true, detail: 'the run no longer exists' };
  if (run.revision.supersededAt || run.change.headRev !== run.revision.headRev) {
    return { stale: true, detail: `the change moved on to ${run.change.headRev.slice(0, 12)}` };
  }
  return { stale: false };
}

// ───── after ingestion (for triageNewRevision, lib/triage/new-revision.ts) ─────

/** QUEUED runs of older revisions whose cancel ingestion requested: end them now rather than when a worker reaches them. */
export async function cancelWaitingStaleRuns({ changeId, currentRevisionId }: { changeId: string; currentRevisionId: string }): Promise<string[]> {
  const db = getDb();
  const waiting = await db.run.findMany({
    where: { changeId, revisionId: { not: currentRevisionId }, status: RunStatus.QUEUED, cancelRequestedAt: { not: null } },
    select: { id: true },
  });
  const cancelled: string[] = [];
  for (const { id } of waiting) {
    let seq: number | undefined;
    await writeTx(async (tx, written) => {
      const run = await lockRunTx({ tx, runId: id });
      if (!run || run.status !== RunStatus.QUEUED) return;
      seq = await closeCancelledTx({ tx, run, detail: 'a newer revision of the change arrived' });
      written.wrote('run', { changeId: run.changeId });
    });
    if (seq !== undefined) {
      await notifySaved({ runId: id, seq });
      cancelled.push(id);
    }
  }
  return cancelled;
}

// ───── by hand ─────

/**
 * "Run agent" on a change's page: the current revision, with the policy the
 * reviewer picked if the repository's model settings allow it (else the
 * repository's own). A run already active on the revision is joined.
 */
export async function startManualRun({
  changeId,
  userId,
  policy,
}: {
  changeId: string;
  userId: string;
  policy?: RunPolicy;
}): Promise<RequestRunResult & { policy: RunPolicy }> {
  const change = await getDb().change.findUnique({ where: { id: changeId }, select: { repository: { select: { modelSettings: true, archivedAt: true } } } });
  if (!change) throw new AppError('not_found', 'Change not found');
  if (change.repository.archivedAt) throw new AppError('conflict', 'The repository is archived');
  const settings = ModelSettingsSchema.parse(change.repository.modelSettings ?? {});
  const allowed = allowedPolicies(settings);
  const chosen = policy ?? defaultPolicy(settings);
  if (!allowed.includes(chosen)) {
    throw new AppError('forbidden', `Policy "${chosen}" is not allowed for this repository (allowed: ${allowed.join(', ')})`, { details: { allowed } });
  }
  const requested = await requestRun({
    changeId,
    trigger: 'MANUAL',
    policy: chosen,
    requestedById: userId,
    ...(chosen !== 'offline' && settings.model ? { model: settings.model } : {}),
  });
  return { ...requested, policy: chosen };
}
