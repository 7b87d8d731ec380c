'use client';

import { useRouter } from 'next/navigation';
import { runIdOf, useRunAgent } from './use-fix-decisions';

export function RunAgentButton({ changeId, disabled }: { changeId: string; disabled?: boolean }) {
  const router = useRouter();
  const run = useRunAgent();
  return (
    <div className="run-agent">
      <button
        type="button"
        className="btn btn-primary"
        data-testid="run-agent"
        disabled={disabled || run.isPending}
        onClick={() =>
          run.mutate(changeId, {
            onSuccess: (result) => {
              const runId = runIdOf(result);
              if (runId) router.push(`/runs/${encodeURIComponent(runId)}`);
            },
          })
        }
      >
        {run.isPending ? 'Starting…' : 'Run agent'}
      </button>
      {run.isError && (
        <div className="alert alert-error small" role="alert" data-testid="run-agent-error">
          {run.error.message}
        </div>
      )}
    </div>
  );
}
