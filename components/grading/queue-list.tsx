'use client';

import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { formatAgo } from '@/common/format';
import { requestJson, retryUnlessClientError } from '../api-client';
import { ProgressBar } from './labels';
import type { QueueSummary } from './types';

export function useQueues() {
  return useQuery({
    queryKey: ['grading', 'queues'],
    queryFn: ({ signal }) => requestJson<{ queues: QueueSummary[] }>('/api/grading/queues', { signal }).then((r) => r.queues),
    retry: retryUnlessClientError,
  });
}

// Every queue the signed-in person may see, with its progress and theirs.
export function QueueList() {
  const queues = useQueues();
  if (queues.isPending) return <div className="card muted">Loading the queues…</div>;
  if (queues.isError)
    return (
      <div className="alert alert-error" role="alert">
        Could not load the queues: {queues.error.message}
      </div>
    );
  if (queues.data.length === 0) {
    return (
      <div className="card empty" data-testid="queues-empty">
        No grading queues yet. A manager creates one from a filter over fixes.
      </div>
    );
  }
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Grading queues">
      <table className="table queue-table" data-testid="queue-list">
        <thead>
          <tr>
            <th>Queue</th>
            <th>Status</th>
            <th>Progress</th>
            <th className="num">Items</th>
            <th className="num">Your labels</th>
            <th aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {queues.data.map((q) => (
            <tr key={q.id} data-testid="queue-row" data-queue-id={q.id}>
              <td>
                <Link href={`/grading/${q.id}`} className="triage-title">
                  {q.name}
                </Link>
                <div className="muted small">
                  by {q.createdBy} · {formatAgo(q.createdAt)} · {q.gradersPerFix} graders per fix
                  {q.leadGrader ? ` · lead ${q.leadGrader.name}` : ''}
                </div>
              </td>
              <td>
                <span className={`badge badge-${q.status.toLowerCase()}`}>{q.status === 'OPEN' ? 'open' : 'closed'}</span>
              </td>
              <td className="queue-progress">
                <ProgressBar progress={q.progress} />
                <div className="muted small" style={{ marginTop: 4 }}>
                  {q.progress.complete} complete{q.progress.disputed !== null ? ` · ${q.progress.disputed} disputed` : ''} · {q.progress.inProgress} in progress
                  · {q.progress.waiting} waiting
                </div>
              </td>
              <td className="num" data-label="items">
                {q.progress.items}
              </td>
              <td className="num" data-label="your labels">
                {q.you.grader ? q.you.labelled : '—'}
              </td>
              <td className="num">
                {q.you.grader && q.status === 'OPEN' && (
                  <Link className="btn btn-primary btn-small" href={`/grading/${q.id}/grade`} data-testid="start-grading">
                    Grade
                  </Link>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
