import { writeAudit } from '../audit';
import { getDb } from '../db';
import { AppError } from '../errors';
import { ChangeStatus, FixStatus, RunStatus, RunTrigger } from '../generated/prisma/enums';
import { RunPolicySchema } from '../../common/settings';
import { requestRun } from '../runs/service';
import { applyEditedFix, type AcceptResult } from './apply';
import { fixUnavailableError, requireDecider } from './decisions';
import { diffForEditedFix } from './queries';
import { EditedDiffSchema, SurfaceSchema, type SurfaceName } from './schemas';
import { writeTx } from '../writes';
import { exitReasonLabel } from '../../common/labels';

// Edit, then accept. A reviewer's edited diff is not trusted any more than the
// agent's: it goes back through the compile gate and the test-driven gate as a
// REVALIDATE run (streamed like any run on /runs/<id>), and only a passing run
// applies it (completeRevalidation, called by the worker when that run ends).
// A failing run leaves the fix READY: the run's events say why.

const REQUEST_ACTION = 'fix.edit_accept.request';
const REFUSED_PREFIX = 'the edited fix did not pass re-validation';
/** the change's status line holds the refusal's reason; the run's page has all of it */
const STATUS_REASON_CHARS = 600;

/** The edit-accept route's answer: the re-validation run to follow (joined when one was already checking this edit). */
export interface EditAcceptResult {
  runId: string;
  joined: boolean;
}

/** Starts the re-validation of an edited fix; returns the run to follow. */
export async function editAccept({
  fixId,
  userId,
  surface = 'DASHBOARD',
  diff,
  files,
}: {
  fixId: string;
  userId: string;
  surface?: SurfaceName;
  /** the edited diff, against the fix's revision */
  diff?: string;
  /** or: the edited modified sides of some files (the server builds the diff) */
  files?: Array<{ path: string; modified: string }>;
}): Promise<EditAcceptResult> {
  await requireDecider(userId);
  const where = SurfaceSchema.parse(surface);
  const fix = await getDb().fix.findUnique({
    where: { id: fixId },
    select: { id: true, status: true, changeId: true, revisionId: true, run: { select: { policy: true } } },
  });
  if (!fix) throw new AppError('not_found', 'Fix not found');
  if (fix.status !== FixStatus.READY) throw await fixUnavailableError({ fixId });
  const edited = files ? (await diffForEditedFix({ id: fixId, files })).diff : EditedDiffSchema.parse(diff ?? '');
  const policy = RunPolicySchema.safeParse(fix.run.policy);
  const { runId, joined } = await requestRun({
    changeId: fix.changeId,
    revisionId: fix.revisionId,
    trigger: 'REVALIDATE',
    sourceFixId: fixId,
    inputDiff: edited,
    requestedById: userId,
    policy: policy.success ? policy.data : 'offline',
  });
  if (!joined) {
    // the reason an earlier edit was refused is not about this one: the fix card follows the new run
    await writeTx(async (tx, written) => {
      const { count } = await tx.change.updateMany({
        where: { id: fix.changeId, status: ChangeStatus.FIX_READY, statusReason: { startsWith: REFUSED_PREFIX } },
        data: { statusReason: null },
      });
      if (count > 0) written.wrote('change', { changeId: fix.changeId });
    });
    await writeAudit({
      actorId: userId,
      actorKind: 'user',
      action: REQUEST_ACTION,
      targetType: 'run',
      targetId: runId,
      data: { fixId, surface: where, changeId: fix.changeId },
    });
  }
  return { runId, joined };
}

export type RevalidationOutcome =
  | { outcome: 'not_revalidation' | 'pending' }
  | { outcome: 'applied'; result: AcceptResult }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'refused'; message: string };

/**
 * What follows a REVALIDATE run once it has ended: a passing run applies the
 * edited diff as an EDIT_ACCEPT (same claim, commit and record as accept); a
 * failing one puts the change back to "fix ready" since its fix still is.
 * Idempotent: a second call finds the fix no longer READY and changes nothing.
 */
