import { cookies } from 'next/headers';
import { forbidden, redirect } from 'next/navigation';
import { getSessionUser, hasAnyRole, type RoleName, type SessionUser } from './session';

/**
 * For server components: the signed-in user, or a redirect to sign-in. With
 * `roles`, a user without any of them gets the forbidden page with status 403
 * at the same address (app/(app)/forbidden.tsx).
 */
export async function requirePageUser(roles?: readonly RoleName[]): Promise<SessionUser> {
  const user = await getSessionUser({ cookies: await cookies() });
  if (!user) redirect('/signin');
  if (roles && !hasAnyRole(user, roles)) forbidden();
  return user;
}

export async function getPageUser(): Promise<SessionUser | null> {
  return getSessionUser({ cookies: await cookies() });
}
