import { Suspense, type ReactNode } from 'react';
import { requirePageUser } from '@/lib/auth/page';
import { INSIGHTS_ROLES } from '@/common/roles';
import { listRepositoryOptions } from '@/lib/changes/list-changes';
import { InsightsFilterBar } from '@/components/insights/filter-bar';
import { InsightsNav } from '@/components/insights/insights-nav';

export const dynamic = 'force-dynamic';

// Insights: managers and admins (anyone else gets the forbidden page, 403).
// The figures come from GET /api/insights/[section]; the filter is the URL.
export default async function InsightsLayout({ children }: { children: ReactNode }) {
  await requirePageUser(INSIGHTS_ROLES);
  const repositories = await listRepositoryOptions();
  return (
    <main className="page insights">
      <h1 className="page-title">Insights</h1>
      <p className="page-subtitle">Is flowfix worth running, where, and with which policy and model: the funnel, adoption, latency, cost and quality.</p>
      <Suspense fallback={<div className="card muted">Loading…</div>}>
        <InsightsNav />
        <InsightsFilterBar repositories={repositories.map((r) => ({ name: r.name, archived: r.archived }))} />
        {children}
      </Suspense>
    </main>
  );
}
