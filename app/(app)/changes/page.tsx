import { Suspense } from 'react';
import { requirePageUser } from '@/lib/auth/page';
import { BROWSE_ROLES } from '@/common/roles';
import { listRepositoryOptions } from '@/lib/changes/list-changes';
import { ChangesView } from '@/components/changes/changes-view';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Changes · flowfix' };

// The changes list, where triage starts (reviewers, managers, admins: it
// shows reviewers' decisions, which graders must not see). The rows come from
// GET /api/changes so filtering and paging never reload the page.
export default async function ChangesPage() {
  await requirePageUser(BROWSE_ROLES);
  const repositories = await listRepositoryOptions();
  return (
    <main className="page">
      <h1 className="page-title">Failing changes</h1>
      <p className="page-subtitle">Newest failure first. Filter, search, open a change to see its failures and fixes.</p>
      <Suspense fallback={<div className="card muted">Loading…</div>}>
        <ChangesView repositories={repositories.map((r) => ({ name: r.name, archived: r.archived }))} />
      </Suspense>
    </main>
  );
}
