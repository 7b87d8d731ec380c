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

export function signInErrorMessage(code: string | null | undefined): string | null {
  if (!code) return null;
  if (code === 'CredentialsSignin') return 'The email or password is not right, or the account is disabled.';
  return OAUTH_ERRORS[code] ?? 'Sign-in failed. Try again.';
}
