import 'server-only';
import { getDb } from '../db';
import { AppError } from '../errors';
import type { SessionUser } from '../auth/session';
import type { QueueRow } from './queues';
import type { Tx } from '../db';

// The rules of a grader's work in a queue, which each of its parts keeps:
// "next item" (next-item.ts: a reservation, so two graders never take the
// last open slot of an item), the item as the grading page shows it
// (item-view.ts) — blind: nobody else's label, rationale or the consensus
// until the item is settled (their own label does not lift it), and the
// reviewers' decisions only where the queue allows — submitting and revising
// a label and skipping (labelling.ts), settling a disputed item and disputing
// a label after the reveal (disputes.ts).
// Every change is kept in GradeEvent and written to the audit log.
//
// Settled: the fix has a Consensus row, written by a manager, an admin or the
// queue's lead grader (settleItem), or automatically by the label that
// completes the fix when every label agrees (submitGrade). A dispute deletes
// it again (disputeItem).
//
// Blind: nothing a grader sees or receives depends on what other graders'
// labels say until the fix is settled (how many labels it has is the queue's
// progress and decides who may take a slot, so that may show). The moment the
// labels could first say something — whether they agree, hence whether the
// last label settled the fix — is when the fix has all the labels it needs
// ("complete"). From then on every label on it is final: a revision would be
// a judgement made knowing the outcome (before this rule, a grader told "not
// settled" could move to the majority and settle the fix as unanimous). So
// an automatic settlement is final the moment it happens, and the grading
// routes answer a grader alike whether or not it happened, except for the
// settlement itself (the item, and their list of labels, show it).
//
// The reveal (GradeReveal): the moment a grader first saw other graders'
// labels on a fix — its settlement, or the disputed list or export as the
// queue's lead. From then on their label is locked too, so the agreement
// figures measure independent judgement, not conformity: a change of mind is
// a dispute with a note (GradeEvent 'dispute', the Grade keeps the label as
// given blind) that returns the fix to the disputed list.
//
// Concurrency: every hand-out and every submission locks the queue's row
// first (SELECT … FOR UPDATE), so counting an item's labels and reservations
// and taking a slot happen as one step; a second tab's submission waits and
// then finds the first one's label, and revises it instead of adding one.

// Graders queue up on the queue's row lock, one short transaction each: wait
// for a connection and for the lock longer than Prisma's defaults (2 s / 5 s)
// so a burst of graders is served in turn instead of failing.
export const TX = { maxWait: 15_000, timeout: 20_000 } as const;

export async function lockQueueTx(tx: Tx, queueId: string): Promise<{ status: string; gradersPerFix: number; openFrom: number }> {
  const rows = await tx.$queryRaw<Array<{ status: string; gradersPerFix: number; openFrom: number }>>`
    SELECT status::text AS status, "gradersPerFix", "openFrom" FROM "GradingQueue" WHERE id = ${queueId} FOR UPDATE`;
  if (!rows[0]) throw new AppError('not_found', 'No such grading queue');
  return { status: rows[0].status, gradersPerFix: Number(rows[0].gradersPerFix), openFrom: Number(rows[0].openFrom) };
}

export function assertOpen(status: string): void {
  if (status !== 'OPEN') throw new AppError('conflict', 'This queue is closed: a manager can reopen it');
}

export async function loadItem(queue: QueueRow, itemId: string) {
  const item = await getDb().gradingItem.findUnique({ where: { id: itemId }, select: { id: true, queueId: true, fixId: true, position: true } });
  if (!item || item.queueId !== queue.id) throw new AppError('not_found', 'No such item in this queue');
  return item;
}

/** Marks these fixes as seen, with their labels, by this user; an earlier reveal is kept (its moment counts). */
export async function recordRevealsTx(
  tx: Pick<Tx, 'gradeReveal'>,
  { fixIds, graderIds, via }: { fixIds: string[]; graderIds: string[]; via: 'settled' | 'disputed_list' | 'export' },
): Promise<void> {
  const data = fixIds.flatMap((fixId) => graderIds.map((graderId) => ({ fixId, graderId, via })));
  if (data.length > 0) await tx.gradeReveal.createMany({ data, skipDuplicates: true });
}

/**
 * The queue's labels are about to be shown to this user whole (its export):
 * every fix of the queue someone else has labelled is revealed to them.
 * Under the queue's lock, like every reveal.
 */
export async function revealQueueLabels({ queueId, user, via }: { queueId: string; user: SessionUser; via: 'export' }): Promise<void> {
  await getDb().$transaction(async (tx) => {
    await lockQueueTx(tx, queueId);
    await tx.$executeRaw`
      INSERT INTO "GradeReveal" ("fixId", "graderId", via)
      SELECT i."fixId", ${user.id}, ${via} FROM "GradingItem" i
      WHERE i."queueId" = ${queueId}
        AND EXISTS (SELECT 1 FROM "Grade" g WHERE g."fixId" = i."fixId" AND g."graderId" <> ${user.id})
      ON CONFLICT DO NOTHING`;
  }, TX);
}

/**
 * Does the fix have all the labels it needs: as many as the least demanding
 * queue that holds it asks for? Labels are per fix, whichever queue they came
 * through, so the first queue in which the fix is complete is where its
 * labels could first be compared; from then on every label on it is final.
 */
export async function labelsCompleteTx(tx: Pick<Tx, '$queryRaw'>, fixId: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<Array<{ complete: boolean | null }>>`
    SELECT (SELECT count(*) FROM "Grade" g WHERE g."fixId" = ${fixId})
        >= (SELECT min(q."gradersPerFix") FROM "GradingItem" i JOIN "GradingQueue" q ON q.id = i."queueId" WHERE i."fixId" = ${fixId}) AS complete`;
  return row?.complete === true;
}
