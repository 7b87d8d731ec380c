import { writeAudit } from '../audit';
import { getDb } from '../db';
import { AppError } from '../errors';
import { Prisma } from '../generated/prisma/client';
import { ChangeStatus, DecisionKind, FixStatus } from '../generated/prisma/enums';
import { ApplyFixError, applyFixCommit, findFixCommit, fixCommitMessage, type ApplyFixCommitResult } from '../git/apply-fix';
import { DECIDABLE, fixUnavailableError, requireDecider, type Decider } from './decisions';
import { summaryToText } from './text';
import { hostPushTarget } from '../hosts/push-target';
import { writeTx } from '../writes';
import { ApplyClaimSchema, SurfaceSchema, type ApplyClaim, type SurfaceName } from './schemas';

// Accepting a fix = writing it as a commit on the change's branch.
//
// Exactly-once under concurrency and crashes:
// 1. claim: READY → APPLYING is a conditional UPDATE committed on its own, so
//    of N reviewers accepting at once exactly one proceeds; the rest are told
//    who won (fixUnavailableError). No transaction is held open across git.
// 2. git: the branch moves only by compare-and-swap from the revision the fix
//    was made on (lib/git/apply-fix.ts), and the commit carries the trailer
//    "Flowfix-Fix: <id>".
// 3. record: APPLYING → APPLIED with the Decision, the change's status and the
//    audit entry in one transaction, conditional on still holding the claim.
// A crash between 2 and 3 leaves the fix APPLYING with its claim (who, what);
// reconcileApplyingFix finds the trailer on the branch and finishes step 3, or,
// when the commit never landed and the claim is old, puts the fix back to READY.

/** How long a claim may be held before it is presumed dead (an apply that crashed). */
export const APPLY_CLAIM_TTL_MS = 10 * 60 * 1000;

export interface AcceptResult {
  fixId: string;
  commit: string;
  branch: string;
  decisionId: string | null;
  /** the commit was already on the branch (a crashed earlier attempt): only the record was written now */
  reconciled: boolean;
}

const APPLY_CONTEXT = {
  id: true,
  runId: true,
  diff: true,
  summaryHtml: true,
  status: true,
  changeId: true,
  applyClaim: true,
  applyClaimedById: true,
  applyClaimedAt: true,
  revision: { select: { headRev: true, branch: true } },
  change: { select: { id: true, externalId: true, title: true, repository: { select: { id: true, name: true, gitUrl: true } } } },
} as const;

type ApplyContext = Prisma.FixGetPayload<{ select: typeof APPLY_CONTEXT }>;

async function loadApplyContext(fixId: string): Promise<ApplyContext> {
  const fix = await getDb().fix.findUnique({ where: { id: fixId }, select: APPLY_CONTEXT });
  if (!fix) throw new AppError('not_found', 'Fix not found');
  return fix;
}

function wrap(text: string, width = 72): string {
  return text
    .split('\n')
    .map((line) => {
      const out: string[] = [];
      let cur = '';
      for (const word of line.split(' ')) {
        if (cur && cur.length + 1 + word.length > width) {
          out.push(cur);
          cur = word;
        } else cur = cur ? `${cur} ${word}` : word;
      }
      if (cur) out.push(cur);
      return out.join('\n');
    })
    .join('\n');
}

function commitMessageFor(fix: ApplyContext, claim: ApplyClaim): string {
  const edited = claim.kind === 'EDIT_ACCEPT' ? ' (edited by the reviewer)' : '';
  return fixCommitMessage({
    subject: `Fix failing tests of ${fix.change.externalId}: ${fix.change.title}`,
    body: wrap(`${summaryToText(fix.summaryHtml)}${edited ? `\n\nApplied as edited by the reviewer.` : ''}`),
    fixId: fix.id,
    runId: fix.runId,
  });
}

function shortRev(rev: string | null): string {
  return rev ? rev.slice(0, 12) : '(deleted)';
}

/** READY → APPLYING for this user; throws the 409 naming the winner when someone else holds or closed the fix. */
async function claimFix({ fixId, userId, claim }: { fixId: string; userId: string; claim: ApplyClaim }): Promise<void> {
  const db = getDb();
  for (let round = 0; round < 2; round++) {
    const { count } = await db.fix.updateMany({
      where: { id: fixId, ...DECIDABLE },
      data: { status: FixStatus.APPLYING, applyClaimedById: userId, applyClaimedAt: new Date(), applyClaim: claim },
    });
    if (count === 1) return;
    // an old claim is an apply that died: settle it, then try once more
    if (round === 0) {
      const current = await db.fix.findUnique({ where: { id: fixId }, select: { status: true, applyClaimedAt: true } });
      const age = Date.now() - (current?.applyClaimedAt?.getTime() ?? Date.now());
      if (current?.status === FixStatus.APPLYING && age >= APPLY_CLAIM_TTL_MS && (await reconcileApplyingFix({ fixId })) === 'released') continue;
    }
    throw await fixUnavailableError({ fixId });
  }
}