export async function completeRevalidation({ runId }: { runId: string }): Promise<RevalidationOutcome> {
  const db = getDb();
  const run = await db.run.findUnique({
    where: { id: runId },
    select: {
      id: true,
      trigger: true,
      status: true,
      exitReason: true,
      exitDetail: true,
      sourceFixId: true,
      inputDiff: true,
      requestedById: true,
      changeId: true,
      fix: { select: { id: true } },
    },
  });
  if (!run || run.trigger !== RunTrigger.REVALIDATE || !run.sourceFixId || run.inputDiff === null) return { outcome: 'not_revalidation' };
  if (run.status === RunStatus.QUEUED || run.status === RunStatus.RUNNING) return { outcome: 'pending' };
  const fixId = run.sourceFixId;
  const request = await db.auditLog.findFirst({ where: { action: REQUEST_ACTION, targetType: 'run', targetId: runId }, select: { data: true } });
  const surface = SurfaceSchema.catch('DASHBOARD').parse((request?.data as { surface?: unknown } | null)?.surface);

  // a REVALIDATE run re-checks an existing fix: a fix row it may have produced is not a new one to review
  if (run.fix) {
    const revalidationFixId = run.fix.id;
    await writeTx(async (tx, written) => {
      await tx.fix.updateMany({
        where: { id: revalidationFixId, status: FixStatus.READY },
        data: { status: FixStatus.DROPPED, dropReason: `revalidation of ${fixId}` },
      });
      written.wrote('fix', { changeId: run.changeId, fixId: revalidationFixId });
    });
  }

  if (run.status !== RunStatus.FIXED) {
    // the run's own detail (which tests failed, with their messages) is what the reviewer needs to read
    const why = run.exitDetail?.trim() || exitReasonLabel(run.exitReason ?? run.status.toLowerCase()).toLowerCase();
    const reason = `${REFUSED_PREFIX}: ${why.length > STATUS_REASON_CHARS ? `${why.slice(0, STATUS_REASON_CHARS - 1)}…` : why}`;
    await writeTx(async (tx, written) => {
      const source = await tx.fix.findUnique({ where: { id: fixId }, select: { status: true } });
      if (source?.status === FixStatus.READY) {
        written.wrote('change', { changeId: run.changeId });
        await tx.change.update({ where: { id: run.changeId }, data: { status: ChangeStatus.FIX_READY, statusReason: reason } });
      }
      await writeAudit(
        {
          actorId: run.requestedById,
          actorKind: 'user',
          action: 'fix.edit_accept.failed',
          targetType: 'fix',
          targetId: fixId,
          data: { runId, exitReason: run.exitReason, exitDetail: run.exitDetail },
        },
        tx,
      );
    });
    return { outcome: 'failed', reason };
  }

  if (!run.requestedById) return { outcome: 'refused', message: 'the re-validation run has no requester to apply the fix as' };
  try {
    const result = await applyEditedFix({ fixId, userId: run.requestedById, surface, editedDiff: run.inputDiff, runId });
    return { outcome: 'applied', result };
  } catch (err) {
    if (!(err instanceof AppError) || (err.code !== 'conflict' && err.code !== 'forbidden')) throw err;
    await writeTx(async (tx, written) => {
      const source = await tx.fix.findUnique({ where: { id: fixId }, select: { status: true } });
      if (source?.status === FixStatus.READY) {
        written.wrote('change', { changeId: run.changeId });
        await tx.change.update({ where: { id: run.changeId }, data: { status: ChangeStatus.FIX_READY, statusReason: err.message } });
      }
      await writeAudit(
        {
          actorId: run.requestedById,
          actorKind: 'user',
          action: 'fix.edit_accept.refused',
          targetType: 'fix',
          targetId: fixId,
          data: { runId, message: err.message },
        },
        tx,
      );
    });
    return { outcome: 'refused', message: err.message };
  }
}
