'use client';

import Link from 'next/link';
import type { FixView } from '@/lib/fixes/views';
import { FixSummary } from './fix-summary';
import { FixEvidence } from './fix-evidence';
import { FixStatus } from './fix-status';
import { FixDecisions } from './fix-decisions';
import { PatchActions } from './patch-actions';
import { ChangedLines } from '@/components/diff/changed-lines';
import { formatDateTime } from '@/common/format';
import { fixHistoryLabel, fixTitle } from '@/common/fix-choice';

/**
 * Where a reviewer's edit of this fix stands: being validated (the run to
 * follow), or refused with the run's reason (the tests that failed, with
 * their messages). Nothing once it was applied: the card shows the edit.
 */
function RevalidationNote({ fix, submittedRunId }: { fix: FixView; submittedRunId: string | null }) {
  const r = fix.revalidation;
  // the page's data may not list the run a submit just started yet
  const pending = submittedRunId !== null && r?.runId !== submittedRunId;
  const running = pending || r?.status === 'QUEUED' || r?.status === 'RUNNING';
  const runId = pending ? submittedRunId : r?.runId;
  if (fix.status !== 'READY' || !runId) return null;
  if (running) {
    return (
      <div className="alert alert-info small" role="status" data-testid="fix-revalidation" data-state="running">
        The edited fix is being compiled and tested again; it is applied if it passes.{' '}
        <Link href={`/runs/${encodeURIComponent(runId)}`} data-testid="edit-run-link">
          Follow its validation
        </Link>
      </div>
    );
  }
  if (!r?.message) return null;
  return (
    <div className="alert alert-error small" role="alert" data-testid="fix-revalidation" data-state="refused">
      The edited fix was not applied: <span data-testid="fix-revalidation-reason">{r.message}</span>{' '}
      <Link href={`/runs/${encodeURIComponent(r.runId)}`} data-testid="edit-run-link">
        See the run
      </Link>
    </div>
  );
}

// Root cause first (FlowAgent: reviewers read it before the diff), then how
// the fix was validated, the changed lines (nothing is accepted unseen; the
// side-by-side Monaco view is "Preview diff"), then the decision.
export function FixCard({
  fix,
  canDecide,
  diffOpen,
  editing,
  onToggleDiff,
  onEdit,
  submittedRunId = null,
  decisionsKey = 0,
}: {
  fix: FixView;
  canDecide: boolean;
  diffOpen: boolean;
  editing: boolean;
  onToggleDiff: () => void;
  onEdit: () => void;
  /** the re-validation run a reviewer's submit just started on this page */
  submittedRunId?: string | null;
  /** changes when an edit starts: the decisions' earlier messages are not about it */
  decisionsKey?: number;
}) {
  return (
    <section className="card fix-card" aria-labelledby="fix-title" data-testid="fix-card" data-fix-id={fix.id}>
      <div className="fix-card-head">
        <h2 className="card-title" id="fix-title" data-testid="fix-card-title">
          {fixTitle(fix.status)}
        </h2>
        <span className="muted small">
          {formatDateTime(fix.createdAt)} · <Link href={`/runs/${encodeURIComponent(fix.runId)}`}>run</Link>
          {fix.isHistory && (
            <>
              {' '}
              <span className="badge badge-history">history</span>
            </>
          )}
        </span>
      </div>
      {(fix.status === 'DROPPED' || fix.status === 'STALE') && (
        <p className="small muted" data-testid="fix-not-offered">
          This fix is {fixHistoryLabel(fix)}; it is kept for the record and cannot be applied.
        </p>
      )}
      <h3 className="fix-section-title">Root cause</h3>
      <FixSummary html={fix.summaryHtml} />
      <h3 className="fix-section-title">Validation</h3>
      <FixEvidence fix={fix} />
      {!diffOpen && (
        <>
          <h3 className="fix-section-title" data-testid="fix-changes-title">
            Changes <span className="diff-add">+{fix.diffStat.additions}</span> <span className="diff-del">−{fix.diffStat.deletions}</span>
            {fix.edited && (
              <>
                {' '}
                <span className="badge badge-edited" data-testid="fix-edited" title="What was committed: the reviewer's edit of the agent's fix">
                  reviewer&apos;s edit
                </span>
              </>
            )}
          </h3>
          <ChangedLines changes={fix.changes} more="in Preview diff" />
        </>
      )}
      <RevalidationNote fix={fix} submittedRunId={submittedRunId} />
      <div className="fix-card-foot">
        <FixStatus fix={fix} />
        <div className="row">
          <button type="button" className="btn" data-testid="fix-toggle-diff" aria-expanded={diffOpen} onClick={onToggleDiff}>
            {diffOpen ? 'Hide diff' : 'Preview diff'}
          </button>
          {fix.status === 'READY' && !fix.isHistory && <PatchActions fixId={fix.id} />}
        </div>
        {fix.isHistory && fix.status === 'READY' ? (
          <p className="muted small" data-testid="fix-history-note">
            An example from the demo&apos;s seeded history: there is no branch behind it, so it is read-only.
          </p>
        ) : (
          <FixDecisions
            key={`${fix.id}:${decisionsKey}`}
            fixId={fix.id}
            open={fix.status === 'READY'}
            canDecide={canDecide}
            editing={editing}
            onEdit={onEdit}
          />
        )}
      </div>
    </section>
  );
}
