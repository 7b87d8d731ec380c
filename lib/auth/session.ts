import 'server-only';
import { getToken } from 'next-auth/jwt';
import { getDb } from '../db';
import { Role, UserKind } from '../generated/prisma/enums';
import { getAuthSecret, useSecureCookies } from './secret';
import { isSessionLive } from './sessions';

export { Role };
export type RoleName = (typeof Role)[keyof typeof Role];
export const ALL_ROLES: RoleName[] = Object.values(Role);

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  roles: RoleName[];
}

/** Anything with the session cookie: a NextRequest, or `{ cookies: await cookies() }` in a page. */
export interface CookieSource {
  cookies: { getAll(): Array<{ name: string; value: string }> };
  headers?: Headers;
}

/**
 * Resolves the signed-in user from the session cookie and re-reads them from
 * the database: the session must be live, and roles and the disabled flag are
 * never trusted from the JWT.
 */
export async function getSessionUser(source: CookieSource): Promise<SessionUser | null> {
  const token = await getToken({
    req: { cookies: source.cookies, headers: source.headers ?? new Headers() } as never,
    secret: getAuthSecret(),
    secureCookie: useSecureCookies(),
  });
  if (!token?.sub) return null;
  // the session the cookie names must still be live: a sign-out or an account
  // change ends it on the server (lib/auth/sessions.ts); a cookie naming none is refused
  const sid = (token as { sid?: unknown }).sid;
  if (typeof sid !== 'string' || !(await isSessionLive({ id: sid, userId: token.sub }))) return null;
  const user = await getDb().user.findUnique({
    where: { id: token.sub },
    select: { id: true, email: true, name: true, roles: true, disabledAt: true, kind: true },
  });
  // a code-review identity never signs in, so a session naming one was not made by flowfix's sign-in
  if (!user || user.disabledAt || user.kind === UserKind.CODE_REVIEW) return null;
  return { id: user.id, email: user.email, name: user.name, roles: user.roles };
}

export function hasAnyRole(user: SessionUser, roles: readonly RoleName[]): boolean {
  return roles.some((r) => user.roles.includes(r));
}
