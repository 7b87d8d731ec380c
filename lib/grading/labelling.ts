import 'server-only';
import { getDb } from '../db';
import { AppError } from '../errors';
import { writeAudit } from '../audit';
import type { SessionUser } from '../auth/session';
import { queueForGrader } from './queues';
import type { GradeInput } from './schemas';
import { writeTx } from '../writes';
import type { Tx } from '../db';
import { assertOpen, labelsCompleteTx, loadItem, lockQueueTx, recordRevealsTx, TX } from './item-rules';

// A grader's label on an item's fix (given, revised, or refused once final or
// revealed) and a skip, each under the queue's row lock (item-rules.ts).

const FINAL_TEXT =
  'Your label on this fix is final: the fix has all the labels it needs, so what its labels say can no longer depend on yours. To change your mind, dispute it with a note (POST …/dispute): the lead grader settles it';

const REVEAL_TEXT: Record<string, string> = {
  settled: 'when it was settled',
  disputed_list: 'in the disputed list',
  export: 'in the queue’s export',
};

/** Labels on the fix plus reservations held by others right now. */
async function takenSlotsTx(tx: Tx, { itemId, fixId, graderId }: { itemId: string; fixId: string; graderId: string }): Promise<number> {
  const [row] = await tx.$queryRaw<Array<{ n: number }>>`
    SELECT ((SELECT count(*) FROM "Grade" WHERE "fixId" = ${fixId})
          + (SELECT count(*) FROM "GradingLease" WHERE "itemId" = ${itemId} AND "graderId" <> ${graderId} AND "expiresAt" > now()))::int AS n`;
  return Number(row.n);
}

export interface SubmitResult {
  /**
   * label: the first label of this grader on this fix; revise: a change to it;
   * unchanged: the same again. Nothing else: whether this label settled the
   * fix would tell the grader whether the others agreed with them.
   */
  outcome: 'label' | 'revise' | 'unchanged';
}

/**
 * Labels (or relabels) the item's fix for this grader. One label per fix and
 * grader, whichever queue it came through. A revision is refused (409) once
 * the fix has all its labels (every label is final then, settled or not, with
 * the same answer either way), once the grader has seen the other labels
 * (see disputeItem); a label is refused once the fix is settled, when the
 * queue is closed, and when every slot is taken by labels and other graders'
 * reservations. The label that completes the fix, when all agree, settles it
 * automatically, with no settler. The same label again is 'unchanged' and
 * writes nothing, whatever the fix's state.
 */
