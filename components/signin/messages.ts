// Sign-in error texts. A plain module (not 'use client') so the server page can
// call it for next-auth's ?error= codes and the form can use it after signIn().

// next-auth reports OAuth problems as ?error=<code> on the sign-in page
const OAUTH_ERRORS: Record<string, string> = {
  AccessDenied: 'Your account is disabled or not allowed to sign in here.',
  OAuthSignin: 'Could not start single sign-on. Try again.',
  OAuthCallback: 'Single sign-on did not complete. Try again.',
  OAuthAccountNotLinked: 'That email is already used by another sign-in method.',
  Callback: 'Single sign-on did not complete. Try again.',
  SessionRequired: 'Sign in to continue.',
};

// the server's sign-in limit: "SignInThrottled:<seconds until the lock ends>"
// (lib/auth/throttle.ts throttledCode)
const THROTTLED = /^SignInThrottled:(\d+)$/;

/** "30 seconds", "1 minute", "15 minutes": rounded up, so the wait is never longer than said. */
export function waitText(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export function signInErrorMessage(code: string | null | undefined): string | null {
  if (!code) return null;
  const throttled = THROTTLED.exec(code);
  if (throttled) return `Too many attempts; try again in ${waitText(Number(throttled[1]))}. An admin can unlock the account sooner.`;
  if (code === 'CredentialsSignin') return 'The email or password is not right, or the account is disabled.';
  return OAUTH_ERRORS[code] ?? 'Sign-in failed. Try again.';
}
