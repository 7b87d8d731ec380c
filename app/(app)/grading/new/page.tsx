import { requirePageUser } from '@/lib/auth/page';
import { GRADING_MANAGER_ROLES } from '@/common/roles';
import { QueueForm } from '@/components/grading/queue-form';
import '@/components/grading/grading.css';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'New grading queue · flowfix' };

export default async function NewQueuePage() {
  await requirePageUser(GRADING_MANAGER_ROLES);
  return (
    <main className="page">
      <h1 className="page-title">New grading queue</h1>
      <p className="page-subtitle">Choose the fixes (filters and an optional random sample), who grades them and how.</p>
      <QueueForm />
    </main>
  );
}
