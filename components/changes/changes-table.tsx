'use client';

import Link from 'next/link';
import type { ChangeListItem } from './use-changes';
import { formatAge, formatExactTime } from '@/common/format';
import { STATUS_LABELS } from './status-labels';
import { ActiveRunBadge } from '@/components/run/active-run-badge';
import { statusReasonLabel } from '@/common/labels';

function StatusCell({ item }: { item: ChangeListItem }) {
  if (item.activeRun) {
    return (
      <td className="triage-status-cell">
        <ActiveRunBadge run={item.activeRun} />
      </td>
    );
  }
  return (
    <td className="triage-status-cell">
      <span className={`badge badge-${item.status.toLowerCase()}`} title={item.statusReason ? statusReasonLabel(item.statusReason) : undefined}>
        {STATUS_LABELS[item.status]}
      </span>
      {item.statusReason && (
        <div className="muted small triage-reason" data-testid="triage-status-reason">
          {statusReasonLabel(item.statusReason)}
        </div>
      )}
    </td>
  );
}

function ChangeCell({ item }: { item: ChangeListItem }) {
  return (
    <td className="triage-change-cell">
      <Link href={`/changes/${encodeURIComponent(item.id)}`} className="triage-title">
        {item.title}
      </Link>
      <div className="muted small">
        <span className="mono">{item.externalId}</span>
        <span aria-hidden> · </span>
        <span className="mono">{item.branch}</span>
        {item.isHistory && (
          <>
            {' '}
            <span className="badge badge-history" title="Generated demo history, not a real run">
              history
            </span>
          </>
        )}
      </div>
    </td>
  );
}

function AuthorCell({ item, onAuthor }: { item: ChangeListItem; onAuthor: (author: string) => void }) {
  return (
    <td>
      <button type="button" className="triage-link-button" title={`Show only changes by ${item.author}`} onClick={() => onAuthor(item.author)}>
        {item.author}
      </button>
      {item.authorKind === 'BOT' && (
        <>
          {' '}
          <span className="badge badge-bot" data-testid="triage-bot-badge">
            bot
          </span>
        </>
      )}
    </td>
  );
}

export function ChangesTable({ items, onAuthor }: { items: ChangeListItem[]; onAuthor: (author: string) => void }) {
  return (
    <div className="table-wrap">
      <table className="table triage-table" data-testid="triage-table">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Change</th>
            <th scope="col">Repository</th>
            <th scope="col">Author</th>
            <th scope="col" className="triage-num" title="Failing tests on the latest revision">
              Failing
            </th>
            <th scope="col" className="triage-num" title="Revision (patch set) number">
              Rev
            </th>
            <th scope="col">Last failure</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id} data-testid="triage-row" data-status={item.status} data-change-id={item.id} data-repository={item.repository.name}>
              <StatusCell item={item} />
              <ChangeCell item={item} />
              <td>{item.repository.name}</td>
              <AuthorCell item={item} onAuthor={onAuthor} />
              <td className="triage-num" data-label="failing tests">
                {item.failingTestCount}
              </td>
              <td className="triage-num" data-label="revision">
                {item.revisionNumber}
              </td>
              <td className="triage-age">
                <time dateTime={item.lastFailureAt} title={formatExactTime(item.lastFailureAt)}>
                  {formatAge(item.ageMs)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
