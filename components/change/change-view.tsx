'use client';

import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { FixDiff } from '@/components/diff/fix-diff';
import { ChangeHeader } from './change-header';
import { CiLog } from './ci-log';
import { FailureEvidence } from './failure-evidence';
import { FixCard } from './fix-card';
import { fixHistoryLabel, primaryFix } from '@/common/fix-choice';
import { RunAgentButton } from './run-agent-button';
import { RunHistory } from './run-history';
import { useChangeDetail, type ChangeDetail } from './use-change-detail';
import { useEditAcceptFix, useRecordPreview } from './use-fix-decisions';
import { formatDateTime } from '@/common/format';

// The change page. The URL carries which fix and which file are open
// (/changes/<id>?fix=<fixId>&file=<path>) so a link opens exactly that view.

function useUrlState() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const set = (next: { fix?: string | null; file?: string | null }) => {
    const qs = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(next)) {
      if (v === null || v === undefined) qs.delete(k);
      else qs.set(k, v);
    }
    const s = qs.toString();
    router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
  };
  return { fix: params.get('fix'), file: params.get('file'), set };
}

/**
 * The edit's own bar while the reviewer edits. A submit that the server takes
 * ends the editing (the fix card then says the edit is being validated, and
 * later what came of it); one it refuses keeps the edits and says why until
 * the reviewer changes something or submits again.
 */
function EditBar({
  count,
  submitting,
  error,
  onSubmit,
  onCancel,
}: {
  count: number;
  submitting: boolean;
  error: string | null;
  onSubmit: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="card edit-bar" data-testid="edit-bar">
      <div className="row">
        <strong>Editing the fix.</strong>
        <span className="muted">Change the right-hand side, then submit: the edited fix is compiled and tested again before it is applied.</span>
      </div>
      <div className="row">
        <button type="button" className="btn btn-primary" data-testid="edit-submit" disabled={count === 0 || submitting} onClick={onSubmit}>
          {submitting ? 'Submitting…' : `Submit edited fix${count ? ` (${count} ${count === 1 ? 'file' : 'files'})` : ''}`}
        </button>
        <button type="button" className="btn" onClick={onCancel} disabled={submitting}>
          Cancel editing
        </button>
      </div>
      {error && (
        <div className="alert alert-error" role="alert" data-testid="fix-decision-error">
          {error}
        </div>
      )}
    </div>
  );
}

export function ChangeView({ changeId, initialData, canDecide }: { changeId: string; initialData: ChangeDetail; canDecide: boolean }) {
  const query = useChangeDetail(changeId, initialData);
  const detail = query.data ?? initialData;
  const url = useUrlState();
  // the applied fix, else the one ready fix (common/fix-choice.ts); ?fix= picks another from the list
  const fix = detail.fixes.find((f) => f.id === url.fix) ?? primaryFix(detail.fixes);
  // a deep link to a file opens the diff
  const [diffOpen, setDiffOpen] = useState(Boolean(url.file));
  const [editing, setEditing] = useState(false);
  const [edits, setEdits] = useState<Record<string, string>>({});
  // each edit starts the decisions afresh: an earlier accept's error is not about this edit
  const [editRound, setEditRound] = useState(0);
  const editAccept = useEditAcceptFix();
  // the run a submit just started, until the page's own data lists it
  const [submitted, setSubmitted] = useState<{ fixId: string; runId: string } | null>(null);

  // one preview per fix per page view, when the diff is actually shown
  const preview = useRecordPreview();
  const previewed = useRef(new Set<string>());
  const fixId = fix?.id ?? null;
  useEffect(() => {
    if (!diffOpen || !fixId || !canDecide || previewed.current.has(fixId)) return;
    previewed.current.add(fixId);
    preview.mutate(fixId);
  }, [diffOpen, fixId, canDecide, preview]);

  const active = detail.runs.some((r) => r.status === 'QUEUED' || r.status === 'RUNNING');
  const stopEditing = () => {
    setEditing(false);
    setEdits({});
    editAccept.reset();
  };
  const submitEdit = (fixId: string) =>
    editAccept.mutate(
      { fixId, files: Object.entries(edits).map(([path, modified]) => ({ path, modified })) },
      {
        onSuccess: (r) => {
          setSubmitted(r?.runId ? { fixId, runId: r.runId } : null);
          stopEditing();
        },
      },
    );

  return (
    <div className="stack change-page" data-testid="change-page">
      <ChangeHeader
        detail={detail}
        actions={
          canDecide ? <RunAgentButton changeId={changeId} disabled={active} readyFix={detail.fixes.some((f) => f.status === 'READY' && !f.isHistory)} /> : null
        }
      />
      {query.isError && (
        <div className="alert alert-error" role="alert">
          Could not refresh this change: {query.error.message}
        </div>
      )}

      {fix ? (
        <>
          <FixCard
            fix={fix}
            canDecide={canDecide}
            diffOpen={diffOpen}
            editing={editing}
            onToggleDiff={() => setDiffOpen((v) => !v)}
            submittedRunId={submitted?.fixId === fix.id ? submitted.runId : null}
            decisionsKey={editRound}
            onEdit={() => {
              setDiffOpen(true);
              setEditing(true);
              setEditRound((n) => n + 1);
            }}
          />
          {preview.isError && (
            <div className="muted small" data-testid="preview-error">
              The preview was not recorded: {preview.error.message}
            </div>
          )}
          {editing && (
            <EditBar
              count={Object.keys(edits).length}
              submitting={editAccept.isPending}
              error={editAccept.isError ? editAccept.error.message : null}
              onSubmit={() => submitEdit(fix.id)}
              onCancel={stopEditing}
            />
          )}
          {diffOpen && (
            <section className="card diff-card" aria-label="Diff">
              <FixDiff
                fixId={fix.id}
                file={url.file}
                onFileChange={(path) => url.set({ fix: fix.id, file: path })}
                editing={editing}
                edits={edits}
                onEdit={(path, text) => {
                  // what the server refused was the previous text
                  if (editAccept.isError) editAccept.reset();
                  setEdits((e) => ({ ...e, [path]: text }));
                }}
              />
            </section>
          )}
          {detail.fixes.length > 1 && (
            <nav className="card other-fixes" aria-label="Other fixes" data-testid="other-fixes">
              <h2 className="card-title">All fixes of this change</h2>
              <ul>
                {detail.fixes.map((f) => (
                  <li key={f.id}>
                    {f.id === fix.id ? (
                      <strong>{formatDateTime(f.createdAt)}</strong>
                    ) : (
                      <Link href={`?fix=${encodeURIComponent(f.id)}`} replace scroll={false}>
                        {formatDateTime(f.createdAt)}
                      </Link>
                    )}{' '}
                    <span className="muted small" data-testid="other-fix-status">
                      rev {f.revisionNumber} · {fixHistoryLabel(f)}
                    </span>
                  </li>
                ))}
              </ul>
            </nav>
          )}
        </>
      ) : (
        <section className="card muted" data-testid="no-fix">
          No fix for this change yet.
          {active ? ' A run is in progress.' : ''}
        </section>
      )}

      <div className="grid-2 change-columns">
        <FailureEvidence failures={detail.failures} testCounts={detail.testCounts} />
        <RunHistory runs={detail.runs} />
      </div>
      {detail.revision && <CiLog log={detail.revision.ciLog} truncatedBytes={detail.revision.logTruncatedBytes} />}
    </div>
  );
}
