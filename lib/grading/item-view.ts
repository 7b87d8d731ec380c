import 'server-only';
import { getDb } from '../db';
import type { SessionUser } from '../auth/session';
import { toFailureView, type FailureView } from '../changes/detail';
import { diffStatOf, type FixFile } from '../fixes/views';
import type { DiffStat } from '../../common/diffstat';
import { getFixFiles } from '../fixes/queries';
import { readFixEvidence, type FixEvidenceView } from '../fixes/evidence';
import { sanitizeHtml } from '../html/sanitize';
import { diffBetweenRevisions } from '../diff/git-text';
import type { GradeLabelName, GradeTagName } from '../../common/grading';
import { queueForGrader, type QueueRow } from './queues';
import { VERDICT_KINDS } from '../../common/decisions';
import { labelsCompleteTx, loadItem, recordRevealsTx } from './item-rules';

// The item as a grader sees it on the grading page: blind until the reveal
// (item-rules.ts), then the other labels and the consensus.

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
