import 'server-only';
import { getDb } from '../db';
import type { SessionUser } from '../auth/session';
import { queueForGrader } from './queues';
import type { Tx } from '../db';
import { assertOpen, lockQueueTx, TX } from './item-rules';

// "Next item": the hand-out of a queue's items, each reserved (a GradingLease)
// for the grader who takes it, under the queue's row lock (item-rules.ts).

export const DEFAULT_LEASE_MS = 20 * 60_000;

/**
 * Moves the queue's openFrom past the items that are done (settled, or with
 * all their labels) and returns it: the first position "next item" needs to
 * look at. Called with the queue's row locked.
 */
async function advanceOpenFromTx(tx: Tx, queueId: string, queue: { gradersPerFix: number; openFrom: number }): Promise<number> {
  const rows = await tx.$queryRaw<Array<{ position: number }>>`
    SELECT i.position FROM "GradingItem" i
    WHERE i."queueId" = ${queueId} AND i.position >= ${queue.openFrom}
      AND NOT EXISTS (SELECT 1 FROM "Consensus" c WHERE c."fixId" = i."fixId")
      AND (SELECT count(*) FROM "Grade" g WHERE g."fixId" = i."fixId") < ${queue.gradersPerFix}
    ORDER BY i.position
    LIMIT 1`;
  const next = rows[0]
    ? Number(rows[0].position)
    : Number((await tx.$queryRaw<Array<{ n: number }>>`SELECT COALESCE(max(position) + 1, 0)::int AS n FROM "GradingItem" WHERE "queueId" = ${queueId}`)[0].n);
  if (next !== queue.openFrom) await tx.gradingQueue.update({ where: { id: queueId }, data: { openFrom: next } });
  return next;
}

/**
 * The item this grader should label next, reserved for them for leaseMs: the
 * one they already hold, else the first (in queue order) they have neither
 * labelled nor skipped, not settled, with a slot that no label and no live
 * reservation of another grader fills. null when there is none.
 */
export async function nextItem({
  queueId,
  user,
  leaseMs = DEFAULT_LEASE_MS,
}: {
  queueId: string;
  user: SessionUser;
  leaseMs?: number;
}): Promise<{ itemId: string; leaseExpiresAt: string } | null> {
  await queueForGrader(queueId, user);
  return getDb().$transaction(async (tx) => {
    const queue = await lockQueueTx(tx, queueId);
    assertOpen(queue.status);
    // the item this grader already holds, if it still needs their label
    const held = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT i.id FROM "GradingLease" l JOIN "GradingItem" i ON i.id = l."itemId"
      WHERE l."graderId" = ${user.id} AND l."expiresAt" > now() AND i."queueId" = ${queueId}
        AND NOT EXISTS (SELECT 1 FROM "Grade" g WHERE g."fixId" = i."fixId" AND g."graderId" = ${user.id})
        AND NOT EXISTS (SELECT 1 FROM "Consensus" c WHERE c."fixId" = i."fixId")
      ORDER BY i.position
      LIMIT 1`;
    // else the first open item in queue order (the scan stops at the first match)
    const openFrom = held.length > 0 ? queue.openFrom : await advanceOpenFromTx(tx, queueId, queue);
    const rows =
      held.length > 0
        ? held
        : await tx.$queryRaw<Array<{ id: string }>>`
      SELECT i.id FROM "GradingItem" i
      WHERE i."queueId" = ${queueId} AND i.position >= ${openFrom}
        AND NOT EXISTS (SELECT 1 FROM "Consensus" c WHERE c."fixId" = i."fixId")
        AND NOT EXISTS (SELECT 1 FROM "Grade" g WHERE g."fixId" = i."fixId" AND g."graderId" = ${user.id})
        AND NOT EXISTS (SELECT 1 FROM "GradingSkip" s WHERE s."itemId" = i.id AND s."graderId" = ${user.id})
        AND (SELECT count(*) FROM "Grade" g WHERE g."fixId" = i."fixId")
          + (SELECT count(*) FROM "GradingLease" l WHERE l."itemId" = i.id AND l."graderId" <> ${user.id} AND l."expiresAt" > now())
          < ${queue.gradersPerFix}
      ORDER BY i.position
      LIMIT 1`;
    const itemId = rows[0]?.id;
    if (!itemId) return null;
    const expiresAt = new Date(Date.now() + leaseMs);
    await tx.gradingLease.upsert({
      where: { itemId_graderId: { itemId, graderId: user.id } },
      create: { itemId, graderId: user.id, expiresAt },
      update: { expiresAt },
    });
    return { itemId, leaseExpiresAt: expiresAt.toISOString() };
  }, TX);
}
