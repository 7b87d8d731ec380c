import { Suspense } from 'react';
import { requirePageUser } from '@/lib/auth/page';
import { BROWSE_ROLES } from '@/common/roles';
import { RunsView } from '@/components/runs/runs-view';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Runs · flowfix' };

// Every repair run, with filters (the roles that browse changes). The rows
// come from GET /api/runs.
export default async function RunsPage() {
  await requirePageUser(BROWSE_ROLES);
  return (
    <main className="page">
      <h1 className="page-title">Runs</h1>
      <p className="page-subtitle">Every repair attempt, newest first: what it tried, how it ended, what it produced.</p>
      <Suspense fallback={<div className="card muted">Loading…</div>}>
        <RunsView />
      </Suspense>
    </main>
  );
}
