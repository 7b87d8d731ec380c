import { hasRoleIn, REVIEW_ROLES } from '../../common/roles';
import { writeAudit } from '../audit';
import { getDb } from '../db';
import { AppError } from '../errors';
import { ChangeStatus, DecisionKind, FixStatus, Origin } from '../generated/prisma/enums';
import type { Prisma } from '../generated/prisma/client';
import { RejectFixBodySchema, SurfaceSchema, type SurfaceName } from './schemas';
import { writeTx } from '../writes';
import { SUPERSEDED } from '../../common/fix-choice';
import type { Tx } from '../db';

/** The fixes a person may still decide on: READY, and not an example from the demo history. */
export const DECIDABLE = { status: FixStatus.READY, change: { origin: { not: Origin.DEMO_HISTORY } } } satisfies Prisma.FixWhereInput;

/** dropReason of a STALE fix that a newer run on the same revision replaced. */

// A reviewer's decisions on a fix, except applying it (apply.ts): previews and
// rejections. Each decision is a Decision row and an audit entry written in
// one transaction; a rejection also closes the fix and the change.

export interface Decider {
  id: string;
  name: string;
  email: string;
}

/** The user, if they may decide on fixes (reviewer or admin, not disabled); else 403. */
export async function requireDecider(userId: string): Promise<Decider> {
  const user = await getDb().user.findUnique({ where: { id: userId }, select: { id: true, name: true, email: true, roles: true, disabledAt: true } });
  if (!user || user.disabledAt) throw new AppError('unauthenticated', 'Sign in to continue');
  if (!hasRoleIn(user.roles, REVIEW_ROLES)) {
    throw new AppError('forbidden', 'Only reviewers and admins decide on fixes');
  }
  return { id: user.id, name: user.name, email: user.email };
}

/** "14:02 UTC" — the time people read in a conflict message. */
export function clockTime(at: Date): string {
  return `${at.toISOString().slice(11, 16)} UTC`;
}

/**
 * Why a fix can no longer be decided on, naming whoever decided it: the 409 a
 * reviewer gets when someone else was first ("Ana accepted this fix at 14:02 UTC").
 */
export async function fixUnavailableError({ fixId, tx }: { fixId: string; tx?: Tx }): Promise<AppError> {
  const fix = await (tx ?? getDb()).fix.findUnique({
    where: { id: fixId },
    select: {
      status: true,
      dropReason: true,
      change: { select: { origin: true } },
      appliedAt: true,
      appliedCommit: true,
      appliedBy: { select: { id: true, name: true } },
      applyClaimedAt: true,
      applyClaimedBy: { select: { id: true, name: true } },
      decisions: {
        where: { kind: { in: [DecisionKind.REJECT, DecisionKind.ACCEPT, DecisionKind.EDIT_ACCEPT] } },
        orderBy: { createdAt: 'desc' },
        take: 1,
        select: { kind: true, createdAt: true, reason: true, user: { select: { id: true, name: true } } },
      },
    },
  });
  if (!fix) return new AppError('not_found', 'Fix not found');
  if (fix.status === FixStatus.READY && fix.change.origin === Origin.DEMO_HISTORY) {
    return new AppError('conflict', 'This fix is from the demo history: an example with no branch behind it, so it cannot be decided on', {
      details: { status: fix.status, history: true },
    });
  }
  const last = fix.decisions[0];
  switch (fix.status) {
    case FixStatus.APPLIED: {
      const by = fix.appliedBy ?? last?.user ?? null;
      const at = fix.appliedAt ?? last?.createdAt ?? null;
      const commit = fix.appliedCommit ? ` as ${fix.appliedCommit.slice(0, 12)}` : '';
      return new AppError('conflict', `${by?.name ?? 'Someone'} accepted this fix${at ? ` at ${clockTime(at)}` : ''}${commit}`, {
        details: { status: fix.status, by, at, commit: fix.appliedCommit },
      });
    }
    case FixStatus.APPLYING: {
      const by = fix.applyClaimedBy;
      const at = fix.applyClaimedAt;
      return new AppError('conflict', `${by?.name ?? 'Someone'} accepted this fix${at ? ` at ${clockTime(at)}` : ''}; it is being applied`, {
        details: { status: fix.status, by, at },
      });
    }
    case FixStatus.REJECTED:
      return new AppError('conflict', `${last?.user.name ?? 'Someone'} rejected this fix${last ? ` at ${clockTime(last.createdAt)}` : ''}`, {
        details: { status: fix.status, by: last?.user ?? null, at: last?.createdAt ?? null, reason: last?.reason ?? null },
      });
    case FixStatus.STALE:
      return new AppError(
        'conflict',
        fix.dropReason === SUPERSEDED
          ? 'This fix was replaced by a newer run on the same revision; decide on the newer fix'
          : 'This fix is stale: the change moved on since flowfix ran, so it can no longer be applied',
        { details: { status: fix.status, reason: fix.dropReason } },
      );
    case FixStatus.DROPPED:
      return new AppError('conflict', `This fix was dropped by a filter (${fix.dropReason ?? 'no reason recorded'}) and cannot be decided on`, {
        details: { status: fix.status },
      });
    default:
      return new AppError('conflict', 'This fix changed while you were deciding; reload and try again', { details: { status: fix.status } });
  }
}

