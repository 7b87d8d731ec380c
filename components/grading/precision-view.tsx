'use client';

import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { formatPercent } from '@/common/format';
import { settledSourcesText } from '@/common/grading';
import { rejectReasonLabel } from '@/common/labels';
import { requestJson, retryUnlessClientError } from '../api-client';
import type { PrecisionRow, Share } from './types';
import type { PrecisionResponse } from '@/lib/insights/precision';
import type { Jsonify } from '@/common/json';

const GROUPS = [
  ['repository', 'Repository'],
  ['policy', 'Policy'],
  ['model', 'Model'],
  ['month', 'Month'],
] as const;

function ShareCell({ share, testId }: { share: Share; testId?: string }) {
  return (
    <td className="num" data-testid={testId}>
      <span className="share-bar" style={{ width: `${Math.round((share.share ?? 0) * 60)}px` }} aria-hidden />
      {formatPercent(share.share, 1, 'n/a')}{' '}
      <span className="interval" title="95% Wilson interval">
        {share.low === null ? '' : `${formatPercent(share.low, 0, 'n/a')}–${formatPercent(share.high, 0, 'n/a')}`}
      </span>
      <div className="muted small">{share.count}</div>
    </td>
  );
}

function Rows({ rows }: { rows: PrecisionRow[] }) {
  return (
    <>
      {rows.map((r) => (
        <tr key={r.key ?? 'all'} data-testid="precision-row">
          <td>{r.label}</td>
          <td className="num">{r.settled}</td>
          <ShareCell share={r.correct} testId={r.key === null ? 'precision-correct' : undefined} />
          <ShareCell share={r.overfitting} />
          <ShareCell share={r.incorrect} />
          <ShareCell share={r.irrelevant} />
        </tr>
      ))}
    </>
  );
}

// Precision as the graders judged it: label shares over settled fixes with 95%
// Wilson intervals, grouped, and the reviewers' decisions beside the verdicts.
export function PrecisionView() {
  const [groupBy, setGroupBy] = useState<string>('repository');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const params = new URLSearchParams({ groupBy, ...(from ? { from } : {}), ...(to ? { to } : {}) });
  const data = useQuery({
    queryKey: ['grading', 'precision', params.toString()],
    queryFn: ({ signal }) => requestJson<Jsonify<PrecisionResponse>>(`/api/grading/precision?${params}`, { signal }),
    retry: retryUnlessClientError,
  });
  return (
    <div className="stack">
      <div className="toolbar">
        <label className="field">
          Group by
          <select className="select" value={groupBy} onChange={(e) => setGroupBy(e.target.value)} data-testid="precision-group">
            {GROUPS.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Fixes from
          <input className="input" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label className="field">
          Before
          <input className="input" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
      </div>
      {data.isPending && <div className="card muted">Loading…</div>}
      {data.isError && <div className="alert alert-error">{data.error.message}</div>}
      {data.data && (
        <>
          <div className="figure-row">
            <div className="figure" data-testid="precision-settled">
              <div className="figure-name">Settled fixes</div>
              <div className="figure-value">{data.data.overall.settled}</div>
              <div className="figure-note">
                automatic or settled by a person
                {data.data.overall.settled > 0 && <span data-testid="precision-settled-sources">: {settledSourcesText(data.data.sources)}</span>}
              </div>
            </div>
            <div className="figure">
              <div className="figure-name">Correct</div>
              <div className="figure-value">{formatPercent(data.data.overall.correct.share, 1, 'n/a')}</div>
              <div className="figure-note">
                95% interval {formatPercent(data.data.overall.correct.low, 1, 'n/a')} – {formatPercent(data.data.overall.correct.high, 1, 'n/a')}
              </div>
            </div>
            <div className="figure" data-testid="accepted-bad">
              <div className="figure-name">Accepted, judged bad</div>
              <div className="figure-value">
                {data.data.reviewers.acceptedJudgedBad} <span className="muted small">of {data.data.reviewers.acceptedSettled}</span>
              </div>
              <div className="figure-note">applied fixes the graders found overfitting or incorrect</div>
            </div>
            <div className="figure" data-testid="rejected-correct">
              <div className="figure-name">Rejected, judged correct</div>
              <div className="figure-value">
                {data.data.reviewers.rejectedJudgedCorrect} <span className="muted small">of {data.data.reviewers.rejectedSettled}</span>
              </div>
              <div className="figure-note">
                {data.data.reviewers.rejectedCorrectByReason.length === 0
                  ? 'no such rejection'
                  : data.data.reviewers.rejectedCorrectByReason.map((r) => `${rejectReasonLabel(r.reason)} ${r.count}`).join(' · ')}
              </div>
            </div>
          </div>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Precision">
            <table className="table" data-testid="precision-table">
              <thead>
                <tr>
                  <th>{GROUPS.find(([v]) => v === groupBy)?.[1]}</th>
                  <th className="num">Settled</th>
                  <th className="num">Correct</th>
                  <th className="num">Overfitting</th>
                  <th className="num">Incorrect</th>
                  <th className="num">Irrelevant</th>
                </tr>
              </thead>
              <tbody>
                <Rows rows={data.data.groups} />
                <Rows rows={[data.data.overall]} />
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
