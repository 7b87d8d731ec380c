import { getDb } from '../db';
import { actorFrom, writeAudit } from '../audit';
import { AppError, isUniqueViolation } from '../errors';
import { hashPassword } from '../auth/password';
import { accountKey, accountLocks, clearThrottle } from '../auth/throttle';
import { endUserSessions } from '../auth/sessions';
import type { Prisma } from '../generated/prisma/client';
import { UserKind, type Role } from '../generated/prisma/enums';
import { codeReviewHostOf } from '../../common/code-review-identity';
import { CreateUserSchema, UpdateUserSchema, type CreateUserInput, type UpdateUserInput } from './schemas';

// User management for admins. Every change is written together with its audit
// entry in one transaction, and the "at least one enabled admin" invariant is
// checked inside that transaction with the admin rows locked, so two admins
// demoting each other at the same moment cannot both succeed.

export interface AdminUserView {
  id: string;
  email: string;
  name: string;
  roles: Role[];
  disabledAt: Date | null;
  createdAt: Date;
  lastSignInAt: Date | null;
  hasPassword: boolean;
  oidc: boolean;
  /** CODE_REVIEW: a code host user's identity for their /flowfix decisions; never signs in, gets no role (lib/users/code-review.ts) */
  kind: UserKind;
  /** the host of a code-review identity ("GitHub", "GitLab"); null for people */
  codeReviewHost: string | null;
  /** sign-ins are refused until then (too many failures; lib/auth/throttle.ts); null: not locked */
  lockedUntil: Date | null;
}

const USER_SELECT = {
  id: true,
  email: true,
  name: true,
  roles: true,
  disabledAt: true,
  createdAt: true,
  lastSignInAt: true,
  passwordHash: true,
  oidcSubject: true,
  kind: true,
} as const;

type SelectedUser = Prisma.UserGetPayload<{ select: typeof USER_SELECT }>;

function toView(u: SelectedUser): AdminUserView {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    roles: u.roles,
    disabledAt: u.disabledAt,
    createdAt: u.createdAt,
    lastSignInAt: u.lastSignInAt,
    hasPassword: u.passwordHash !== null,
    oidc: u.oidcSubject !== null,
    kind: u.kind,
    codeReviewHost: u.kind === UserKind.CODE_REVIEW ? (codeReviewHostOf(u.email) ?? 'a code host') : null,
    lockedUntil: null,
  };
}

export async function listUsers(): Promise<AdminUserView[]> {
  const rows = await getDb().user.findMany({ select: USER_SELECT, orderBy: [{ createdAt: 'asc' }, { email: 'asc' }] });
  const locks = await accountLocks(rows.map((r) => r.email));
  return rows.map((r) => ({ ...toView(r), lockedUntil: locks.get(r.email.toLowerCase())?.lockedUntil ?? null }));
}

/** An admin lifts a sign-in lock early: the account's failure count starts again from zero. */
export async function unlockUser({ actorId, id }: { actorId: string; id: string }): Promise<AdminUserView> {
  const user = await getDb().user.findUnique({ where: { id }, select: USER_SELECT });
  if (!user) throw new AppError('not_found', 'No such user');
  const cleared = await clearThrottle(accountKey(user.email));
  await writeAudit({
    actorId,
    actorKind: 'user',
    action: 'auth.unlock',
    targetType: 'user',
    targetId: id,
    data: { email: user.email, failures: cleared?.failures ?? 0, wasLocked: cleared?.wasLocked ?? false },
  });
  return toView(user);
}

export async function createUser({ actorId, input }: { actorId: string | null; input: CreateUserInput }): Promise<AdminUserView> {
  const data = CreateUserSchema.parse(input);
  // hash outside the transaction: scrypt takes ~100 ms and needs no lock
  const passwordHash = await hashPassword(data.password);
  try {
    return await getDb().$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { email: data.email, name: data.name, roles: data.roles, passwordHash },
        select: USER_SELECT,
      });
      await writeAudit(
        {
          ...actorFrom(actorId),
          action: 'user.create',
          targetType: 'user',
          targetId: user.id,
          data: { email: user.email, roles: user.roles },
        },
        tx,
      );
      return toView(user);
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError('conflict', `A user with the email ${data.email} already exists`, { cause: err });
    }
    throw err;
  }
}

/** Locks every enabled admin row and returns their ids (the guard's consistent view). */
async function lockEnabledAdmins(tx: Prisma.TransactionClient): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM "User" WHERE 'ADMIN' = ANY(roles) AND "disabledAt" IS NULL ORDER BY id FOR UPDATE`;
  return rows.map((r) => r.id);
}

export async function updateUser({ actorId, id, input }: { actorId: string; id: string; input: UpdateUserInput }): Promise<AdminUserView> {
  const patch = UpdateUserSchema.parse(input);
  const passwordHash = patch.password ? await hashPassword(patch.password) : undefined;
  return getDb().$transaction(async (tx) => {
    const admins = await lockEnabledAdmins(tx);
    const current = await tx.user.findUnique({ where: { id }, select: USER_SELECT });
    if (!current) throw new AppError('not_found', 'No such user');

    if (current.kind === UserKind.CODE_REVIEW && ((patch.roles !== undefined && patch.roles.length > 0) || patch.password !== undefined)) {
      throw new AppError(
        'conflict',
        'This is a code-review identity (a code host user’s /flowfix decisions): it never signs in, so it can have neither a role nor a password',
      );
    }
    const losesAdmin = patch.roles !== undefined && current.roles.includes('ADMIN') && !patch.roles.includes('ADMIN');
    const becomesDisabled = patch.disabled === true && current.disabledAt === null;
    if (id === actorId && losesAdmin) throw new AppError('conflict', 'You cannot remove your own admin role');
    if (id === actorId && becomesDisabled) throw new AppError('conflict', 'You cannot disable your own account');
    if ((losesAdmin || becomesDisabled) && admins.includes(id) && admins.length <= 1) {
      throw new AppError('conflict', 'This is the last enabled admin: make someone else an admin first');
    }

    const updated = await tx.user.update({
      where: { id },
      data: {
        name: patch.name,
        roles: patch.roles,
        passwordHash,
        disabledAt: patch.disabled === undefined ? undefined : patch.disabled ? (current.disabledAt ?? new Date()) : null,
      },
      select: USER_SELECT,
    });
    // what a session was granted no longer holds: its cookie must not outlive the change
    const losesRole = patch.roles !== undefined && current.roles.some((r) => !updated.roles.includes(r));
    const endReason = becomesDisabled ? 'disabled' : passwordHash ? 'password_change' : losesRole ? 'role_removed' : null;
    const sessionsEnded = endReason ? await endUserSessions({ userId: id, reason: endReason }, tx) : 0;
    await writeAudit(
      {
        actorId,
        actorKind: 'user',
        action: 'user.update',
        targetType: 'user',
        targetId: id,
        // what changed, never the password itself
        data: {
          ...(patch.name !== undefined && { name: { from: current.name, to: updated.name } }),
          ...(patch.roles !== undefined && { roles: { from: current.roles, to: updated.roles } }),
          ...(patch.disabled !== undefined && { disabled: patch.disabled }),
          ...(patch.password !== undefined && { passwordReset: true }),
          ...(sessionsEnded > 0 && { sessionsEnded }),
        },
      },
      tx,
    );
    return toView(updated);
  });
}