// first key of the two-key advisory lock on (fix, user, surface) (the other
// flowfix locks are 0x66667831-0x66667835, lib/ingest, lib/insights/rollup.ts)
const PREVIEW_LOCK_NAMESPACE = 0x66667836;

/**
 * Records that a person looked at a fix's diff. Any status: a look at an
 * applied fix is still a look. Once per fix, person and surface: a repeat
 * (a second click, two tabs at once) answers with the first preview and
 * records nothing; concurrent calls queue on an advisory lock held to the
 * end of the transaction, so the second sees the first's row.
 */
export async function recordPreview({ fixId, userId, surface }: { fixId: string; userId: string; surface: SurfaceName }): Promise<{ decisionId: string }> {
  const where = SurfaceSchema.parse(surface);
  return writeTx(async (tx, written) => {
    const fix = await tx.fix.findUnique({ where: { id: fixId }, select: { id: true, changeId: true } });
    if (!fix) throw new AppError('not_found', 'Fix not found');
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PREVIEW_LOCK_NAMESPACE}::int4, hashtext(${`${fixId}\u0001${userId}\u0001${where}`}))`;
    const earlier = await tx.decision.findFirst({
      where: { fixId, userId, kind: DecisionKind.PREVIEW, surface: where },
      orderBy: { createdAt: 'asc' },
      select: { id: true },
    });
    if (earlier) return { decisionId: earlier.id };
    const decision = await tx.decision.create({
      data: { fixId, userId, kind: DecisionKind.PREVIEW, surface: where },
      select: { id: true },
    });
    await writeAudit(
      { actorId: userId, actorKind: 'user', action: 'fix.preview', targetType: 'fix', targetId: fixId, data: { surface: where, changeId: fix.changeId } },
      tx,
    );
    written.wrote('decision', { changeId: fix.changeId, fixId });
    return { decisionId: decision.id };
  });
}

/** The reject route's answer. */
export interface RejectResult {
  decisionId: string;
}

/**
 * Rejects a READY fix with a reason. The READY → REJECTED update is
 * conditional, so of a reject and an accept racing, exactly one wins and the
 * other is told who.
 */
export async function rejectFix({
  fixId,
  userId,
  reason,
  text,
  surface = 'DASHBOARD',
  decider,
}: {
  fixId: string;
  userId: string;
  reason: string;
  text?: string;
  surface?: SurfaceName;
  /** a person a code host authorised (lib/code-review/commands.ts) instead of a flowfix role */
  decider?: Decider;
}): Promise<RejectResult> {
  const body = RejectFixBodySchema.parse({ reason, text: text || undefined });
  const where = SurfaceSchema.parse(surface);
  if (!decider) await requireDecider(userId);
  const result = await writeTx(async (tx, written) => {
    const { count } = await tx.fix.updateMany({ where: { id: fixId, ...DECIDABLE }, data: { status: FixStatus.REJECTED } });
    if (count === 0) throw await fixUnavailableError({ fixId, tx });
    const fix = await tx.fix.findUniqueOrThrow({ where: { id: fixId }, select: { changeId: true, runId: true } });
    const decision = await tx.decision.create({
      data: {
        fixId,
        userId,
        kind: DecisionKind.REJECT,
        surface: where,
        reason: body.reason,
        reasonText: body.text ?? null,
      },
      select: { id: true },
    });
    await tx.change.update({
      where: { id: fix.changeId },
      data: { status: ChangeStatus.REJECTED, statusReason: `fix rejected: ${body.reason.toLowerCase()}` },
    });
    await writeAudit(
      {
        actorId: userId,
        actorKind: 'user',
        action: 'fix.reject',
        targetType: 'fix',
        targetId: fixId,
        data: { reason: body.reason, text: body.text ?? null, surface: where, changeId: fix.changeId, runId: fix.runId },
      },
      tx,
    );
    // the pull request's comment and check say so too (lib/writes.ts)
    written.wrote('decision', { changeId: fix.changeId, fixId });
    return { decisionId: decision.id };
  });
  return { decisionId: result.decisionId };
}
