import 'server-only';
import { getDb } from '../db';
import { AppError } from '../errors';
import { writeAudit } from '../audit';
import type { SessionUser } from '../auth/session';
import { toFailureView, type FailureView } from '../changes/detail';
import { diffStatOf, type FixFile } from '../fixes/views';
import type { DiffStat } from '../../common/diffstat';
import { getFixFiles } from '../fixes/queries';
import { readFixEvidence, type FixEvidenceView } from '../fixes/evidence';
import { sanitizeHtml } from '../html/sanitize';
import { diffBetweenRevisions } from '../diff/git-text';
import type { GradeLabelName, GradeTagName } from '../../common/grading';
import { canLeadQueue, loadQueue, queueForGrader, queueForLead, type QueueRow } from './queues';
import type { GradeInput } from './schemas';
import { writeTx } from '../writes';
import { VERDICT_KINDS } from '../../common/decisions';
import type { Tx } from '../writes';

// A grader's work in a queue: "next item" (a reservation, so two graders
// never take the last open slot of an item), the item as the grading page
// shows it — blind: nobody else's label, rationale or the consensus until the
// item is settled (their own label does not lift it), and the reviewers'
// decisions only where the queue allows — submitting and revising a label,
// skipping, settling a disputed item, and disputing a label after the reveal.
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

export const DEFAULT_LEASE_MS = 20 * 60_000;

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

const FINAL_TEXT =
  'Your label on this fix is final: the fix has all the labels it needs, so what its labels say can no longer depend on yours. To change your mind, dispute it with a note (POST …/dispute): the lead grader settles it';

const REVEAL_TEXT: Record<string, string> = {
  settled: 'when it was settled',
  disputed_list: 'in the disputed list',
  export: 'in the queue’s export',
};

function assertOpen(status: string): void {
  if (status !== 'OPEN') throw new AppError('conflict', 'This queue is closed: a manager can reopen it');
}

