import type { ChangeDetail } from './use-change-detail';
import { ValueDiff } from './value-diff';
import { formatDuration } from '@/common/format';
import { problemKindLabel } from '@/common/labels';

// The failing tests of the latest reported revision. Every string here came
// from CI (names, messages, excerpts) and is rendered as text.
export function FailureEvidence({ failures, testCounts }: { failures: ChangeDetail['failures']; testCounts: ChangeDetail['testCounts'] }) {
  return (
    <section className="card" aria-labelledby="failures-title" data-testid="failure-evidence">
      <h2 className="card-title" id="failures-title">
        Failing tests <span className="muted small">({failures.length})</span>
      </h2>
      {testCounts && <TestCountsLine counts={testCounts} />}
      {failures.length === 0 && <p className="muted">No failing tests were reported for this revision.</p>}
      <ul className="failure-list">
        {failures.map((f) => (
          <li key={f.id} className="failure" data-testid="failure">
            <div className="failure-head">
              <span className={`badge ${f.kind === 'error' ? 'badge-no_fix' : 'badge-rejected'}`}>{problemKindLabel(f.kind)}</span>
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
              <pre
                className="failure-message"
                data-testid="failure-message"
                // It scrolls past 180px, so keyboard users must be able to reach it.
                tabIndex={0}
                role="region"
                aria-label={`Failure message of ${f.testName}`}
              >
                {f.message}
              </pre>
            )}
            {f.problems.length > 1 && (
              <ul className="failure-problems" data-testid="failure-problems" aria-label="Every failure and error of this test">
                {f.problems.map((p, i) => (
                  <li key={i}>
                    <span className={`badge ${p.kind === 'error' ? 'badge-no_fix' : 'badge-rejected'}`}>{problemKindLabel(p.kind)}</span>{' '}
                    <span className="mono small failure-problem-message">{p.message ?? '(no message)'}</span>
                  </li>
                ))}
              </ul>
            )}
            {f.expectedActual && <ValueDiff {...f.expectedActual} />}
            {f.logExcerpt && f.logExcerpt !== f.message && (
              <details className="failure-excerpt">
                <summary className="muted small">Stack trace and output</summary>
                <pre tabIndex={0} role="region" aria-label={`Stack trace and output of ${f.testName}`}>
                  {f.logExcerpt}
                </pre>
              </details>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** "3 of 412 tests failed · 2 errored · 5 skipped · 41 s" for the whole report(s), not only the failures. */
function TestCountsLine({ counts }: { counts: NonNullable<ChangeDetail['testCounts']> }) {
  const parts = [`${counts.failed + counts.errored} of ${counts.tests} tests failed`];
  if (counts.errored > 0) parts.push(`${counts.errored} errored`);
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`);
  if (counts.durationMs !== null) parts.push(formatDuration(counts.durationMs));
  if (counts.reports > 1) parts.push(`${counts.reports} reports`);
  return (
    <p className="muted small" data-testid="test-counts">
      {parts.join(' · ')}
    </p>
  );
}
