import { notFound } from 'next/navigation';
import { requirePageUser } from '@/lib/auth/page';
import { hasAnyRole } from '@/lib/auth/session';
import { BROWSE_ROLES, REVIEW_ROLES } from '@/common/roles';
import { getRunById } from '@/lib/runs/queries';
import { readRunEventsAfter } from '@/lib/runs/stream';
import { RunView } from '@/components/run/run-view';
import '@/components/run/run.css';

export const dynamic = 'force-dynamic';

// How many saved events the page renders itself; the stream sends the rest.
const INITIAL_EVENTS = 2_000;

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return { title: `Run ${id.slice(-8)} · flowfix` };
}

// The run page: a repair run's trajectory as it happens (SSE), its phases
// with a time-left estimate, live counters, and a cancel button.
export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requirePageUser(BROWSE_ROLES);
  const run = await getRunById({ id });
  if (!run) notFound();
  const events = await readRunEventsAfter({ runId: id, afterSeq: -1, limit: INITIAL_EVENTS });
  return (
    <main className="page">
      <RunView initialRun={run} initialEvents={events} canCancel={hasAnyRole(user, REVIEW_ROLES)} serverNow={Date.now()} />
    </main>
  );
}
