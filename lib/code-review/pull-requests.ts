import 'server-only';
import { writeAudit } from '../audit';
import { getDb } from '../db';
import { ChangeStatus, FixStatus, RunStatus } from '../generated/prisma/enums';
import { triageNewRevision } from '../triage/new-revision';
import { writeTx } from '../writes';

// What a pull (merge) request's own events mean for its change: a new push
// makes every pending fix made on an older head stale and asks its runs to
// stop (ingestion adds the new revision when its CI fails); a merged or
// closed request ends all pending work. Applied and rejected fixes stay as
// they are: they are the record.
//
// Drafts: the request's draft state is recorded on its change whenever the
// host says it (every pull-request / merge-request event, and the request
// read at ingestion), and the draft pre-filter skips a draft's failures.
// Leaving draft repairs the last failure if it is the failure of the current
// head; otherwise nothing is waiting, and the next failed run is triaged as
// usual. Entering draft stops nothing already under way: a run in progress
// finishes and its fix is posted; failures after it are skipped.

const PENDING_CHANGE = [ChangeStatus.NEW, ChangeStatus.QUEUED, ChangeStatus.RUNNING, ChangeStatus.FIX_READY];

async function stalePending({
  repositoryId,
  externalId,
  keepHeadRev,
  why,
}: {
  repositoryId: string;
  externalId: string;
  keepHeadRev: string | null;
  why: string;
}): Promise<number> {
  const result = await writeTx(async (tx, written) => {
    const change = await tx.change.findUnique({
      where: { repositoryId_externalId: { repositoryId, externalId } },
      select: { id: true, headRev: true, status: true },
    });
    if (!change || (keepHeadRev !== null && change.headRev === keepHeadRev)) return 0;
    const older = { changeId: change.id, ...(keepHeadRev !== null ? { revision: { headRev: { not: keepHeadRev } } } : {}) };
    const now = new Date();
    // the worker turns cancelRequestedAt into an abort; a run's status is never flipped from here
    await tx.run.updateMany({
      where: { ...older, status: { in: [RunStatus.QUEUED, RunStatus.RUNNING] }, cancelRequestedAt: null },
      data: { cancelRequestedAt: now },
    });
    const { count } = await tx.fix.updateMany({ where: { ...older, status: FixStatus.READY }, data: { status: FixStatus.STALE } });
    if ((PENDING_CHANGE as ChangeStatus[]).includes(change.status)) {
      await tx.change.update({ where: { id: change.id }, data: { status: ChangeStatus.STALE, statusReason: why } });
    }
    await writeAudit({ actorKind: 'system', action: 'change.stale', targetType: 'change', targetId: change.id, data: { why, fixesStaled: count } }, tx);
    written.wrote('change', { changeId: change.id }).wrote('run', { changeId: change.id }).wrote('fix', { changeId: change.id });
    return count;
  });
  return result;
}

/** New commits on the request: fixes made on any other head go stale. Returns how many. */
export function staleOlderHeads({
  repositoryId,
  externalId,
  headRev,
  why,
}: {
  repositoryId: string;
  externalId: string;
  headRev: string;
  why: string;
}): Promise<number> {
  return stalePending({ repositoryId, externalId, keepHeadRev: headRev, why });
}

/** Merged or closed: every pending fix goes stale, every run is asked to stop. */
export function endPendingWork({ repositoryId, externalId, why }: { repositoryId: string; externalId: string; why: string }): Promise<number> {
  return stalePending({ repositoryId, externalId, keepHeadRev: null, why });
}

export type DraftTransition = 'unknown' | 'unchanged' | 'entered' | 'left';

/** Records the request's draft state on its change; says whether it just entered or left draft. */
export async function recordDraftState({
  repositoryId,
  externalId,
  draft,
}: {
  repositoryId: string;
  externalId: string;
  draft: boolean;
}): Promise<DraftTransition> {
  const db = getDb();
  // one conditional write: of two deliveries saying the same, only one sees the transition
  const { count } = await db.change.updateMany({ where: { repositoryId, externalId, draft: !draft }, data: { draft } });
  if (count > 0) return draft ? 'entered' : 'left';
  const known = await db.change.findUnique({ where: { repositoryId_externalId: { repositoryId, externalId } }, select: { id: true } });
  return known ? 'unchanged' : 'unknown';
}

/**
 * The request was marked ready for review: a failure the draft filter
 * skipped is triaged again (a run queued, unless another filter skips it)
 * when it is the failure of the request's current head. Says what happened.
 */
export async function repairWhenReady({
  repositoryId,
  externalId,
  headRev,
}: {
  repositoryId: string;
  externalId: string;
  headRev: string | null;
}): Promise<string> {
  const db = getDb();
  const change = await db.change.findUnique({
    where: { repositoryId_externalId: { repositoryId, externalId } },
    select: { id: true, headRev: true, status: true, statusReason: true },
  });
  if (!change) return 'no failure recorded for it; flowfix acts on the next failed run';
  if (change.status !== ChangeStatus.SKIPPED || change.statusReason !== 'draft') return `nothing was waiting on it (${change.status.toLowerCase()})`;
  if (headRev !== null && change.headRev !== headRev) {
    return `its last failure was of an older head (${change.headRev.slice(0, 12)}); flowfix acts on the next failed run of ${headRev.slice(0, 12)}`;
  }
  const revision = await db.changeRevision.findUnique({ where: { changeId_headRev: { changeId: change.id, headRev: change.headRev } }, select: { id: true } });
  if (!revision) return 'no failure recorded for its head; flowfix acts on the next failed run';
  // the pull request's check follows through the write hook (lib/writes.ts)
  const triaged = await triageNewRevision({ changeId: change.id, revisionId: revision.id });
  return triaged.skipped
    ? `the failure of ${change.headRev.slice(0, 12)} is still skipped (${triaged.reason})`
    : `the failure of ${change.headRev.slice(0, 12)} queued for repair`;
}
