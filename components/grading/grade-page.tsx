'use client';

import Link from 'next/link';
import { useCallback, useEffect, useState } from 'react';
import { FailureEvidence } from '@/components/change/failure-evidence';
import { GateChain } from '@/components/change/fix-evidence';
import { FixSummary } from '@/components/change/fix-summary';
import { FixDiff } from '@/components/diff/fix-diff';
import { GradeKeysDialog } from './grade-keys';
import { GradePanel, GradeQuickBar } from './grade-panel';
import { DiffText } from './labels';
import { useGradeForm } from './use-grade-form';
import { useGradeItem, type GradeItemActions } from './use-grade-item';
import type { GradingItemView } from './types';

// The grading page: what a grader needs to judge one fix and nothing that
// biases (no other label, no consensus, no reviewers' decision unless the
// queue allows it — until the item is settled), keyboard first (the keys are
// in grade-keys.tsx). Once the item has all its labels, or the grader has
// seen the other labels, their label is final (the server refuses a
// revision) and the panel offers a dispute with a note instead. The data and the actions are `useGradeItem`; the
// draft and the keys are `useGradeForm`; the side panel is `GradePanel`.

export function GradePage({ queueId, itemId }: { queueId: string; itemId: string | null }) {
  const actions = useGradeItem(queueId, itemId);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 2500);
    return () => clearTimeout(t);
  }, [notice]);

  const { item } = actions;
  if (item.isPending)
    return (
      <div className="card muted" data-testid="grade-loading">
        Loading the next item…
      </div>
    );
  if (item.isError) {
    return (
      <div className="alert alert-error" role="alert" data-testid="grade-error">
        {item.error.message} · <Link href="/grading">Back to the queues</Link>
      </div>
    );
  }
  if (!item.data) {
    return (
      <div className="card empty" data-testid="grade-done">
        <p style={{ fontSize: 16, color: 'var(--text)', fontWeight: 600 }}>Nothing left for you in this queue.</p>
        <p>Every item has your label, is reserved by other graders, or is settled.</p>
        <div className="row" style={{ justifyContent: 'center' }}>
          <Link className="btn" href={`/grading/${queueId}`}>
            Back to the queue
          </Link>
          <Link className="btn" href={`/grading/${queueId}#my-labels`}>
            My labels
          </Link>
        </div>
      </div>
    );
  }
  // one mount per item: the draft starts from the grader's own label
  return <GradeItem key={item.data.item.id} queueId={queueId} itemId={itemId} it={item.data} actions={actions} notice={notice} onNotice={setNotice} />;
}

