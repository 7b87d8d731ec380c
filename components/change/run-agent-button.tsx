'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { runIdOf, useRunAgent } from './use-fix-decisions';

// "Run agent" on a change. When a fix is already waiting for a decision it
// asks first: the new run's fix, if it finds one, replaces the waiting fix.
export function RunAgentButton({
  changeId,
  disabled,
  readyFix,
}: {
  changeId: string;
  disabled?: boolean;
  /** the fix now waiting for a decision on this change, if any */
  readyFix?: boolean;
}) {
  const router = useRouter();
  const run = useRunAgent();
  const [confirming, setConfirming] = useState(false);
  const start = () =>
    run.mutate(changeId, {
      onSuccess: (result) => {
        setConfirming(false);
        const runId = runIdOf(result);
        if (runId) router.push(`/runs/${encodeURIComponent(runId)}`);
      },
    });
  return (
    <div className="run-agent">
      {!confirming ? (
        <button
          type="button"
          className="btn btn-primary"
          data-testid="run-agent"
          disabled={disabled || run.isPending}
          onClick={() => (readyFix ? setConfirming(true) : start())}
        >
          {run.isPending ? 'Starting…' : 'Run agent'}
        </button>
      ) : (
        <div className="alert alert-info small run-agent-confirm" role="alertdialog" aria-labelledby="run-agent-confirm-text" data-testid="run-agent-confirm">
          <span id="run-agent-confirm-text">A fix is ready for this change. Run again? If the new run finds a fix, it replaces this one.</span>
          <div className="row">
            <button type="button" className="btn btn-primary btn-small" onClick={start} disabled={run.isPending} data-testid="run-agent-confirm-yes" autoFocus>
              {run.isPending ? 'Starting…' : 'Run again'}
            </button>
            <button type="button" className="btn btn-small" onClick={() => setConfirming(false)}>
              Keep the ready fix
            </button>
          </div>
        </div>
      )}
      {run.isError && (
        <div className="alert alert-error small" role="alert" data-testid="run-agent-error">
          {run.error.message}
        </div>
      )}
    </div>
  );
}
