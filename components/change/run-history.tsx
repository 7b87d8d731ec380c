import Link from 'next/link';
import type { ChangeDetail } from './use-change-detail';
import { RUN_STATUS_LABELS, exitReasonLabel, humaniseCode, policyLabel, triggerLabel } from '@/common/labels';
import { formatCost, formatCostExact, formatDateTime, formatDuration, formatTokens } from '@/common/format';

const RUN_BADGE: Record<string, string> = {
  QUEUED: 'badge-queued',
  RUNNING: 'badge-running',
  FIXED: 'badge-fix_ready',
  NO_FIX: 'badge-no_fix',
  FAILED: 'badge-rejected',
  CANCELLED: 'badge-stale',
};

export function RunHistory({ runs }: { runs: ChangeDetail['runs'] }) {
  return (
    <section className="card" aria-labelledby="runs-title" data-testid="run-history">
      <h2 className="card-title" id="runs-title">
        Runs <span className="muted small">({runs.length})</span>
      </h2>
      {runs.length === 0 ? (
        <p className="muted">No repair run yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table run-table">
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Trigger · policy</th>
                <th scope="col">Duration</th>
                <th scope="col">Tools · tokens · cost</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.id} data-testid="run-row" data-run-id={r.id}>
                  <td>
                    <Link href={`/runs/${encodeURIComponent(r.id)}`} data-testid="run-link">
                      {formatDateTime(r.createdAt)}
                    </Link>
                    <div className="muted small">
                      rev {r.revisionNumber}
                      {r.requestedBy ? ` · by ${r.requestedBy}` : ''}
                    </div>
                  </td>
                  <td>
                    <span className={`badge ${RUN_BADGE[r.status] ?? ''}`}>
                      {RUN_STATUS_LABELS[r.status as keyof typeof RUN_STATUS_LABELS] ?? humaniseCode(r.status)}
                    </span>
                    {r.exitReason && r.exitReason !== 'fixed' && (
                      <div className="muted small run-exit" title={r.exitDetail ?? undefined}>
                        {exitReasonLabel(r.exitReason)}
                      </div>
                    )}
                  </td>
                  <td>
                    {triggerLabel(r.trigger).toLowerCase()} · {policyLabel(r.policy)}
                    {r.model && <div className="muted small">{r.model}</div>}
                  </td>
                  <td>{formatDuration(r.durationMs)}</td>
                  <td className="muted">
                    {r.toolCalls} · {formatTokens(r.tokens)} · <span title={formatCostExact(r.costUsd)}>{formatCost(r.costUsd)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
