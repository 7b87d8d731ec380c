import type { ChangedLines as ChangedLinesData } from '@/lib/fixes/views';

// The lines a fix changes, as a plain unified view beside Accept, so nothing
// is accepted unseen; "Preview diff" opens the whole files side by side
// (Monaco). Each line says what it is in text (+, −, or nothing for
// context), not only in colour.

const SIGN = { '+': '+', '-': '−', ' ': ' ' } as const;
const KIND = { '+': 'added', '-': 'removed', ' ': 'context' } as const;

export function ChangedLines({ changes, more }: { changes: ChangedLinesData; more?: string }) {
  if (changes.files.length === 0) return <p className="muted small">This fix changes no lines.</p>;
  return (
    <div className="changed-lines" data-testid="changed-lines">
      {changes.files.map((file) => (
        <div key={file.path} className="changed-file">
          <div className="changed-file-path mono small" data-testid="changed-file">
            {file.path}
            {file.status !== 'modified' && <span className="muted"> ({file.status})</span>}
          </div>
          {file.binary ? (
            <p className="muted small">Binary file.</p>
          ) : (
            // scrolls inside itself (long lines, long hunks): focusable so a keyboard can scroll it too
            <div className="changed-scroll" tabIndex={0} role="region" aria-label={`Changed lines of ${file.path}`}>
              <table className="changed-table mono">
                {file.hunks.map((h, i) => (
                  <tbody key={i}>
                    <tr className="changed-hunk">
                      <td colSpan={3}>{h.header}</td>
                    </tr>
                    {h.lines.map((l, j) => (
                      <tr key={j} className={`changed-line changed-${KIND[l.type]}`} data-kind={KIND[l.type]}>
                        <td className="changed-no" aria-hidden="true">
                          {l.oldLine ?? ''}
                        </td>
                        <td className="changed-no" aria-hidden="true">
                          {l.newLine ?? ''}
                        </td>
                        <td className="changed-text">
                          <span className="changed-sign">{SIGN[l.type]}</span>
                          {l.text}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                ))}
              </table>
            </div>
          )}
        </div>
      ))}
      {changes.omittedLines > 0 && (
        <p className="muted small" data-testid="changed-lines-omitted">
          {changes.omittedLines} more {changes.omittedLines === 1 ? 'line' : 'lines'}
          {more ? ` ${more}` : ''}.
        </p>
      )}
    </div>
  );
}
