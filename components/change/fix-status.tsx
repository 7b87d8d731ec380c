import type { FixView } from '@/lib/fixes/views';
import { REJECT_REASONS } from './use-fix-decisions';
import { formatDateTime, shortSha } from '@/common/format';

const LABEL: Record<FixView['status'], string> = {
  READY: 'Ready for review',
  APPLYING: 'Being applied',
  APPLIED: 'Applied',
  REJECTED: 'Rejected',
  STALE: 'Stale',
  DROPPED: 'Dropped',
};
const BADGE: Record<FixView['status'], string> = {
  READY: 'badge-fix_ready',
  APPLYING: 'badge-running',
  APPLIED: 'badge-applied',
  REJECTED: 'badge-rejected',
  STALE: 'badge-stale',
  DROPPED: 'badge-skipped',
};

export function reasonLabel(reason: string | null): string {
  return REJECT_REASONS.find((r) => r.value === reason)?.label ?? reason ?? '';
}

export function FixStatus({ fix }: { fix: FixView }) {
  const d = fix.decision;
  return (
    <div className="fix-status row" data-testid="fix-status" data-status={fix.status}>
      <span className={`badge ${BADGE[fix.status]}`}>{LABEL[fix.status]}</span>
      {fix.status === 'APPLIED' && (
        <span className="small">
          commit{' '}
          <span className="mono" data-testid="fix-applied-commit">
            {shortSha(fix.appliedCommit)}
          </span>
          {fix.appliedBy ? ` by ${fix.appliedBy}` : ''} · {formatDateTime(fix.appliedAt)}
          {d?.kind === 'EDIT_ACCEPT' ? ' · edited before applying' : ''}
        </span>
      )}
      {fix.status === 'REJECTED' && d && (
        <span className="small" data-testid="fix-reject-reason">
          {reasonLabel(d.reason)}
          {d.reasonText ? ` — “${d.reasonText}”` : ''} · by {d.by}
        </span>
      )}
      {fix.status === 'DROPPED' && <span className="small muted">{fix.dropReason ?? 'dropped by a post-execution filter'}</span>}
      {fix.status === 'STALE' && <span className="small muted">The branch moved on since this fix was made; a new run is needed.</span>}
      {!fix.onLatestRevision && fix.status === 'READY' && <span className="small muted">made on revision {fix.revisionNumber}, not the latest</span>}
      <span className="muted small fix-previews">
        {fix.previews} {fix.previews === 1 ? 'preview' : 'previews'}
      </span>
    </div>
  );
}
