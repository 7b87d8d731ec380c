import { requirePageUser } from '@/lib/auth/page';
import { GRADING_ROLES } from '@/common/roles';
import { GradePage } from '@/components/grading/grade-page';
import '@/components/change/change.css';
import '@/components/grading/grading.css';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Grade · flowfix' };

// The grading page: the next item of the queue (or ?item= to revisit one).
export default async function GradeRoute({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ item?: string }> }) {
  const { id } = await params;
  const { item } = await searchParams;
  await requirePageUser(GRADING_ROLES);
  return (
    <main className="page" style={{ maxWidth: 1480 }}>
      <GradePage queueId={id} itemId={typeof item === 'string' ? item : null} />
    </main>
  );
}
