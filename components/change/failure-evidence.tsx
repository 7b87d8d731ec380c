import type { ChangeDetail } from './use-change-detail';
import { ValueDiff } from './value-diff';
import { formatDuration } from '@/common/format';

// The failing tests of the latest reported revision. Every string here came
// from CI (names, messages, excerpts) and is rendered as text.
export function FailureEvidence({ failures }: { failures: ChangeDetail['failures'] }) {
  return (
    <section className="card" aria-labelledby="failures-title" data-testid="failure-evidence">
      <h2 className="card-title" id="failures-title">
        Failing tests <span className="muted small">({failures.length})</span>
      </h2>
      {failures.length === 0 && <p className="muted">No failing tests were reported for this revision.</p>}
      <ul className="failure-list">
        {failures.map((f) => (
          <li key={f.id} className="failure" data-testid="failure">
            <div className="failure-head">
              <span className={`badge ${f.kind === 'error' ? 'badge-no_fix' : 'badge-rejected'}`}>{f.kind}</span>
              <span className="failure-name" data-testid="failure-name">
                {f.testName}
              </span>
              {f.durationMs !== null && <span className="muted small">{formatDuration(f.durationMs)}</span>}
            </div>
            <div className="muted small mono failure-id">
              {f.testId}
              {f.file && (
                <>
                  {' · '}
                  {f.file}
                  {f.line !== null ? `:${f.line}` : ''}
                </>
              )}
            </div>
            {f.message && (
              <pre className="failure-message" data-testid="failure-message">
                {f.message}
              </pre>
            )}
            {f.expectedActual && <ValueDiff {...f.expectedActual} />}
            {f.logExcerpt && f.logExcerpt !== f.message && (
              <details className="failure-excerpt">
                <summary className="muted small">Output</summary>
                <pre>{f.logExcerpt}</pre>
              </details>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