/** APPLYING → READY: the apply did not happen (an error before the branch moved). */
async function releaseClaim({ fixId, userId }: { fixId: string; userId: string }): Promise<void> {
  await getDb().fix.updateMany({
    where: { id: fixId, status: FixStatus.APPLYING, applyClaimedById: userId },
    data: { status: FixStatus.READY, applyClaimedById: null, applyClaimedAt: null, applyClaim: Prisma.DbNull },
  });
}

/** APPLYING → APPLIED with the decision, the change's status and the audit entry; once. */
async function recordApplied({
  fix,
  userId,
  claim,
  commit,
  reconciled,
}: {
  fix: ApplyContext;
  userId: string;
  claim: ApplyClaim;
  commit: string;
  reconciled: boolean;
}): Promise<{ decisionId: string | null }> {
  return writeTx(async (tx, written) => {
    const now = new Date();
    const { count } = await tx.fix.updateMany({
      where: { id: fix.id, status: FixStatus.APPLYING, applyClaimedById: userId },
      data: {
        status: FixStatus.APPLIED,
        appliedCommit: commit,
        appliedAt: now,
        appliedById: userId,
        applyClaimedById: null,
        applyClaimedAt: null,
        applyClaim: Prisma.DbNull,
      },
    });
    // someone else (a reconciler) recorded it first: one decision per apply
    if (count === 0) return { decisionId: null };
    const decision = await tx.decision.create({
      data: {
        fixId: fix.id,
        userId,
        kind: claim.kind === 'EDIT_ACCEPT' ? DecisionKind.EDIT_ACCEPT : DecisionKind.ACCEPT,
        surface: claim.surface,
        editedDiff: claim.editedDiff ?? null,
        runId: claim.runId ?? null,
        commit,
      },
      select: { id: true },
    });
    await tx.change.update({
      where: { id: fix.changeId },
      data: { status: ChangeStatus.APPLIED, statusReason: `fix applied as ${commit.slice(0, 12)} on ${fix.revision.branch}` },
    });
    await writeAudit(
      {
        actorId: userId,
        actorKind: 'user',
        action: claim.kind === 'EDIT_ACCEPT' ? 'fix.edit_accept' : 'fix.accept',
        targetType: 'fix',
        targetId: fix.id,
        data: {
          commit,
          branch: fix.revision.branch,
          repository: fix.change.repository.name,
          surface: claim.surface,
          changeId: fix.changeId,
          ...(claim.runId ? { revalidationRunId: claim.runId } : {}),
          ...(reconciled ? { reconciled: true } : {}),
        },
      },
      tx,
    );
    written.wrote('decision', { changeId: fix.changeId, fixId: fix.id });
    return { decisionId: decision.id };
  });
}

/** APPLYING → STALE: the branch moved since the run; the fix (and its diff) stay for the record. */
async function recordStale({ fix, userId, actualHead }: { fix: ApplyContext; userId: string; actualHead: string | null }): Promise<string> {
  const message = actualHead
    ? `the branch ${fix.revision.branch} moved from ${shortRev(fix.revision.headRev)} to ${shortRev(actualHead)} since flowfix ran; the fix was not applied and is now stale`
    : `the branch ${fix.revision.branch} no longer exists (it was at ${shortRev(fix.revision.headRev)} when flowfix ran); the fix was not applied and is now stale`;
  await writeTx(async (tx, written) => {
    const { count } = await tx.fix.updateMany({
      where: { id: fix.id, status: FixStatus.APPLYING, applyClaimedById: userId },
      data: { status: FixStatus.STALE, applyClaimedById: null, applyClaimedAt: null, applyClaim: Prisma.DbNull },
    });
    if (count === 0) return;
    await tx.change.update({ where: { id: fix.changeId }, data: { status: ChangeStatus.STALE, statusReason: message } });
    await writeAudit(
      {
        actorId: userId,
        actorKind: 'user',
        action: 'fix.stale',
        targetType: 'fix',
        targetId: fix.id,
        data: { expectedHead: fix.revision.headRev, actualHead, branch: fix.revision.branch, changeId: fix.changeId },
      },
      tx,
    );
    written.wrote('fix', { changeId: fix.changeId, fixId: fix.id });
  });
  return message;
}

