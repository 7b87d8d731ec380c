import 'server-only';
import { writeAudit } from '../audit';
import { getDb } from '../db';
import { ChangeStatus, FixStatus, RunStatus } from '../generated/prisma/enums';
import { notifyCodeHost } from './sync';

// What a pull (merge) request's own events mean for its change: a new push
// makes every pending fix made on an older head stale and asks its runs to
// stop (ingestion adds the new revision when its CI fails); a merged or
// closed request ends all pending work. Applied and rejected fixes stay as
// they are: they are the record.

const PENDING_CHANGE = [ChangeStatus.NEW, ChangeStatus.QUEUED, ChangeStatus.RUNNING, ChangeStatus.FIX_READY];

async function stalePending({ repositoryId, externalId, keepHeadRev, why }: { repositoryId: string; externalId: string; keepHeadRev: string | null; why: string }): Promise<number> {
  const result = await getDb().$transaction(async (tx) => {
    const change = await tx.change.findUnique({ where: { repositoryId_externalId: { repositoryId, externalId } }, select: { id: true, headRev: true, status: true } });
    if (!change || (keepHeadRev !== null && change.headRev === keepHeadRev)) return 0;
    const older = { changeId: change.id, ...(keepHeadRev !== null ? { revision: { headRev: { not: keepHeadRev } } } : {}) };
    const now = new Date();
    // the worker turns cancelRequestedAt into an abort; a run's status is never flipped from here
    await tx.run.updateMany({ where: { ...older, status: { in: [RunStatus.QUEUED, RunStatus.RUNNING] }, cancelRequestedAt: null }, data: { cancelRequestedAt: now } });
    const { count } = await tx.fix.updateMany({ where: { ...older, status: FixStatus.READY }, data: { status: FixStatus.STALE } });
    if ((PENDING_CHANGE as ChangeStatus[]).includes(change.status)) {
      await tx.change.update({ where: { id: change.id }, data: { status: ChangeStatus.STALE, statusReason: why } });
    }
    await writeAudit({ actorKind: 'system', action: 'change.stale', targetType: 'change', targetId: change.id, data: { why, fixesStaled: count } }, tx);
    return { count, changeId: change.id };
  });
  if (result === 0) return 0;
  await notifyCodeHost(result.changeId);
  return result.count;
}

/** New commits on the request: fixes made on any other head go stale. Returns how many. */
export function staleOlderHeads({ repositoryId, externalId, headRev, why }: { repositoryId: string; externalId: string; headRev: string; why: string }): Promise<number> {
  return stalePending({ repositoryId, externalId, keepHeadRev: headRev, why });
}

/** Merged or closed: every pending fix goes stale, every run is asked to stop. */
export function endPendingWork({ repositoryId, externalId, why }: { repositoryId: string; externalId: string; why: string }): Promise<number> {
  return stalePending({ repositoryId, externalId, keepHeadRev: null, why });
}
