import 'server-only';
import { randomBytes } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client';
import { getDb } from '../db';

// Signed-in browser sessions, one UserSession row each. The session cookie is
// a next-auth JWT that names its row (`sid`); a request is served only while
// that row is live. A JWT alone cannot be taken back before it expires, so
// ending a session means ending its row: a sign-out ends the one it names; a
// password change, a removed role or a disabled account end all of the
// user's. A session lives at most SESSION_MAX_AGE_S from sign-in, however
// often its cookie is re-issued.

export const SESSION_MAX_AGE_S = 12 * 60 * 60;

export type SessionEndReason = 'signout' | 'password_change' | 'role_removed' | 'disabled';

// ended and expired rows are kept a while for whoever investigates a sign-in, then removed
const KEEP_ENDED_MS = 30 * 24 * 60 * 60 * 1000;

type Db = Pick<Prisma.TransactionClient, 'userSession'>;

/** Records a new session for a user who just signed in; returns the id its cookie carries. */
export async function startSession({ userId }: { userId: string }): Promise<string> {
  const db = getDb();
  const id = randomBytes(24).toString('base64url');
  const now = Date.now();
  await db.userSession.create({ data: { id, userId, expiresAt: new Date(now + SESSION_MAX_AGE_S * 1000) } });
  await db.userSession.deleteMany({ where: { userId, expiresAt: { lt: new Date(now - KEEP_ENDED_MS) } } });
  return id;
}

/** Is the session `id` of `userId` still live (not ended, not expired)? */
export async function isSessionLive({ id, userId }: { id: string; userId: string }): Promise<boolean> {
  const row = await getDb().userSession.findFirst({
    where: { id, userId, endedAt: null, expiresAt: { gt: new Date() } },
    select: { id: true },
  });
  return row !== null;
}

/** Ends one session (a sign-out); its user id, or null when it was unknown or had ended already. */
export async function endSession({ id, reason }: { id: string; reason: SessionEndReason }): Promise<string | null> {
  const db = getDb();
  const { count } = await db.userSession.updateMany({ where: { id, endedAt: null }, data: { endedAt: new Date(), endReason: reason } });
  if (count === 0) return null;
  return (await db.userSession.findUnique({ where: { id }, select: { userId: true } }))?.userId ?? null;
}

/** Ends every live session of a user; pass `tx` to make it part of the change that caused it. Returns how many ended. */
export async function endUserSessions({ userId, reason }: { userId: string; reason: SessionEndReason }, tx?: Db): Promise<number> {
  const { count } = await (tx ?? getDb()).userSession.updateMany({
    where: { userId, endedAt: null, expiresAt: { gt: new Date() } },
    data: { endedAt: new Date(), endReason: reason },
  });
  return count;
}