/** Claimed: write the commit and record the outcome. */
async function applyClaimed({ fixId, user, claim }: { fixId: string; user: Decider; claim: ApplyClaim }): Promise<AcceptResult> {
  let fix: ApplyContext | undefined;
  let result: ApplyFixCommitResult;
  try {
    fix = await loadApplyContext(fixId);
    // a repository linked to a code host is pushed with the host's short-lived token (lib/hosts/push-target.ts)
    const target = await hostPushTarget({
      repositoryId: fix.change.repository.id,
      gitUrl: fix.change.repository.gitUrl,
      externalId: fix.change.externalId,
      fixId,
      branch: fix.revision.branch,
    });
    result = await applyFixCommit({
      gitUrl: target?.gitUrl ?? fix.change.repository.gitUrl,
      ...(target ? { credentials: target.credentials } : {}),
      branch: fix.revision.branch,
      expectedHead: fix.revision.headRev,
      diff: claim.editedDiff ?? fix.diff,
      author: { name: user.name, email: user.email },
      message: commitMessageFor(fix, claim),
      fixId,
    });
  } catch (err) {
    // nothing reached the branch (every path that moves it returns, not throws)
    await releaseClaim({ fixId, userId: user.id });
    if (err instanceof ApplyFixError) throw new AppError('conflict', `The fix was not applied: ${err.message}`, { cause: err });
    throw err;
  }
  switch (result.outcome) {
    case 'applied':
    case 'already_applied': {
      const reconciled = result.outcome === 'already_applied';
      const { decisionId } = await recordApplied({ fix, userId: user.id, claim, commit: result.commit, reconciled });
      return { fixId, commit: result.commit, branch: fix.revision.branch, decisionId, reconciled };
    }
    case 'moved': {
      const message = await recordStale({ fix, userId: user.id, actualHead: result.actualHead });
      throw new AppError('conflict', message.charAt(0).toUpperCase() + message.slice(1), {
        details: { status: FixStatus.STALE, expectedHead: fix.revision.headRev, actualHead: result.actualHead },
      });
    }
    case 'checked_out':
      await releaseClaim({ fixId, userId: user.id });
      throw new AppError(
        'conflict',
        `The branch ${fix.revision.branch} is checked out in ${result.worktree} on the server; flowfix does not move a branch under a work tree. Apply the patch there yourself (flowfix fix apply ${fixId}).`,
      );
  }
}

/**
 * Accepts a READY fix: one commit on the change's branch, authored by the
 * reviewer. `decider`: a person a code host authorised (write permission
 * checked through its API, lib/code-review/commands.ts) instead of a flowfix role.
 */
export async function acceptFix({
  fixId,
  userId,
  surface,
  decider,
}: {
  fixId: string;
  userId: string;
  surface: SurfaceName;
  decider?: Decider;
}): Promise<AcceptResult> {
  const user = decider ?? (await requireDecider(userId));
  const claim: ApplyClaim = { kind: 'ACCEPT', surface: SurfaceSchema.parse(surface) };
  await claimFix({ fixId, userId: user.id, claim });
  return applyClaimed({ fixId, user, claim });
}

/**
 * Applies an edited diff that passed re-validation (edit-accept.ts) for the
 * user who asked; the same claim, commit and record as acceptFix.
 */
export async function applyEditedFix({
  fixId,
  userId,
  surface,
  editedDiff,
  runId,
}: {
  fixId: string;
  userId: string;
  surface: SurfaceName;
  editedDiff: string;
  runId: string;
}): Promise<AcceptResult> {
  const user = await requireDecider(userId);
  const claim: ApplyClaim = { kind: 'EDIT_ACCEPT', surface: SurfaceSchema.parse(surface), editedDiff, runId };
  await claimFix({ fixId, userId: user.id, claim });
  return applyClaimed({ fixId, user, claim });
}

/**
 * Records an accept where the reviewer applied the patch in their own
 * checkout (`flowfix fix apply`): no commit is written here, the decision is.
 */
