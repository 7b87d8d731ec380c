import type { ChangeDetail } from './use-change-detail';
import { STATUS_LABELS } from '@/components/changes/status-labels';
import type { ChangeStatusName } from '@/common/change-query';
import { shortSha } from '@/common/format';
import { statusReasonLabel } from '@/common/labels';

export function ChangeHeader({ detail, actions }: { detail: ChangeDetail; actions?: React.ReactNode }) {
  const { change, revision } = detail;
  const ciUrl = revision?.ciUrl ?? null;
  return (
    <header className="card change-header" data-testid="change-header">
      <div className="change-header-top">
        <div className="change-header-title">
          <h1 className="page-title" data-testid="change-title">
            {change.title}
          </h1>
          <div className="row muted small">
            <span className="mono" data-testid="change-external-id">
              {change.externalId}
            </span>
            <span aria-hidden>·</span>
            <span data-testid="change-repository">{change.repository.name}</span>
            <span aria-hidden>·</span>
            <span className="mono" title="Branch">
              {change.branch}
            </span>
            <span aria-hidden>·</span>
            <span title={`head ${change.headRev}`}>
              revision {change.revisionNumber} <span className="mono">({shortSha(change.headRev)})</span>
            </span>
            {change.isHistory && (
              <span className="badge badge-history" title="Generated demo history, not a real run">
                history
              </span>
            )}
          </div>
        </div>
        <div className="change-header-actions">{actions}</div>
      </div>
      <div className="row change-header-meta">
        <span className={`badge badge-${change.status.toLowerCase()}`} data-testid="change-status">
          {STATUS_LABELS[change.status as ChangeStatusName] ?? change.status}
        </span>
        {change.statusReason && (
          <span className="muted small" data-testid="change-status-reason">
            {statusReasonLabel(change.statusReason)}
          </span>
        )}
        <span className="muted small">by</span>
        <span data-testid="change-author">{change.author}</span>
        {change.authorKind === 'BOT' && (
          <span className="badge badge-bot" data-testid="change-bot-badge">
            bot
          </span>
        )}
        <span className="change-header-links">
          {ciUrl && (
            <a href={ciUrl} target="_blank" rel="noopener noreferrer nofollow" data-testid="change-ci-link">
              CI build ↗
            </a>
          )}
          {change.url && (
            <a href={change.url} target="_blank" rel="noopener noreferrer nofollow" data-testid="change-url">
              Change ↗
            </a>
          )}
        </span>
      </div>
      {change.description && <p className="change-description">{change.description}</p>}
    </header>
  );
}
