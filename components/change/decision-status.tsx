'use client';

import type { ReactNode } from 'react';
import { describeDecision, type UndoableDecision } from './use-undoable-decision';

// What a decision is doing, the same wherever a reviewer decides: the undo
// window with its countdown and an Undo button, then what the server said.
// Each page names its own test ids (the queue's are older than this).

export function DecisionStatus({
  decision,
  ids,
  undoKey,
  okExtra,
}: {
  decision: UndoableDecision;
  ids: { pending: string; undo: string; ok: string; error: string };
  /** the key that undoes, where the page has one */
  undoKey?: string;
  /** more to say after a decision went through (the commit, a link) */
  okExtra?: ReactNode;
}) {
  const { pending, seconds, outcome } = decision;
  if (pending) {
    return (
      <div className="alert alert-info decision-pending" role="status" data-testid={ids.pending} data-decision={pending.kind}>
        <span>
          {describeDecision(pending, 'pending')} in {seconds} s.
        </span>
        <button type="button" className="btn btn-small" onClick={() => decision.undo()} data-testid={ids.undo}>
          Undo
          {undoKey ? (
            <>
              {' '}
              <kbd>{undoKey}</kbd>
            </>
          ) : null}
        </button>
      </div>
    );
  }
  if (!outcome) return null;
  return outcome.kind === 'ok' ? (
    <div className="alert alert-ok decision-outcome" role="status" data-testid={ids.ok}>
      {outcome.text}
      {okExtra}
    </div>
  ) : (
    <div className="alert alert-error decision-outcome" role="alert" data-testid={ids.error}>
      {outcome.text}
    </div>
  );
}
