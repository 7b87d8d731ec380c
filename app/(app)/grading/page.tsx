import Link from 'next/link';
import { requirePageUser } from '@/lib/auth/page';
import { hasAnyRole } from '@/lib/auth/session';
import { GRADING_MANAGER_ROLES, GRADING_ROLES } from '@/common/roles';
import { QueueList } from '@/components/grading/queue-list';
import '@/components/grading/grading.css';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Grading · flowfix' };

// Grading queues: progress for everyone who grades, creation for managers.
export default async function GradingPage() {
  const user = await requirePageUser(GRADING_ROLES);
  const manager = hasAnyRole(user, GRADING_MANAGER_ROLES);
  return (
    <main className="page">
      <div className="grading-head">
        <div>
          <h1 className="page-title">Grading</h1>
          <p className="page-subtitle">Blind expert labels on fixes: correct, overfitting, incorrect or irrelevant. Settled labels feed precision.</p>
        </div>
        {manager && (
          <div className="row">
            <Link className="btn" href="/grading/precision" data-testid="precision-link">
              Precision
            </Link>
            <Link className="btn btn-primary" href="/grading/new" data-testid="new-queue-link">
              New queue
            </Link>
          </div>
        )}
      </div>
      <QueueList />
    </main>
  );
}
