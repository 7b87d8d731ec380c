import type { ReactNode } from 'react';
import { requirePageUser } from '@/lib/auth/page';
import { AppHeader } from '@/components/shell/app-header';
import { UnsafeSandboxBanner } from '@/components/shell/unsafe-sandbox-banner';
import { getEnv } from '@/lib/env';

export const dynamic = 'force-dynamic';

// Every signed-in page lives under this group: the header and the session check.
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser();
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      {getEnv().FLOWFIX_DEMO && (
        <div className="demo-banner" role="note">
          Demo mode: data marked “history” is generated; the rest comes from real runs on the demo repositories.
        </div>
      )}
      <UnsafeSandboxBanner />
      <AppHeader user={user} />
      {/* the skip link's target; tabIndex so that focus lands here, not only the scroll */}
      <div id="main" tabIndex={-1} className="main-anchor">
        {children}
      </div>
    </>
  );
}
