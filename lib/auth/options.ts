import 'server-only';
import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import type { Provider } from 'next-auth/providers/index';
import { z } from 'zod';
import { getDb } from '../db';
import { getEnv } from '../env';
import { getAuthSecret, useSecureCookies } from './secret';
import { getDummyHash, verifyPassword } from './password';
import { writeAudit } from '../audit';

const CredentialsSchema = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  password: z.string().min(1).max(1024),
});

/** Checks an email and password against the database; null when they do not match. */
export async function authorizeCredentials(raw: unknown): Promise<{ id: string; email: string; name: string } | null> {
  const parsed = CredentialsSchema.safeParse(raw);
  if (!parsed.success) return null;
  const db = getDb();
  const user = await db.user.findUnique({ where: { email: parsed.data.email } });
  // verify against a dummy hash when there is no user so the timing is the same
  const ok = await verifyPassword(parsed.data.password, user?.passwordHash ?? (await getDummyHash()));
  if (!user || !user.passwordHash || !ok || user.disabledAt) return null;
  await db.user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
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
 * JWT sessions. The JWT carries only the user id; roles are read from the
 * database on every request (lib/auth/session.ts) so a role change or a
 * disabled account takes effect at once.
 */
export function getAuthOptions(): NextAuthOptions {
  const oidc = oidcProvider();
  return {
    secret: getAuthSecret(),
    useSecureCookies: useSecureCookies(),
    session: { strategy: 'jwt', maxAge: 12 * 60 * 60 },
    pages: { signIn: '/signin' },
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        authorize: (credentials) => authorizeCredentials(credentials),
      }),
      ...(oidc ? [oidc] : []),
    ],
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider !== 'oidc') return true;
        // OIDC users are matched by subject, then by email; new ones start with
        // no roles until an admin grants some.
        const email = (profile?.email ?? user.email ?? '').toLowerCase();
        if (!email || !account.providerAccountId) return false;
        const db = getDb();
        const existing =
          (await db.user.findUnique({ where: { oidcSubject: account.providerAccountId } })) ??
          (await db.user.findUnique({ where: { email } }));
        if (existing?.disabledAt) return false;
        const saved = existing
          ? await db.user.update({
              where: { id: existing.id },
              data: { oidcSubject: account.providerAccountId, lastSignInAt: new Date() },
            })
          : await db.user.create({
              data: { email, name: user.name ?? email, oidcSubject: account.providerAccountId, roles: [] },
            });
        if (!existing) await writeAudit({ actorId: saved.id, actorKind: 'user', action: 'user.oidc_provision', targetType: 'user', targetId: saved.id });
        user.id = saved.id;
        return true;
      },
      async jwt({ token, user }) {
        if (user) token.sub = user.id;
        return token;
      },
      async session({ session, token }) {
        if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
        return session;
      },
    },
  };
}
