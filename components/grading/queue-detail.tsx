'use client';

import Link from 'next/link';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { formatAgo } from '@/common/format';
import { requestJson, retryUnlessClientError } from '../api-client';
import { ProgressBar } from './labels';
import { DisputedList } from './disputed-list';
import { AgreementView } from './agreement-view';
import { MyLabels } from './my-labels';
import type { QueueDetail } from './types';
import { DECISION_KIND_LABELS, humaniseCode } from '@/common/labels';

export function useQueueDetail(queueId: string) {
  return useQuery({
    queryKey: ['grading', 'queue', queueId],
    queryFn: ({ signal }) => requestJson<QueueDetail>(`/api/grading/queues/${encodeURIComponent(queueId)}`, { signal }),
    retry: retryUnlessClientError,
  });
}

function describeFilter(q: QueueDetail): string {
  const f = q.filter;
  const parts: string[] = [];
  if (f.statuses.length) parts.push(`status ${f.statuses.map((s) => s.toLowerCase()).join(' or ')}`);
  if (f.decisions.length)
    parts.push(
      `decision ${f.decisions.map((s) => (DECISION_KIND_LABELS[s as keyof typeof DECISION_KIND_LABELS] ?? humaniseCode(s)).toLowerCase()).join(' or ')}`,
    );
  if (f.policies.length) parts.push(`policy ${f.policies.join(' or ')}`);
  if (f.models.length) parts.push(`model ${f.models.join(' or ')}`);
  if (f.repositoryIds.length) parts.push(`${f.repositoryIds.length} repositories`);
  if (f.from) parts.push(`from ${String(f.from).slice(0, 10)}`);
  if (f.to) parts.push(`before ${String(f.to).slice(0, 10)}`);
  if (f.sample) parts.push(`random sample of ${f.sample} (seed ${f.seed})`);
  if (f.ungradedOnly) parts.push('not yet graded');
  if (f.includeHistory) parts.push('demo history included');
  return parts.length ? parts.join(' · ') : 'every fix';
}

// One queue: progress, each grader's, and for managers and the lead grader
// the disputed items, the agreement figures and the export.
export function QueueDetailView({ queueId }: { queueId: string }) {
  const queryClient = useQueryClient();
  const detail = useQueueDetail(queueId);
  const status = useMutation({
    mutationFn: (next: 'OPEN' | 'CLOSED') => requestJson(`/api/grading/queues/${encodeURIComponent(queueId)}`, { method: 'PATCH', body: { status: next } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['grading'] }),
  });
  if (detail.isPending) return <div className="card muted">Loading the queue…</div>;
  if (detail.isError)
    return (
      <div className="alert alert-error" role="alert">
        Could not load the queue: {detail.error.message}
      </div>
    );
  const q = detail.data;
  const leads = q.you.manager || q.you.lead;
  return (
    <div className="stack" data-testid="queue-detail">
      <div className="grading-head">
        <div>
          <h1 className="page-title">
            {q.name}{' '}
            <span className={`badge badge-${q.status.toLowerCase()}`} data-testid="queue-status">
              {q.status === 'OPEN' ? 'open' : 'closed'}
            </span>
          </h1>
          <p className="page-subtitle">
            Created by {q.createdBy} {formatAgo(q.createdAt)} · {q.gradersPerFix} graders per fix · reviewers’ decisions {q.showDecisions ? 'shown' : 'hidden'}{' '}
            · {describeFilter(q)}
          </p>
        </div>
        <div className="row">
          {q.you.grader && q.status === 'OPEN' && (
            <Link className="btn btn-primary" href={`/grading/${q.id}/grade`} data-testid="start-grading">
              {q.you.labelled > 0 ? 'Continue grading' : 'Start grading'}
            </Link>
          )}
          {leads && (
            <>
              <a className="btn" href={`/api/grading/queues/${q.id}/export?format=csv`} data-testid="export-csv" download>
                Export CSV
              </a>
              <a className="btn" href={`/api/grading/queues/${q.id}/export?format=json`} data-testid="export-json" download>
                JSON
              </a>
            </>
          )}
          {q.you.manager && (
            <button
              type="button"
              className={`btn ${q.status === 'OPEN' ? 'btn-danger' : ''}`}
              onClick={() => status.mutate(q.status === 'OPEN' ? 'CLOSED' : 'OPEN')}
              disabled={status.isPending}
              data-testid="queue-toggle"
            >
              {q.status === 'OPEN' ? 'Close queue' : 'Reopen queue'}
            </button>
          )}
        </div>
      </div>
      {status.isError && <div className="alert alert-error">{status.error.message}</div>}
      {q.instructions && (
        <section className="card">
          <h2 className="card-title">Instructions</h2>
          <p className="grade-instructions" style={{ margin: 0 }}>
            {q.instructions}
          </p>
        </section>
      )}
      <div className="grid-2 grading-top">
        <section className="card" aria-labelledby="progress-title">
          <h2 className="card-title" id="progress-title">
            Progress <span className="muted small">({q.progress.items} items)</span>
          </h2>
          <ProgressBar progress={q.progress} legend />
        </section>
        <section className="card" aria-labelledby="graders-title">
          <h2 className="card-title" id="graders-title">
            Graders
          </h2>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Graders">
            <table className="table table-cards" data-testid="grader-progress">
              <thead>
                <tr>
                  <th>Grader</th>
                  <th className="num">Labelled</th>
                  <th className="num">Skipped</th>
                  <th className="num">Reserved now</th>
                </tr>
              </thead>
              <tbody>
                {q.graders.map((g) => (
                  <tr key={g.id}>
                    <td className="table-card-title">
                      {g.name}
                      {q.leadGrader?.id === g.id && (
                        <span className="badge" style={{ marginLeft: 6 }}>
                          lead
                        </span>
                      )}
                    </td>
                    <td className="num" data-label="Labelled">
                      {g.labelled} <span className="muted small">/ {q.progress.items}</span>
                    </td>
                    <td className="num" data-label="Skipped">
                      {g.skipped}
                    </td>
                    <td className="num" data-label="Reserved now">
                      {g.reserved}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      </div>
      {q.you.grader && <MyLabels queueId={q.id} />}
      {leads && <DisputedList queueId={q.id} />}
      {leads && <AgreementView queueId={q.id} />}
    </div>
  );
}
