import { cache, Suspense } from 'react';
import { notFound } from 'next/navigation';
import { getPageUser, requirePageUser } from '@/lib/auth/page';
import { hasAnyRole } from '@/lib/auth/session';
import { BROWSE_ROLES, REVIEW_ROLES } from '@/common/roles';
import { getChangeDetail } from '@/lib/changes/detail';
import { AppError } from '@/lib/errors';
import { ChangeView } from '@/components/change/change-view';
import '@/components/change/change.css';

export const dynamic = 'force-dynamic';

// one read per request: the title and the page share it
const readDetail = cache((id: string) => getChangeDetail({ id }));

async function loadDetail(id: string) {
  try {
    return await readDetail(id);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') notFound();
    throw err;
  }
}

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // nothing of the change for a user the page will refuse (a grader grades blind)
  const user = await getPageUser();
  const detail = user && hasAnyRole(user, BROWSE_ROLES) ? await readDetail(id).catch(() => null) : null;
  return { title: detail ? `${detail.change.externalId} · ${detail.change.title} · flowfix` : 'Change · flowfix' };
}

// The change page: root cause first, then the diff, the failures, the runs, the log.
export default async function ChangePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requirePageUser(BROWSE_ROLES);
  const detail = await loadDetail(id);
  return (
    <main className="page">
      <Suspense fallback={<div className="card muted">Loading…</div>}>
        <ChangeView changeId={id} initialData={detail} canDecide={hasAnyRole(user, REVIEW_ROLES)} />
      </Suspense>
    </main>
  );
}
