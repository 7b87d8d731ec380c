import { requirePageUser } from '@/lib/auth/page';
import { GRADING_MANAGER_ROLES } from '@/common/roles';
import { PrecisionView } from '@/components/grading/precision-view';
import '@/components/grading/grading.css';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Precision · flowfix' };

export default async function PrecisionPage() {
  await requirePageUser(GRADING_MANAGER_ROLES);
  return (
    <main className="page">
      <h1 className="page-title">Precision</h1>
      <p className="page-subtitle">How the settled grades judge flowfix’s fixes, with 95% Wilson intervals, and the reviewers’ decisions beside them.</p>
      <PrecisionView />
    </main>
  );
}