function GradeItem({
  queueId,
  itemId,
  it,
  actions,
  notice,
  onNotice,
}: {
  queueId: string;
  itemId: string | null;
  it: GradingItemView;
  actions: GradeItemActions;
  notice: string | null;
  onNotice: (text: string) => void;
}) {
  const [showKeys, setShowKeys] = useState(false);
  const [file, setFile] = useState<string | null>(null);
  const previousHref = it.previous ? `/grading/${queueId}/grade?item=${encodeURIComponent(it.previous.itemId)}` : null;
  const form = useGradeForm({
    item: it,
    actions,
    onNotice,
    previousHref,
    onToggleKeys: useCallback(() => setShowKeys((v) => !v), []),
    onCloseKeys: useCallback(() => setShowKeys(false), []),
  });

  useEffect(() => {
    window.scrollTo({ top: 0 });
  }, []);

  return (
    <div data-testid="grade-page" data-item-id={it.item.id} data-fix-id={it.fix.id}>
      <div className="grading-head">
        <div>
          <div className="muted small">
            <Link href={`/grading/${queueId}`}>{it.queue.name}</Link> ·{' '}
            <span data-testid="grade-position" title="The item’s place in the queue’s order, which every grader shares; it is not a count of your work">
              item {it.item.position + 1} of {it.item.total} in the queue’s order
            </span>
          </div>
          <h1 className="page-title" data-testid="grade-change-title">
            {it.change.title}
          </h1>
          <p className="page-subtitle">
            {it.change.repository} · {it.change.externalId} · by {it.change.author}
          </p>
        </div>
        <div style={{ minWidth: 220 }}>
          <div className="muted small">
            <span data-testid="grade-progress">
              You have labelled {it.progress.labelled} of {it.progress.total}
            </span>
            {it.progress.skipped > 0 && <span data-testid="grade-skipped"> · skipped {it.progress.skipped}</span>}
          </div>
          <div className="progress-bar" style={{ marginTop: 6 }}>
            <span className="progress-complete" style={{ width: `${(it.progress.labelled / Math.max(1, it.progress.total)) * 100}%` }} />
          </div>
          <p className="muted small grade-progress-help" data-testid="grade-progress-help">
            Your own labels among the queue’s {it.progress.total} items. Each item needs {it.queue.gradersPerFix}{' '}
            {it.queue.gradersPerFix === 1 ? 'label' : 'labels'}, so you may be done before labelling them all.
          </p>
          <div className="row" style={{ marginTop: 8 }}>
            {previousHref ? (
              <Link className="btn btn-small" href={previousHref} data-testid="grade-previous">
                <kbd>p</kbd> Previous
              </Link>
            ) : (
              <span className="btn btn-small" aria-disabled="true" style={{ opacity: 0.5 }} title="No earlier item of yours">
                <kbd>p</kbd> Previous
              </span>
            )}
            <Link className="btn btn-small" href={`/grading/${queueId}#my-labels`} data-testid="grade-my-labels">
              My labels
            </Link>
            {itemId && (
              <Link className="btn btn-small" href={`/grading/${queueId}/grade`} data-testid="grade-continue">
                Continue grading
              </Link>
            )}
            <button type="button" className="btn btn-small" onClick={() => setShowKeys(true)}>
              Keys <kbd>?</kbd>
            </button>
          </div>
        </div>
      </div>
      {notice && (
        <div className="alert alert-ok" role="status" style={{ marginBottom: 12 }} data-testid="grade-notice">
          {notice}
        </div>
      )}
      <div className="grade-layout">
        <div className="stack">
          {it.queue.instructions && (
            <section className="card">
              <h2 className="card-title">Instructions</h2>
              <p className="grade-instructions" style={{ margin: 0 }}>
                {it.queue.instructions}
              </p>
            </section>
          )}
          <FailureEvidence failures={it.failures} testCounts={null} />
          <section className="card" aria-labelledby="intent-title">
            <h2 className="card-title" id="intent-title">
              The change’s intent
            </h2>
            <p style={{ whiteSpace: 'pre-wrap', marginTop: 0 }}>{it.change.description || <span className="muted">No description.</span>}</p>
            {it.change.diff ? (
              <details>
                <summary className="muted small">The change’s own diff</summary>
                <DiffText diff={it.change.diff} label="The change’s own diff" />
              </details>
            ) : (
              <p className="muted small">The change’s own diff is not available from the repository.</p>
            )}
          </section>
          <section className="card" aria-labelledby="fix-title">
            <h2 className="card-title grade-section-title" id="fix-title">
              <span>The fix</span>
              <span className="muted small">
                {it.fix.diffStat.files} {it.fix.diffStat.files === 1 ? 'file' : 'files'} · +{it.fix.diffStat.additions} −{it.fix.diffStat.deletions}
              </span>
            </h2>
            <FixSummary html={it.fix.summaryHtml} />
            <FixDiff
              fixId={it.fix.id}
              filesUrl={actions.filesUrl(it.item.id)}
              file={file}
              onFileChange={setFile}
              editing={false}
              edits={{}}
              onEdit={() => undefined}
            />
          </section>
          <section className="card" aria-labelledby="evidence-title">
            <h2 className="card-title" id="evidence-title">
              Validation
            </h2>
            <GateChain gates={it.fix.evidence.gates} proof={it.fix.evidence.proof} />
          </section>
          {it.laterRevision && (
            <section className="card" aria-labelledby="later-title" data-testid="later-revision">
              <h2 className="card-title" id="later-title">
                What the developer did next <span className="muted small">(revision {it.laterRevision.number})</span>
              </h2>
              {it.laterRevision.diff ? (
                <DiffText diff={it.laterRevision.diff} label="The developer’s later revision" />
              ) : (
                <p className="muted small">The later revision’s diff is not available from the repository.</p>
              )}
            </section>
          )}
        </div>
        <GradePanel item={it} form={form} dispute={actions.dispute} />
      </div>
      <GradeQuickBar form={form} />
      {showKeys && <GradeKeysDialog onClose={() => setShowKeys(false)} />}
    </div>
  );
}
