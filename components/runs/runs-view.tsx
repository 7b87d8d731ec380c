'use client';

import { LoadMore } from '@/components/load-more';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useMemo } from 'react';
import { RUN_STATUSES, runStartedCell, type RunListItem } from '@/common/run-list';
import { formatDuration } from '@/common/format';
import { FIX_STATUS_LABELS, exitReasonLabel, policyLabel, triggerLabel } from '@/common/labels';
import { STATUS_TEXT } from '@/components/run/format';
import { runFiltersToParams, useRuns, type RunFilters } from './use-runs';

// Every run, filterable by status, repository and policy; the filters live in
// the URL so a view can be shared and survives going back.

function readFilters(params: URLSearchParams): RunFilters {
  const status = (params.get('status') ?? '').split(',').filter((s) => (RUN_STATUSES as readonly string[]).includes(s));
  return { status, repository: params.get('repository') ?? '', policy: params.get('policy') ?? '' };
}

/** When the run began, not when it was queued (common/run-list.ts). */
function StartedCell({ run }: { run: RunListItem }) {
  const cell = runStartedCell(run, Date.now());
  return (
    <td title={cell.title} data-testid="runs-started" data-started-at={cell.at ?? ''}>
      {cell.started ? cell.text : <span className="muted">{cell.text}</span>}
    </td>
  );
}

export function RunsView() {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const filters = useMemo(() => readFilters(new URLSearchParams(search.toString())), [search]);
  const query = useRuns(filters);
  const items = query.data?.pages.flatMap((p) => p.items) ?? [];
  const first = query.data?.pages[0];
  const setFilters = (next: RunFilters) => {
    const qs = runFiltersToParams(next).toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };
  const toggleStatus = (s: string) =>
    setFilters({ ...filters, status: filters.status.includes(s) ? filters.status.filter((x) => x !== s) : [...filters.status, s] });

  return (
    <div className="stack" data-testid="runs-view">
      <div className="toolbar runs-filters" role="group" aria-label="Filter runs">
        <fieldset className="runs-status-filter">
          <legend className="small muted">Status</legend>
          {RUN_STATUSES.map((s) => (
            <label key={s} className="admin-check small">
              <input type="checkbox" checked={filters.status.includes(s)} onChange={() => toggleStatus(s)} data-testid={`runs-status-${s}`} />
              {STATUS_TEXT[s]}
            </label>
          ))}
        </fieldset>
        <label className="field small">
          Repository
          <select
            className="input"
            value={filters.repository}
            onChange={(e) => setFilters({ ...filters, repository: e.target.value })}
            data-testid="runs-repository"
          >
            <option value="">All repositories</option>
            {(first?.repositories ?? []).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label className="field small">
          Policy
          <select className="input" value={filters.policy} onChange={(e) => setFilters({ ...filters, policy: e.target.value })} data-testid="runs-policy">
            <option value="">All policies</option>
            {(first?.policies ?? []).map((p) => (
              <option key={p} value={p}>
                {policyLabel(p)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {query.isPending && <div className="card muted">Loading runs…</div>}
      {query.isError && (
        <div className="alert alert-error" role="alert">
          Could not load the runs: {query.error.message}
        </div>
      )}
      {query.isSuccess && items.length === 0 && (
        <div className="card empty" data-testid="runs-empty">
          No runs match these filters.
        </div>
      )}
      {items.length > 0 && (
        <div className="table-wrap">
          <table className="table runs-table" data-testid="runs-table">
            <caption className="visually-hidden">Repair runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Change</th>
                <th scope="col">Repository</th>
                <th scope="col">Policy</th>
                <th scope="col">Started</th>
                <th scope="col">Took</th>
                <th scope="col">Fix</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r) => (
                <tr key={r.id} data-testid="runs-row" data-run-id={r.id}>
                  <td>
                    <Link href={`/runs/${encodeURIComponent(r.id)}`} className={`badge badge-run-${r.status.toLowerCase()}`}>
                      {STATUS_TEXT[r.status] ?? r.status}
                    </Link>
                    {r.exitReason && r.status !== 'FIXED' && (
                      <div className="muted small" data-testid="runs-exit-reason">
                        {exitReasonLabel(r.exitReason)}
                      </div>
                    )}
                  </td>
                  <td className="triage-change-cell">
                    <Link href={`/changes/${encodeURIComponent(r.change.id)}`} className="triage-title">
                      {r.change.title}
                    </Link>
                    <div className="muted small">
                      <span className="mono">{r.change.externalId}</span> · {triggerLabel(r.trigger).toLowerCase()}
                      {r.change.isHistory && (
                        <>
                          {' '}
                          <span className="badge badge-history">history</span>
                        </>
                      )}
                    </div>
                  </td>
                  <td>{r.repository}</td>
                  <td>
                    {policyLabel(r.policy)}
                    {r.model && <div className="muted small mono">{r.model}</div>}
                  </td>
                  <StartedCell run={r} />
                  <td>{r.durationMs !== null ? formatDuration(r.durationMs) : '—'}</td>
                  <td>
                    {r.fix ? (
                      <Link href={`/changes/${encodeURIComponent(r.change.id)}?fix=${encodeURIComponent(r.fix.id)}`}>
                        {(FIX_STATUS_LABELS[r.fix.status as keyof typeof FIX_STATUS_LABELS] ?? r.fix.status).toLowerCase()}
                      </Link>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore query={query} />
    </div>
  );
}
