import 'server-only';
import { ChangeStatus } from '../generated/prisma/enums';
import { cancelWaitingStaleRuns, requestRun } from '../runs/service';
import { writeTx } from '../writes';
import { planRevisionRepair } from './plan';
import { defaultPolicy } from './policy';

/**
 * After a new revision of a change is stored (and committed): ends the runs
 * of older revisions that were still waiting, then runs the pre-execution
 * filters and either marks the change SKIPPED with the filter's name or
 * queues an AUTO run with the repository's policy. Running runs of older
 * revisions were asked to cancel by ingestion; their workers see it on their
 * next heartbeat.
 */
export async function triageNewRevision({
  changeId,
  revisionId,
}: {
  changeId: string;
  revisionId: string;
}): Promise<{ skipped: true; reason: string } | { skipped: false; runId: string; joined: boolean }> {
  await cancelWaitingStaleRuns({ changeId, currentRevisionId: revisionId });
  const { decision, modelSettings, headRev } = await planRevisionRepair({ revisionId });
  if (decision.skip) {
    await writeTx(async (tx, written) => {
      // only the current revision speaks for the change
      await tx.change.updateMany({ where: { id: changeId, headRev }, data: { status: ChangeStatus.SKIPPED, statusReason: decision.reason } });
      written.wrote('change', { changeId });
    });
    return { skipped: true, reason: decision.reason };
  }
  const policy = defaultPolicy(modelSettings);
  const requested = await requestRun({
    changeId,
    revisionId,
    trigger: 'AUTO',
    policy,
    ...(policy !== 'offline' && modelSettings.model ? { model: modelSettings.model } : {}),
  });
  return { skipped: false, ...requested };
}
