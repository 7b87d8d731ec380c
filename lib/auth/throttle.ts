import { getDb } from '../db';

// Sign-in limits, per account (the lower-cased email) and per client address.
// The counters live in the database (SignInThrottle) so every server process
// sees the same attempts. After a few free failures each further failure locks
// the key for a delay that doubles, up to a cap; an attempt made while a key
// is locked is refused before the password is even checked, and still counts,
// so hammering a locked account only makes its next lock longer.

export type ThrottleScope = 'account' | 'address';

interface ScopeRule {
  /** failures allowed before the first lock */
  free: number;
}

// an address is shared by everyone behind one NAT or proxy: it gets more room
const RULES: Record<ThrottleScope, ScopeRule> = {
  account: { free: 4 },
  address: { free: 19 },
};
const FIRST_DELAY_S = 1;
export const MAX_DELAY_S = 15 * 60;
// a failure this long after the previous one starts the count again
const FORGET_AFTER = '24 hours';

/** Seconds a key is locked after its `failures`-th failure (0: not locked). */
export function lockSeconds(scope: ThrottleScope, failures: number): number {
  const over = failures - RULES[scope].free;
  if (over <= 0) return 0;
  return Math.min(MAX_DELAY_S, FIRST_DELAY_S * 2 ** Math.min(over - 1, 30));
}

export interface ThrottleKey {
  scope: ThrottleScope;
  subject: string;
}

export function accountKey(email: string): ThrottleKey {
  return { scope: 'account', subject: email.trim().toLowerCase() };
}

export interface ThrottleState extends ThrottleKey {
  failures: number;
  lockedUntil: Date | null;
  /** whole seconds until the lock ends (0: not locked), by the database's clock */
  retryAfterSeconds: number;
}

// Times are compared with the database's clock, not this process's: every
// server process then agrees on when a lock ends.
const REMAINING = `GREATEST(0, CEIL(EXTRACT(EPOCH FROM ("lockedUntil" - now()))))::int`;

/** The keys among `keys` that are locked now, longest lock first. */
export async function lockedKeys(keys: ThrottleKey[]): Promise<ThrottleState[]> {
  const found: ThrottleState[] = [];
  for (const key of keys) {
    const rows = await getDb().$queryRawUnsafe<Array<{ failures: number; lockedUntil: Date; retryAfterSeconds: number }>>(
      `SELECT "failures", "lockedUntil", ${REMAINING} AS "retryAfterSeconds" FROM "SignInThrottle"
       WHERE "scope" = $1 AND "subject" = $2 AND "lockedUntil" > now()`,
      key.scope,
      key.subject,
    );
    if (rows[0]) found.push({ ...key, ...rows[0] });
  }
  return found.sort((a, b) => b.retryAfterSeconds - a.retryAfterSeconds);
}

/**
 * Counts one failed attempt against `key` in a single statement (so parallel
 * failures are never lost). A checked failure (the password was wrong) locks
 * the key for the delay its new count earns; a refused one (made while locked)
 * only counts. Returns the new state and whether this failure began a lock.
 */
export async function recordFailure(key: ThrottleKey, { checked }: { checked: boolean }): Promise<ThrottleState & { lockStarted: boolean }> {
  const db = getDb();
  const [row] = await db.$queryRawUnsafe<Array<{ failures: number; lockedUntil: Date | null; retryAfterSeconds: number | null; wasLocked: boolean }>>(
    `INSERT INTO "SignInThrottle" ("scope", "subject", "failures", "lastFailureAt")
     VALUES ($1, $2, 1, now())
     ON CONFLICT ("scope", "subject") DO UPDATE SET
       "failures" = CASE WHEN "SignInThrottle"."lastFailureAt" < now() - interval '${FORGET_AFTER}' THEN 1 ELSE "SignInThrottle"."failures" + 1 END,
       "lastFailureAt" = now()
     RETURNING "failures", "lockedUntil", ${REMAINING} AS "retryAfterSeconds", COALESCE("lockedUntil" > now(), false) AS "wasLocked"`,
    key.scope,
    key.subject,
  );
  const seconds = checked ? lockSeconds(key.scope, row.failures) : 0;
  if (seconds === 0) {
    return { ...key, failures: row.failures, lockedUntil: row.lockedUntil, retryAfterSeconds: row.retryAfterSeconds ?? 0, lockStarted: false };
  }
  // GREATEST: of two parallel failures the longer lock stands, whichever writes last
  const [locked] = await db.$queryRawUnsafe<Array<{ lockedUntil: Date; retryAfterSeconds: number }>>(
    `UPDATE "SignInThrottle"
     SET "lockedUntil" = GREATEST(COALESCE("lockedUntil", now()), now() + make_interval(secs => $3))
     WHERE "scope" = $1 AND "subject" = $2
     RETURNING "lockedUntil", ${REMAINING} AS "retryAfterSeconds"`,
    key.scope,
    key.subject,
    seconds,
  );
  return { ...key, failures: row.failures, lockedUntil: locked.lockedUntil, retryAfterSeconds: locked.retryAfterSeconds, lockStarted: !row.wasLocked };
}

/** Forgets a key's failures: a successful sign-in (account) or an admin's unlock. */
export async function clearThrottle(key: ThrottleKey): Promise<{ failures: number; wasLocked: boolean } | null> {
  const rows = await getDb().$queryRawUnsafe<Array<{ failures: number; wasLocked: boolean }>>(
    `DELETE FROM "SignInThrottle" WHERE "scope" = $1 AND "subject" = $2
     RETURNING "failures", COALESCE("lockedUntil" > now(), false) AS "wasLocked"`,
    key.scope,
    key.subject,
  );
  return rows[0] ?? null;
}

/** Current lock of each account among `emails` (lower-cased), for the admin's users list. */
export async function accountLocks(emails: string[]): Promise<Map<string, { failures: number; lockedUntil: Date }>> {
  if (emails.length === 0) return new Map();
  const rows = await getDb().signInThrottle.findMany({
    where: { scope: 'account', subject: { in: emails.map((e) => e.toLowerCase()) }, lockedUntil: { gt: new Date() } },
  });
  return new Map(rows.map((r) => [r.subject, { failures: r.failures, lockedUntil: r.lockedUntil! }]));
}

/** The message code next-auth carries to the sign-in page: components/signin/messages.ts reads it. */
export const THROTTLED_CODE = 'SignInThrottled';

export function throttledCode(retryAfterSeconds: number): string {
  return `${THROTTLED_CODE}:${Math.max(1, Math.ceil(retryAfterSeconds))}`;
}
