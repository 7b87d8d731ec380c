import { requirePageUser } from '@/lib/auth/page';
import { GRADING_ROLES } from '@/common/roles';
import { QueueDetailView } from '@/components/grading/queue-detail';
import '@/components/grading/grading.css';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Grading queue · flowfix' };

export default async function QueuePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePageUser(GRADING_ROLES);
  return (
    <main className="page">
      <QueueDetailView queueId={id} />
    </main>
  );
}
