import 'server-only';
import type { NextAuthOptions } from 'next-auth';
import CredentialsProviderImport from 'next-auth/providers/credentials';
import type { Provider } from 'next-auth/providers/index';
import { z } from 'zod';
import { getDb } from '../db';
import { getEnv } from '../env';
import { getAuthSecret, useSecureCookies } from './secret';
import { getDummyHash, verifyPassword } from './password';
import { writeAudit } from '../audit';
import { UserKind } from '../generated/prisma/enums';
import { isCodeReviewEmail } from '../../common/code-review-identity';
import { accountKey, clearThrottle, lockedKeys, recordFailure, throttledCode, type ThrottleKey } from './throttle';
import { clientAddress } from '../http/client-address';
import { endSession, SESSION_MAX_AGE_S, startSession } from './sessions';

// next-auth ships CommonJS with `exports.default`: Next's bundler unwraps it,
// Node's own loader (the CLI, tests) hands over the module object instead
const CredentialsProvider = (CredentialsProviderImport as unknown as { default?: typeof CredentialsProviderImport }).default ?? CredentialsProviderImport;

const CredentialsSchema = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  password: z.string().min(1).max(1024),
});

/**
 * Checks an email and password against the database; null when they do not
 * match. Throws (next-auth carries the message to the sign-in page as its
 * error code) when the account or the client's address is locked by too many
 * failures: then the password is not even checked. `headers` are the
 * request's, for the client address (lib/http/client-address.ts).
 */
export async function authorizeCredentials(
  raw: unknown,
  headers?: Record<string, string | string[] | undefined>,
): Promise<{ id: string; email: string; name: string } | null> {
  const parsed = CredentialsSchema.safeParse(raw);
  if (!parsed.success) return null;
  const { email, password } = parsed.data;
  const address = clientAddress(headers);
  const keys: ThrottleKey[] = [accountKey(email), ...(address ? [{ scope: 'address' as const, subject: address }] : [])];
  const db = getDb();

  const locked = await lockedKeys(keys);
  if (locked.length > 0) {
    await Promise.all(keys.map((k) => recordFailure(k, { checked: false })));
    await writeAudit({
      actorKind: 'user',
      action: 'auth.signin.refused',
      targetType: 'account',
      targetId: email,
      data: { email, address, lockedBy: locked.map((l) => l.scope), retryAfterSeconds: locked[0].retryAfterSeconds },
    });
    throw new Error(throttledCode(locked[0].retryAfterSeconds));
  }

  const user = await db.user.findUnique({ where: { email } });
  // verify against a dummy hash when there is no user so the timing is the same
  const ok = await verifyPassword(password, user?.passwordHash ?? (await getDummyHash()));
  // a code-review identity is a record of a host user's decisions, never an account (lib/users/code-review.ts)
  const codeReview = user?.kind === UserKind.CODE_REVIEW;
  if (!user || codeReview || !user.passwordHash || !ok || user.disabledAt) {
    const reason = !user ? 'unknown_account' : codeReview ? 'code_review_identity' : !user.passwordHash ? 'no_password' : !ok ? 'wrong_password' : 'disabled';
    const states = await Promise.all(keys.map((k) => recordFailure(k, { checked: true })));
    await writeAudit({
      actorKind: 'user',
      action: 'auth.signin.failure',
      targetType: 'account',
      targetId: email,
      data: { email, address, reason, failures: Object.fromEntries(states.map((st) => [st.scope, st.failures])) },
    });
    for (const st of states.filter((st) => st.lockStarted)) {
      await writeAudit({
        actorKind: 'system',
        action: 'auth.lockout',
        targetType: st.scope,
        targetId: st.subject,
        data: {
          scope: st.scope,
          subject: st.subject,
          failures: st.failures,
          lockedUntil: st.lockedUntil?.toISOString() ?? null,
          seconds: st.retryAfterSeconds,
        },
      });
    }
    return null;
  }
  // a success forgets the account's failures; the address keeps its count, so
  // one good account does not give a client fresh tries at the others
  await clearThrottle(accountKey(email));
  await db.user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
  await writeAudit({
    actorId: user.id,
    actorKind: 'user',
    action: 'auth.signin',
    targetType: 'user',
    targetId: user.id,
    data: { method: 'password', address },
  });
  return { id: user.id, email: user.email, name: user.name };
}

