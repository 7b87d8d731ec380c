import { Suspense } from 'react';
import { requirePageUser } from '@/lib/auth/page';
import { hasAnyRole } from '@/lib/auth/session';
import { BROWSE_ROLES, REVIEW_ROLES } from '@/common/roles';
import { ReviewQueue } from '@/components/review/review-queue';
import '@/components/change/change.css';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Review · flowfix' };

// Fixes waiting for a decision, newest first, with keyboard shortcuts.
export default async function ReviewPage() {
  const user = await requirePageUser(BROWSE_ROLES);
  return (
    <main className="page">
      <h1 className="page-title">Review queue</h1>
      <p className="page-subtitle">Fixes waiting for a decision, newest first. Read the root cause, open the diff, decide.</p>
      <Suspense fallback={<div className="card muted">Loading…</div>}>
        <ReviewQueue canDecide={hasAnyRole(user, REVIEW_ROLES)} />
      </Suspense>
    </main>
  );
}
