'use client';

import { useState } from 'react';
import { REJECT_REASONS, type RejectReason } from './use-fix-decisions';
import { DecisionStatus } from './decision-status';
import { useUndoableDecision } from './use-undoable-decision';

// Accept, edit then accept, reject with a reason. Accept and reject wait
// out the same undo window as in the review queue (use-undoable-decision.ts);
// the server decides (one apply wins, a moved branch is refused) and this
// shows what it said.

/** The reasons to reject a fix; submitting hands the choice to the page, which starts the undo window. */
export function RejectForm({
  fixId,
  onSubmit,
  onCancel,
  autoFocus,
}: {
  fixId: string;
  onSubmit: (reason: RejectReason, text: string | undefined) => void;
  onCancel: () => void;
  autoFocus?: boolean;
}) {
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
        onSubmit(reason, text.trim() || undefined);
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
        <button type="submit" className="btn btn-danger" disabled={!reason || needsText} data-testid="reject-confirm">
          Reject fix
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
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
  const decision = useUndoableDecision();
  const [rejecting, setRejecting] = useState(false);
  if (!canDecide) {
    if (!open) return null;
    return (
      <p className="muted small" data-testid="fix-decisions-readonly">
        Reviewers decide on fixes; your roles can read them.
      </p>
    );
  }
  const busy = decision.pending !== null || decision.sending;
  return (
    <div className="fix-decisions" data-testid="fix-decisions">
      {open && (
        <div className="row">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="fix-accept"
            disabled={busy || editing}
            onClick={() => {
              setRejecting(false);
              decision.start({ kind: 'accept', fixId });
            }}
          >
            {decision.sending ? 'Applying…' : 'Accept'}
          </button>
          <button type="button" className="btn" data-testid="fix-edit" disabled={busy || editing} onClick={onEdit}>
            Edit then accept
          </button>
          <button
            type="button"
            className="btn btn-danger"
            data-testid="fix-reject"
            disabled={busy || editing}
            onClick={() => setRejecting((v) => !v)}
            aria-expanded={rejecting}
          >
            Reject…
          </button>
        </div>
      )}
      <DecisionStatus
        decision={decision}
        ids={{ pending: 'fix-decision-pending', undo: 'fix-decision-undo', ok: 'fix-decision-ok', error: 'fix-decision-error' }}
      />
      {open && rejecting && !busy && (
        <RejectForm
          fixId={fixId}
          onCancel={() => setRejecting(false)}
          onSubmit={(reason, text) => {
            setRejecting(false);
            decision.start({ kind: 'reject', fixId, reason, ...(text ? { text } : {}) });
          }}
          autoFocus
        />
      )}
    </div>
  );
}
