import 'server-only';
import { getDb } from '../db';
import { AppError } from '../errors';
import { writeAudit } from '../audit';
import type { SessionUser } from '../auth/session';
import type { GradeLabelName, GradeTagName } from '../../common/grading';
import { canLeadQueue, loadQueue, queueForGrader, queueForLead } from './queues';
import { writeTx } from '../writes';
import { assertOpen, labelsCompleteTx, loadItem, lockQueueTx, recordRevealsTx, TX } from './item-rules';

// Items whose labels disagree (or were disputed after the reveal): the lead's
// list, a settlement by a person, and a grader's dispute of a final label.

export interface DisputedItem {
  itemId: string;
  position: number;
  fixId: string;
  change: { title: string; externalId: string; repository: string };
  labels: Array<{ grader: string; label: GradeLabelName; tags: GradeTagName[]; rationale: string; updatedAt: string }>;
  /** graders' disputes after a reveal (a settled label reopened, or a locked label): the label they propose and why */
  disputes: Array<{ grader: string; label: GradeLabelName | null; note: string; at: string }>;
}

/**
 * Items with all their labels and no settled label (disagreeing, complete
 * through another queue, or reopened by a dispute), queue order. Reading
 * them is a reveal for the reader: their own labels on these fixes lock.
 */
export async function listDisputed({ queueId, user }: { queueId: string; user: SessionUser }): Promise<DisputedItem[]> {
  const queue = await queueForLead(queueId, user);
  // under the queue's lock, so a revision of the reader's cannot land between
  // reading the labels and recording that they were seen
  const ids = await getDb().$transaction(async (tx) => {
    await lockQueueTx(tx, queueId);
    const rows = await tx.$queryRaw<Array<{ id: string; fixId: string }>>`
      SELECT i.id, i."fixId" FROM "GradingItem" i
      WHERE i."queueId" = ${queueId}
        AND NOT EXISTS (SELECT 1 FROM "Consensus" c WHERE c."fixId" = i."fixId")
        AND (SELECT count(*) FROM "Grade" g WHERE g."fixId" = i."fixId") >= ${queue.gradersPerFix}
      ORDER BY i.position
      LIMIT 500`;
    await recordRevealsTx(tx, { fixIds: rows.map((r) => r.fixId), graderIds: [user.id], via: 'disputed_list' });
    return rows;
  }, TX);
  const items = await getDb().gradingItem.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
    orderBy: { position: 'asc' },
    include: {
      fix: {
        select: {
          id: true,
          change: { select: { title: true, externalId: true, repository: { select: { name: true } } } },
          grades: { include: { grader: { select: { name: true } } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
          gradeEvents: { where: { kind: 'dispute' }, include: { actor: { select: { name: true } } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
        },
      },
    },
  });
  return items.map((i) => ({
    itemId: i.id,
    position: i.position,
    fixId: i.fix.id,
    change: { title: i.fix.change.title, externalId: i.fix.change.externalId, repository: i.fix.change.repository.name },
    labels: i.fix.grades.map((g) => ({
      grader: g.grader.name,
      label: g.label,
      tags: g.tags as GradeTagName[],
      rationale: g.rationale,
      updatedAt: g.updatedAt.toISOString(),
    })),
    disputes: i.fix.gradeEvents.map((e) => ({ grader: e.actor.name, label: e.label, note: e.rationale, at: e.createdAt.toISOString() })),
  }));
}

/** A settlement's or a dispute's arguments: who, on which item, which label, why. */
interface ItemLabelWithNote {
  queueId: string;
  itemId: string;
  user: SessionUser;
  label: GradeLabelName;
  note: string;
}

/** A manager or the queue's lead grader records the settled label of an item, with a note. */
export async function settleItem({ queueId, itemId, user, label, note }: ItemLabelWithNote): Promise<void> {
  const queue = await loadQueue(queueId);
  if (!canLeadQueue(queue, user)) throw new AppError('forbidden', 'Only a manager, an admin or the queue’s lead grader may settle');
  const item = await loadItem(queue, itemId);
  await writeTx(
    async (tx, written) => {
      await lockQueueTx(tx, queueId);
      if (await tx.consensus.findUnique({ where: { fixId: item.fixId }, select: { id: true } })) {
        throw new AppError('conflict', 'This fix’s label is already settled');
      }
      if ((await tx.grade.count({ where: { fixId: item.fixId } })) === 0) {
        throw new AppError('conflict', 'Nobody has labelled this fix yet: there is nothing to settle');
      }
      await tx.consensus.create({ data: { fixId: item.fixId, label, note, automatic: false, settledById: user.id } });
      await tx.gradeEvent.create({ data: { fixId: item.fixId, actorId: user.id, queueId, kind: 'settle', label, rationale: note } });
      const graders = await tx.grade.findMany({ where: { fixId: item.fixId }, select: { graderId: true } });
      await recordRevealsTx(tx, { fixIds: [item.fixId], graderIds: [...graders.map((g) => g.graderId), user.id], via: 'settled' });
      await writeAudit(
        { actorId: user.id, actorKind: 'user', action: 'grading.settle', targetType: 'fix', targetId: item.fixId, data: { queueId, label } },
        tx,
      );
      written.wrote('consensus', { fixId: item.fixId });
    },
    { ...TX },
  );
}

/**
 * A grader's change of mind once their label is final (the fix has all its
 * labels, or they have seen the others), with its note: their label stays as
 * given (the agreement figures keep measuring blind judgement), the proposed
 * label and note go into the history and the disputed list, and a settled fix
 * is reopened for the lead grader to settle again. Refused while their label
 * is still theirs to revise.
 */
export async function disputeItem({ queueId, itemId, user, label, note }: ItemLabelWithNote): Promise<{ reopened: boolean }> {
  const queue = await queueForGrader(queueId, user);
  const item = await loadItem(queue, itemId);
  return writeTx(
    async (tx, written) => {
      const locked = await lockQueueTx(tx, queueId);
      assertOpen(locked.status);
      const [mine, reveal, complete] = await Promise.all([
        tx.grade.findUnique({ where: { fixId_graderId: { fixId: item.fixId, graderId: user.id } }, select: { id: true } }),
        tx.gradeReveal.findUnique({ where: { fixId_graderId: { fixId: item.fixId, graderId: user.id } } }),
        labelsCompleteTx(tx, item.fixId),
      ]);
      if (!mine) throw new AppError('conflict', 'You have not labelled this fix: there is no label of yours to dispute');
      if (!reveal && !complete) {
        throw new AppError('conflict', 'Your label is not locked (the fix is still waiting for labels and you have not seen the others): revise it directly');
      }
      const deleted = await tx.consensus.deleteMany({ where: { fixId: item.fixId } });
      const reopened = deleted.count > 0;
      await tx.gradeEvent.create({ data: { fixId: item.fixId, actorId: user.id, queueId, kind: 'dispute', label, rationale: note } });
      await writeAudit(
        { actorId: user.id, actorKind: 'user', action: 'grading.dispute', targetType: 'fix', targetId: item.fixId, data: { queueId, itemId, label, reopened } },
        tx,
      );
      if (reopened) {
        // not done any more: "next item" must look at it again if it lacks labels
        if (item.position < locked.openFrom) await tx.gradingQueue.update({ where: { id: queueId }, data: { openFrom: item.position } });
        written.wrote('consensus', { fixId: item.fixId });
      }
      return { reopened };
    },
    { ...TX },
  );
}