function oidcProvider(): Provider | null {
  const env = getEnv();
  if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET) return null;
  return {
    id: 'oidc',
    name: env.OIDC_NAME,
    type: 'oauth',
    wellKnown: `${env.OIDC_ISSUER.replace(/\/$/, '')}/.well-known/openid-configuration`,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    authorization: { params: { scope: 'openid email profile' } },
    idToken: true,
    checks: ['pkce', 'state'],
    profile(profile: { sub: string; email?: string; name?: string }) {
      return { id: profile.sub, email: profile.email ?? '', name: profile.name ?? profile.email ?? profile.sub };
    },
  } as Provider;
}

export function isOidcEnabled(): boolean {
  return oidcProvider() !== null;
}

/**
 * next-auth configuration: credentials against the users table, optional OIDC,
 * JWT sessions. The JWT carries only the user id and its session's id; the
 * session must be live and roles are read from the database on every request
 * (lib/auth/session.ts), so a sign-out, a role change or a disabled account
 * takes effect at once. `address` is the calling client's (for the audit log).
 */
export function getAuthOptions({ address = null }: { address?: string | null } = {}): NextAuthOptions {
  const oidc = oidcProvider();
  return {
    secret: getAuthSecret(),
    useSecureCookies: useSecureCookies(),
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: '/signin' },
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        authorize: (credentials, req) => authorizeCredentials(credentials, req?.headers),
      }),
      ...(oidc ? [oidc] : []),
    ],
    events: {
      // next-auth clears the cookie; this ends the session it names, so a
      // copy of the cookie kept elsewhere is refused from now on
      async signOut({ token }) {
        const sid = (token as { sid?: unknown } | null)?.sid;
        if (typeof sid !== 'string') return;
        const userId = await endSession({ id: sid, reason: 'signout' });
        if (userId) await writeAudit({ actorId: userId, actorKind: 'user', action: 'auth.signout', targetType: 'user', targetId: userId, data: { address } });
      },
    },
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider !== 'oidc') return true;
        // OIDC users are matched by subject, then by email; new ones start with
        // no roles until an admin grants some.
        const email = (profile?.email ?? user.email ?? '').toLowerCase();
        if (!email || !account.providerAccountId) return false;
        const db = getDb();
        const existing = (await db.user.findUnique({ where: { oidcSubject: account.providerAccountId } })) ?? (await db.user.findUnique({ where: { email } }));
        if (existing?.disabledAt) {
          await writeAudit({
            actorKind: 'user',
            action: 'auth.signin.failure',
            targetType: 'account',
            targetId: email,
            data: { email, method: 'oidc', reason: 'disabled', address },
          });
          return false;
        }
        // neither matched nor provisioned: the reserved domain belongs to code-review identities alone
        if (existing?.kind === UserKind.CODE_REVIEW || isCodeReviewEmail(email)) {
          await writeAudit({
            actorKind: 'user',
            action: 'auth.signin.failure',
            targetType: 'account',
            targetId: email,
            data: { email, method: 'oidc', reason: 'code_review_identity', address },
          });
          return false;
        }
        const saved = existing
          ? await db.user.update({
              where: { id: existing.id },
              data: { oidcSubject: account.providerAccountId, lastSignInAt: new Date() },
            })
          : await db.user.create({
              data: { email, name: user.name ?? email, oidcSubject: account.providerAccountId, roles: [] },
            });
        if (!existing) await writeAudit({ actorId: saved.id, actorKind: 'user', action: 'user.oidc_provision', targetType: 'user', targetId: saved.id });
        await writeAudit({
          actorId: saved.id,
          actorKind: 'user',
          action: 'auth.signin',
          targetType: 'user',
          targetId: saved.id,
          data: { method: 'oidc', address },
        });
        user.id = saved.id;
        return true;
      },
      async jwt({ token, user }) {
        // `user` is present only at sign-in: that is when a session begins
        if (user) {
          token.sub = user.id;
          token.sid = await startSession({ userId: user.id });
        }
        return token;
      },
      async session({ session, token }) {
        if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
        return session;
      },
    },
  };
}
