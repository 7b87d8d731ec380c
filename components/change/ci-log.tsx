'use client';

import { useDeferredValue, useMemo, useState } from 'react';

// The CI log, collapsed by default (it can be megabytes), with a search that
// highlights matches and can hide the other lines. Rendered as text: a log is
// whatever the build printed, markup included.

const MAX_LINES_SHOWN = 5000;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function Highlighted({ text, re }: { text: string; re: RegExp | null }) {
  if (!re) return <>{text}</>;
  const parts = text.split(re);
  // split with a capturing group: odd indexes are the matches
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <mark key={i} data-testid="log-match">
            {p}
          </mark>
        ) : (
          p
        ),
      )}
    </>
  );
}

export function CiLog({ log, truncatedBytes }: { log: string; truncatedBytes: number }) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [onlyMatches, setOnlyMatches] = useState(true);
  const deferred = useDeferredValue(query.trim());
  // an empty log has no lines, and a final newline does not start one
  const lines = useMemo(() => (log === '' ? [] : log.replace(/\n$/, '').split('\n')), [log]);
  const re = useMemo(() => (deferred ? new RegExp(`(${escapeRegExp(deferred)})`, 'gi') : null), [deferred]);
  const rows = useMemo(() => {
    const all = lines.map((text, i) => ({ n: i + 1, text }));
    if (!deferred) return all;
    const needle = deferred.toLowerCase();
    const hits = all.filter((l) => l.text.toLowerCase().includes(needle));
    return onlyMatches ? hits : all.map((l) => ({ ...l, hit: hits.includes(l) }));
  }, [lines, deferred, onlyMatches]);
  const matchCount = deferred ? lines.filter((l) => l.toLowerCase().includes(deferred.toLowerCase())).length : 0;

  return (
    <section className="card" data-testid="ci-log">
      <details open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary className="card-title ci-log-summary" data-testid="ci-log-toggle">
          CI log{' '}
          <span className="muted small" data-testid="ci-log-size">
            ({lines.length === 0 ? 'empty' : `${lines.length} ${lines.length === 1 ? 'line' : 'lines'}`}
            {truncatedBytes > 0 ? `, ${truncatedBytes} bytes cut from the middle` : ''})
          </span>
        </summary>
        {open && (
          <>
            <div className="toolbar ci-log-toolbar">
              <input
                type="search"
                className="input ci-log-search"
                placeholder="Search the log"
                aria-label="Search the log"
                data-testid="ci-log-search"
                value={query}
                onChange={(e) => setQuery(e.target.value)}
              />
              <label className="triage-toggle">
                <input type="checkbox" checked={onlyMatches} onChange={(e) => setOnlyMatches(e.target.checked)} /> only matching lines
              </label>
              {deferred && (
                <span className="muted small" data-testid="ci-log-count" aria-live="polite">
                  {matchCount} matching {matchCount === 1 ? 'line' : 'lines'}
                </span>
              )}
            </div>
            {log === '' ? (
              <p className="muted">CI sent no log for this revision.</p>
            ) : (
              <pre className="ci-log-text" data-testid="ci-log-text" tabIndex={0} role="region" aria-label="CI log">
                {rows.slice(0, MAX_LINES_SHOWN).map((l) => (
                  <div key={l.n} className={`ci-log-line${'hit' in l && l.hit ? ' ci-log-hit' : ''}`} data-testid="ci-log-line">
                    <span className="ci-log-n" aria-hidden>
                      {l.n}
                    </span>
                    <Highlighted text={l.text} re={re} />
                  </div>
                ))}
                {rows.length > MAX_LINES_SHOWN && <div className="muted">… {rows.length - MAX_LINES_SHOWN} more lines: narrow the search to see them</div>}
              </pre>
            )}
          </>
        )}
      </details>
    </section>
  );
}
