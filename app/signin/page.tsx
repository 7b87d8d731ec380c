import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { getPageUser } from '@/lib/auth/page';
import { isOidcEnabled } from '@/lib/auth/options';
import { getEnv } from '@/lib/env';
import { DEMO_USERS } from '@/demo/users';
import { safeCallbackUrl } from '@/components/signin/callback-url';
import { SignInForm, type DemoAccount } from '@/components/signin/signin-form';
import { signInErrorMessage } from '@/components/signin/messages';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Sign in · flowfix' };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const callbackUrl = safeCallbackUrl(query.callbackUrl);
  if (await getPageUser()) redirect(callbackUrl);

  const env = getEnv();
  const errorCode = Array.isArray(query.error) ? query.error[0] : query.error;
  // the demo's passwords are public on purpose, and shown only in demo mode
  const demoUsers: DemoAccount[] | null = env.FLOWFIX_DEMO
    ? DEMO_USERS.map((u) => ({ email: u.email, name: u.name, password: u.password, roles: [u.role] }))
    : null;

  return (
    <main className="signin-page">
      <div className="signin-card card">
        <div className="signin-brand">
          <span className="shell-brand-mark" aria-hidden />
          <span className="signin-product">flowfix</span>
        </div>
        <p className="signin-tagline">Fixes for failing changes, proven by their tests.</p>
        <SignInForm
          callbackUrl={callbackUrl}
          initialError={signInErrorMessage(errorCode)}
          oidcName={isOidcEnabled() ? env.OIDC_NAME : null}
          demoUsers={demoUsers}
        />
      </div>
      <p className="signin-footer muted small">Access is managed by your flowfix admins.</p>
    </main>
  );
}
