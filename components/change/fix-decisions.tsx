'use client';

import { useState } from 'react';
import { REJECT_REASONS, useAcceptFix, useRejectFix, type RejectReason } from './use-fix-decisions';

// Accept, edit then accept, reject with a reason. The server decides (one
// apply wins, a moved branch is refused); this shows what it said.

export function RejectForm({
  fixId,
  onDone,
  onCancel,
  autoFocus,
}: {
  fixId: string;
  onDone?: () => void;
  onCancel: () => void;
  autoFocus?: boolean;
}) {
  const reject = useRejectFix();
  const [reason, setReason] = useState<RejectReason | null>(null);
  const [text, setText] = useState('');
  const needsText = reason === 'OTHER' && text.trim() === '';
  return (
    <form
      className="reject-form"
      data-testid="reject-form"
      onKeyDown={(e) => {
        // Escape closes the form from any of its fields (the page's shortcuts ignore keys typed in fields)
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onCancel();
        }
      }}
      onSubmit={(e) => {
        e.preventDefault();
        if (!reason || needsText) return;
        reject.mutate({ fixId, reason, text: text.trim() || undefined }, { onSuccess: () => onDone?.() });
      }}
    >
      <fieldset className="reject-reasons">
        <legend>Why reject this fix?</legend>
        {REJECT_REASONS.map((r, i) => (
          <label key={r.value} className="admin-check">
            <input
              type="radio"
              name={`reject-reason-${fixId}`}
              value={r.value}
              checked={reason === r.value}
              onChange={() => setReason(r.value)}
              data-testid={`reject-reason-${r.value}`}
              autoFocus={autoFocus && i === 0}
            />
            {r.label}
          </label>
        ))}
      </fieldset>
      <textarea
        className="input reject-text"
        rows={2}
        maxLength={2000}
        placeholder={reason === 'OTHER' ? 'Say why (required)' : 'Anything to add (optional)'}
        aria-label="Rejection note"
        data-testid="reject-text"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <div className="row">
        <button type="submit" className="btn btn-danger" disabled={!reason || needsText || reject.isPending} data-testid="reject-confirm">
          {reject.isPending ? 'Rejecting…' : 'Reject fix'}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {reject.isError && (
        <div className="alert alert-error small" role="alert" data-testid="fix-decision-error">
          {reject.error.message}
        </div>
      )}
    </form>
  );
}

// Stays mounted when the fix leaves READY, so what the server said about the
// decision (the commit, or "the branch moved…") stays on screen after the
// page refreshes the fix's new status.
export function FixDecisions({
  fixId,
  open,
  canDecide,
  editing,
  onEdit,
}: {
  fixId: string;
  /** the fix is waiting for a decision (READY) */
  open: boolean;
  canDecide: boolean;
  editing: boolean;
  onEdit: () => void;
}) {
  const accept = useAcceptFix();
  const [rejecting, setRejecting] = useState(false);
  if (!canDecide) {
    if (!open) return null;
    return (
      <p className="muted small" data-testid="fix-decisions-readonly">
        Reviewers decide on fixes; your roles can read them.
      </p>
    );
  }
  const commit = accept.isSuccess ? accept.data.commit : null;
  return (
    <div className="fix-decisions" data-testid="fix-decisions">
      {open && (
        <div className="row">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="fix-accept"
            disabled={accept.isPending || editing}
            onClick={() => accept.mutate(fixId)}
          >
            {accept.isPending ? 'Applying…' : 'Accept'}
          </button>
          <button type="button" className="btn" data-testid="fix-edit" disabled={accept.isPending || editing} onClick={onEdit}>
            Edit then accept
          </button>
          <button
            type="button"
            className="btn btn-danger"
            data-testid="fix-reject"
            disabled={accept.isPending || editing}
            onClick={() => setRejecting((v) => !v)}
            aria-expanded={rejecting}
          >
            Reject…
          </button>
        </div>
      )}
      {accept.isError && (
        <div className="alert alert-error" role="alert" data-testid="fix-decision-error">
          {accept.error.message}
        </div>
      )}
      {accept.isSuccess && (
        <div className="alert alert-ok" role="status" data-testid="fix-decision-ok">
          Applied{commit ? <> as commit <span className="mono">{commit.slice(0, 12)}</span></> : ''}.
        </div>
      )}
      {open && rejecting && <RejectForm fixId={fixId} onCancel={() => setRejecting(false)} onDone={() => setRejecting(false)} autoFocus />}
    </div>
  );
}
