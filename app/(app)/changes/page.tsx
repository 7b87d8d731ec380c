import { Suspense } from 'react';
import { listRepositoryOptions } from '@/lib/changes/list-changes';
import { TriageView } from '@/components/triage/triage-view';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Changes · flowfix' };

// The triage list. The session check is the (app) layout's; the rows come from
// GET /api/changes so filtering and paging never reload the page.
export default async function ChangesPage() {
  const repositories = await listRepositoryOptions();
  return (
    <main className="page">
      <h1 className="page-title">Failing changes</h1>
      <p className="page-subtitle">Newest failure first. Filter, search, open a change to see its failures and fixes.</p>
      <Suspense fallback={<div className="card muted">Loading…</div>}>
        <TriageView repositories={repositories.map((r) => ({ name: r.name, archived: r.archived }))} />
      </Suspense>
    </main>
  );
}
