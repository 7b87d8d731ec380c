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
}: {
  fix: FixView;
  canDecide: boolean;
  diffOpen: boolean;
  editing: boolean;
  onToggleDiff: () => void;
  onEdit: () => void;
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
          <h3 className="fix-section-title">
            Changes{' '}
            <span className="diff-add">+{fix.diffStat.additions}</span> <span className="diff-del">−{fix.diffStat.deletions}</span>
          </h3>
          <ChangedLines changes={fix.changes} more="in Preview diff" />
        </>
      )}
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
            key={fix.id}
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