export async function submitGrade({
  queueId,
  itemId,
  user,
  input,
}: {
  queueId: string;
  itemId: string;
  user: SessionUser;
  input: GradeInput;
}): Promise<SubmitResult> {
  const queue = await queueForGrader(queueId, user);
  const item = await loadItem(queue, itemId);
  return writeTx(
    async (tx, written) => {
      const locked = await lockQueueTx(tx, queueId);
      assertOpen(locked.status);
      // checked under the queue's lock: a reveal (settlement, the disputed list)
      // takes the same lock, so no label slips in after the grader has seen others
      const [reveal, settled, existing, complete] = await Promise.all([
        tx.gradeReveal.findUnique({ where: { fixId_graderId: { fixId: item.fixId, graderId: user.id } } }),
        tx.consensus.findUnique({ where: { fixId: item.fixId }, select: { id: true } }),
        tx.grade.findUnique({ where: { fixId_graderId: { fixId: item.fixId, graderId: user.id } } }),
        labelsCompleteTx(tx, item.fixId),
      ]);
      const same =
        existing !== null && existing.label === input.label && existing.rationale === input.rationale && existing.tags.join(',') === input.tags.join(',');
      // a second tab sending the same label again: nothing to do, in any state
      if (same) return { outcome: 'unchanged' as const };
      // checked before the reveal and the settlement: whether the last label
      // settled the fix must not change the answer
      if (existing && complete) throw new AppError('conflict', FINAL_TEXT);
      if (reveal) {
        throw new AppError(
          'conflict',
          `${settled ? 'This fix’s label is already settled and your' : 'Your'} label on it is locked: you saw the other graders’ labels ${REVEAL_TEXT[reveal.via] ?? ''} (${reveal.revealedAt.toISOString()}). To change your mind, dispute it with a note (POST …/dispute): the lead grader settles it again`,
        );
      }
      if (settled) {
        throw new AppError('conflict', 'This fix’s label is already settled: labels can no longer change');
      }
      let outcome: SubmitResult['outcome'];
      if (existing) {
        outcome = 'revise';
        await tx.grade.update({ where: { id: existing.id }, data: { label: input.label, tags: input.tags, rationale: input.rationale } });
      } else {
        const held = await tx.gradingLease.findUnique({ where: { itemId_graderId: { itemId, graderId: user.id } } });
        const holding = held !== null && held.expiresAt > new Date();
        if (!holding && (await takenSlotsTx(tx, { itemId, fixId: item.fixId, graderId: user.id })) >= locked.gradersPerFix) {
          throw new AppError('conflict', `This fix already has its ${locked.gradersPerFix} labels or reservations: take the next item`);
        }
        await tx.grade.create({ data: { fixId: item.fixId, graderId: user.id, label: input.label, tags: input.tags, rationale: input.rationale } });
        outcome = 'label';
      }
      await tx.gradingLease.deleteMany({ where: { itemId, graderId: user.id } });
      await tx.gradingSkip.deleteMany({ where: { itemId, graderId: user.id } });
      written.wrote('label', { fixId: item.fixId });
      await tx.gradeEvent.create({
        data: { fixId: item.fixId, actorId: user.id, queueId, kind: outcome, label: input.label, tags: input.tags, rationale: input.rationale },
      });
      await writeAudit(
        {
          actorId: user.id,
          actorKind: 'user',
          action: `grading.${outcome}`,
          targetType: 'fix',
          targetId: item.fixId,
          data: { queueId, itemId, label: input.label },
        },
        tx,
      );
      // only a new label can complete the fix (a revision of a complete fix is
      // refused above), so a settlement is decided once, on labels given blind
      const labels = outcome === 'label' ? await tx.grade.findMany({ where: { fixId: item.fixId }, select: { label: true, graderId: true } }) : [];
      if (labels.length >= locked.gradersPerFix && new Set(labels.map((l) => l.label)).size === 1) {
        // the labels settled it, not the grader who happened to give the last one
        await tx.consensus.create({
          data: { fixId: item.fixId, label: input.label, automatic: true, note: `Unanimous: ${labels.length} labels`, settledById: null },
        });
        await tx.gradeEvent.create({ data: { fixId: item.fixId, actorId: user.id, queueId, kind: 'auto_settle', label: input.label } });
        await writeAudit(
          {
            actorKind: 'system',
            action: 'grading.auto_settle',
            targetType: 'fix',
            targetId: item.fixId,
            data: { queueId, itemId, label: input.label, labels: labels.length },
          },
          tx,
        );
        await recordRevealsTx(tx, { fixIds: [item.fixId], graderIds: labels.map((l) => l.graderId), via: 'settled' });
        // precision counts settled fixes
        written.wrote('consensus', { fixId: item.fixId });
      }
      return { outcome };
    },
    { ...TX },
  );
}

/** Sets the item aside for this grader with a reason; their reservation returns to the queue. */
export async function skipItem({ queueId, itemId, user, reason }: { queueId: string; itemId: string; user: SessionUser; reason: string }): Promise<void> {
  const queue = await queueForGrader(queueId, user);
  const item = await loadItem(queue, itemId);
  await getDb().$transaction(async (tx) => {
    await lockQueueTx(tx, queueId);
    if (await tx.grade.findUnique({ where: { fixId_graderId: { fixId: item.fixId, graderId: user.id } }, select: { id: true } })) {
      throw new AppError('conflict', 'You have labelled this fix already: revise your label instead of skipping');
    }
    await tx.gradingSkip.upsert({
      where: { itemId_graderId: { itemId, graderId: user.id } },
      create: { itemId, graderId: user.id, reason },
      update: { reason },
    });
    await tx.gradingLease.deleteMany({ where: { itemId, graderId: user.id } });
    await tx.gradeEvent.create({ data: { fixId: item.fixId, actorId: user.id, queueId, kind: 'skip', rationale: reason } });
    await writeAudit(
      { actorId: user.id, actorKind: 'user', action: 'grading.skip', targetType: 'fix', targetId: item.fixId, data: { queueId, itemId, reason } },
      tx,
    );
  }, TX);
}
