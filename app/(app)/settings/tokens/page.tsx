import type { Metadata } from 'next';
import { PersonalTokensPanel } from '@/components/settings/personal-tokens-panel';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Personal tokens · flowfix' };

// Any signed-in user (the (app) layout checks the session); the tokens act as them.
export default function PersonalTokensPage() {
  return (
    <main className="page">
      <h1 className="page-title">Personal tokens</h1>
      <p className="page-subtitle">
        Tokens for the flowfix command line and the VS Code extension. Each acts as you, with your roles as they are when it is used, and only within its scope.
      </p>
      <PersonalTokensPanel />
    </main>
  );
}