export async function recordLocalApply({
  fixId,
  userId,
  surface,
  checkoutHead,
}: {
  fixId: string;
  userId: string;
  surface: SurfaceName;
  /** the revision the reviewer's checkout is at, when the client says (the editor does) */
  checkoutHead?: string;
}): Promise<{ fixId: string; decisionId: string }> {
  await requireDecider(userId);
  const where = SurfaceSchema.parse(surface);
  return writeTx(async (tx, written) => {
    if (checkoutHead !== undefined) {
      const made = await tx.fix.findUnique({ where: { id: fixId }, select: { revision: { select: { headRev: true, branch: true } } } });
      if (made && !made.revision.headRev.startsWith(checkoutHead)) {
        throw new AppError(
          'conflict',
          `The fix is stale: it was made for ${made.revision.branch} at ${made.revision.headRev.slice(0, 12)}, and your checkout is at ${checkoutHead.slice(0, 12)}`,
          { details: { status: FixStatus.STALE, expectedHead: made.revision.headRev, actualHead: checkoutHead } },
        );
      }
    }
    const { count } = await tx.fix.updateMany({
      where: { id: fixId, ...DECIDABLE },
      data: { status: FixStatus.APPLIED, appliedAt: new Date(), appliedById: userId },
    });
    if (count === 0) throw await fixUnavailableError({ fixId, tx });
    const fix = await tx.fix.findUniqueOrThrow({ where: { id: fixId }, select: { changeId: true } });
    const decision = await tx.decision.create({ data: { fixId, userId, kind: DecisionKind.ACCEPT, surface: where }, select: { id: true } });
    await tx.change.update({
      where: { id: fix.changeId },
      data: { status: ChangeStatus.APPLIED, statusReason: `fix applied by the reviewer in their checkout (${where.toLowerCase()})` },
    });
    await writeAudit(
      {
        actorId: userId,
        actorKind: 'user',
        action: 'fix.accept',
        targetType: 'fix',
        targetId: fixId,
        data: { mode: 'local', surface: where, changeId: fix.changeId },
      },
      tx,
    );
    written.wrote('decision', { changeId: fix.changeId, fixId });
    return { fixId, decisionId: decision.id };
  });
}

export type ReconcileOutcome = 'not_applying' | 'applied' | 'released' | 'in_progress';

/**
 * Settles a fix left APPLYING: if the branch carries its commit (trailer
 * Flowfix-Fix: <id>), records the accept the claim describes; if not and the
 * claim is older than the TTL, the apply died before the branch moved and the
 * fix goes back to READY. A younger claim is an apply still in progress.
 */
export async function reconcileApplyingFix({
  fixId,
  now = new Date(),
  ttlMs = APPLY_CLAIM_TTL_MS,
}: {
  fixId: string;
  now?: Date;
  ttlMs?: number;
}): Promise<ReconcileOutcome> {
  const fix = await loadApplyContext(fixId);
  if (fix.status !== FixStatus.APPLYING || !fix.applyClaimedById) return 'not_applying';
  const claim = ApplyClaimSchema.parse(fix.applyClaim);
  let commit: string | null;
  try {
    const target = await hostPushTarget({ repositoryId: fix.change.repository.id, gitUrl: fix.change.repository.gitUrl, externalId: fix.change.externalId });
    commit = await findFixCommit({
      gitUrl: target?.gitUrl ?? fix.change.repository.gitUrl,
      branch: fix.revision.branch,
      since: fix.revision.headRev,
      fixId,
      ...(target ? { credentials: target.credentials } : {}),
    });
  } catch {
    // the repository is unreachable right now: nothing can be concluded
    return 'in_progress';
  }
  if (commit) {
    await recordApplied({ fix, userId: fix.applyClaimedById, claim, commit, reconciled: true });
    return 'applied';
  }
  const age = now.getTime() - (fix.applyClaimedAt?.getTime() ?? 0);
  if (age < ttlMs) return 'in_progress';
  await releaseClaim({ fixId, userId: fix.applyClaimedById });
  await writeAudit({
    actorKind: 'system',
    action: 'fix.apply_released',
    targetType: 'fix',
    targetId: fixId,
    data: { claimedById: fix.applyClaimedById, ageMs: age },
  });
  return 'released';
}

/** Sweeps every fix whose apply claim is older than the TTL (for the worker's periodic maintenance). */
export async function reconcileStuckApplies({ now = new Date(), ttlMs = APPLY_CLAIM_TTL_MS }: { now?: Date; ttlMs?: number } = {}): Promise<
  Record<string, ReconcileOutcome>
> {
  const stuck = await getDb().fix.findMany({
    where: { status: FixStatus.APPLYING, applyClaimedAt: { lt: new Date(now.getTime() - ttlMs) } },
    select: { id: true },
  });
  const out: Record<string, ReconcileOutcome> = {};
  for (const { id } of stuck) out[id] = await reconcileApplyingFix({ fixId: id, now, ttlMs });
  return out;
}