/** Labels on the fix plus reservations held by others right now. */
async function takenSlotsTx(tx: Tx, { itemId, fixId, graderId }: { itemId: string; fixId: string; graderId: string }): Promise<number> {
  const [row] = await tx.$queryRaw<Array<{ n: number }>>`
    SELECT ((SELECT count(*) FROM "Grade" WHERE "fixId" = ${fixId})
          + (SELECT count(*) FROM "GradingLease" WHERE "itemId" = ${itemId} AND "graderId" <> ${graderId} AND "expiresAt" > now()))::int AS n`;
  return Number(row.n);
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

async function loadItem(queue: QueueRow, itemId: string) {
  const item = await getDb().gradingItem.findUnique({ where: { id: itemId }, select: { id: true, queueId: true, fixId: true, position: true } });
  if (!item || item.queueId !== queue.id) throw new AppError('not_found', 'No such item in this queue');
  return item;
}

// ───── the item as a grader sees it ─────

export interface OtherLabel {
  grader: string;
  label: GradeLabelName;
  tags: GradeTagName[];
  rationale: string;
}

export interface GradingItemView {
  queue: { id: string; name: string; instructions: string; gradersPerFix: number; status: string; showDecisions: boolean };
  item: { id: string; position: number; total: number };
  change: {
    id: string;
    title: string;
    description: string;
    externalId: string;
    author: string;
    repository: string;
    url: string | null;
    /** the change's own diff (base → head of the fixed revision); null when the repository cannot be read */
    diff: string | null;
  };
  failures: FailureView[];
  fix: {
    id: string;
    /** sanitised: written by a model */
    summaryHtml: string;
    diff: string;
    files: string[];
    diffStat: DiffStat;
    evidence: FixEvidenceView;
  };
  /** what the developer did next: their own later revision of the change, as a diff from the fixed revision */
  laterRevision: { number: number; headRev: string; diff: string | null } | null;
  mine: { label: GradeLabelName; tags: GradeTagName[]; rationale: string; updatedAt: string } | null;
  skipped: { reason: string } | null;
  leaseExpiresAt: string | null;
  /**
   * When this grader first saw the other labels (the item settled, or as the
   * lead in the disputed list or export); null while blind. Once set, their
   * label is locked: a change of mind is a dispute.
   */
  revealed: { at: string; via: string } | null;
  /**
   * The fix has all the labels it needs: every label on it is final (a change
   * of mind is a dispute), settled or not. Says how many labels, never what they say.
   */
  labelsComplete: boolean;
  /** only once revealed: the other labels */
  others: OtherLabel[] | null;
  /** only once revealed */
  consensus: { label: GradeLabelName; automatic: boolean; note: string } | null;
  /** this grader's disputes of the fix (after the reveal), oldest first */
  disputes: Array<{ label: GradeLabelName | null; note: string; at: string }>;
  /** only where the queue allows it, or once revealed */
  decision: { kind: string; reason: string | null; reasonText: string | null } | null;
  /** the item before this one, in queue order, that this grader labelled or skipped */
  previous: { itemId: string; position: number } | null;
  /** the grader's progress in the queue: items they labelled and skipped, of all its items */
  progress: { labelled: number; skipped: number; total: number };
}

export async function getItemView({ queueId, itemId, user }: { queueId: string; itemId: string; user: SessionUser }): Promise<GradingItemView> {
  const queue = await queueForGrader(queueId, user);
  const item = await loadItem(queue, itemId);
  return buildItemView({ queue, item, user });
}

/** The fix's files of an item, for the grading page's diff viewer (the fix routes are closed to graders). */
export async function getItemFiles({ queueId, itemId, user }: { queueId: string; itemId: string; user: SessionUser }): Promise<FixFile[]> {
  const queue = await queueForGrader(queueId, user);
  const item = await loadItem(queue, itemId);
  return getFixFiles({ id: item.fixId });
}

async function buildItemView({
  queue,
  item,
  user,
}: {
  queue: QueueRow;
  item: { id: string; fixId: string; position: number };
  user: SessionUser;
}): Promise<GradingItemView> {
  const db = getDb();
  const fix = await db.fix.findUniqueOrThrow({
    where: { id: item.fixId },
    include: {
      revision: { include: { failures: { orderBy: [{ kind: 'asc' }, { testId: 'asc' }] } } },
      change: { include: { repository: { select: { name: true, gitUrl: true } } } },
    },
  });
  const [mine, skip, lease, total, counts, previous, settled] = await Promise.all([
    db.grade.findUnique({ where: { fixId_graderId: { fixId: fix.id, graderId: user.id } } }),
    db.gradingSkip.findUnique({ where: { itemId_graderId: { itemId: item.id, graderId: user.id } } }),
    db.gradingLease.findUnique({ where: { itemId_graderId: { itemId: item.id, graderId: user.id } } }),
    db.gradingItem.count({ where: { queueId: queue.id } }),
    db.$queryRaw<Array<{ labelled: number; skipped: number }>>`
      SELECT (SELECT count(*) FROM "Grade" g JOIN "GradingItem" i ON i."fixId" = g."fixId"
              WHERE g."graderId" = ${user.id} AND i."queueId" = ${queue.id})::int AS labelled,
             (SELECT count(*) FROM "GradingSkip" s JOIN "GradingItem" i ON i.id = s."itemId"
              WHERE s."graderId" = ${user.id} AND i."queueId" = ${queue.id})::int AS skipped`.then((r) => ({
      labelled: Number(r[0]?.labelled ?? 0),
      skipped: Number(r[0]?.skipped ?? 0),
    })),
    db.$queryRaw<Array<{ id: string; position: number }>>`
      SELECT i.id, i.position FROM "GradingItem" i
      WHERE i."queueId" = ${queue.id} AND i.position < ${item.position}
        AND (EXISTS (SELECT 1 FROM "Grade" g WHERE g."fixId" = i."fixId" AND g."graderId" = ${user.id})
          OR EXISTS (SELECT 1 FROM "GradingSkip" s WHERE s."itemId" = i.id AND s."graderId" = ${user.id}))
      ORDER BY i.position DESC
      LIMIT 1`.then((r) => (r[0] ? { itemId: r[0].id, position: Number(r[0].position) } : null)),
    db.consensus.findUnique({ where: { fixId: item.fixId } }),
  ]);
  // A settled item is open to every grader who looks: that look is a reveal
  // too (recorded, so a dispute that reopens the fix cannot make them blind again).
  if (settled) await recordRevealsTx(db, { fixIds: [fix.id], graderIds: [user.id], via: 'settled' });
  const [reveal, labelsComplete] = await Promise.all([
    db.gradeReveal.findUnique({ where: { fixId_graderId: { fixId: fix.id, graderId: user.id } } }),
    labelsCompleteTx(db, fix.id),
  ]);
  const later = await db.changeRevision.findFirst({
    where: { changeId: fix.changeId, number: { gt: fix.revision.number } },
    orderBy: { number: 'desc' },
    select: { number: true, headRev: true },
  });
  const repoPath = fix.change.repository.gitUrl;
  const [changeDiff, laterDiff] = await Promise.all([
    diffBetweenRevisions({ repoPath, from: fix.revision.baseRev, to: fix.revision.headRev }),
    later ? diffBetweenRevisions({ repoPath, from: fix.revision.headRev, to: later.headRev }) : Promise.resolve(null),
  ]);
  // Blind until the reveal (settlement, or the lead's disputed list): nothing
  // of anyone else's judgement, whether or not the grader has labelled.
  const seesOthers = reveal !== null;
  let others: OtherLabel[] | null = null;
  let consensus: GradingItemView['consensus'] = null;
  if (seesOthers) {
    const rows = await db.grade.findMany({
      where: { fixId: fix.id, graderId: { not: user.id } },
      include: { grader: { select: { name: true } } },
      orderBy: { createdAt: 'asc' },
    });
    others = rows.map((g) => ({ grader: g.grader.name, label: g.label, tags: g.tags as GradeTagName[], rationale: g.rationale }));
    consensus = settled ? { label: settled.label, automatic: settled.automatic, note: settled.note } : null;
  }
  const disputes = await db.gradeEvent.findMany({ where: { fixId: fix.id, actorId: user.id, kind: 'dispute' }, orderBy: { createdAt: 'asc' } });
  let decision: GradingItemView['decision'] = null;
  if (queue.showDecisions || seesOthers) {
    const d = await db.decision.findFirst({
      where: { fixId: fix.id, kind: { in: [...VERDICT_KINDS] } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    decision = d ? { kind: d.kind, reason: d.reason, reasonText: d.reasonText } : null;
  }
  return {
    queue: {
      id: queue.id,
      name: queue.name,
      instructions: queue.instructions,
      gradersPerFix: queue.gradersPerFix,
      status: queue.status,
      showDecisions: queue.showDecisions,
    },
    item: { id: item.id, position: item.position, total },
    change: {
      id: fix.change.id,
      title: fix.change.title,
      description: fix.change.description,
      externalId: fix.change.externalId,
      author: fix.change.author,
      repository: fix.change.repository.name,
      url: fix.change.url,
      diff: changeDiff,
    },
    failures: fix.revision.failures.map(toFailureView),
    fix: {
      id: fix.id,
      summaryHtml: sanitizeHtml(fix.summaryHtml),
      diff: fix.diff,
      files: fix.files,
      diffStat: diffStatOf(fix.diff),
      evidence: readFixEvidence(fix.evidence),
    },
    laterRevision: later ? { number: later.number, headRev: later.headRev, diff: laterDiff } : null,
    mine: mine ? { label: mine.label, tags: mine.tags as GradeTagName[], rationale: mine.rationale, updatedAt: mine.updatedAt.toISOString() } : null,
    skipped: skip ? { reason: skip.reason } : null,
    leaseExpiresAt: lease && lease.expiresAt > new Date() ? lease.expiresAt.toISOString() : null,
    revealed: reveal ? { at: reveal.revealedAt.toISOString(), via: reveal.via } : null,
    labelsComplete,
    others,
    consensus,
    disputes: disputes.map((d) => ({ label: d.label, note: d.rationale, at: d.createdAt.toISOString() })),
    decision,
    previous,
    progress: { ...counts, total },
  };
}

// ───── labelling ─────

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

// ───── disputes ─────

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
