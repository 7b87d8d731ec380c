'use client';

// The grading page's keys, listed in one place: the dialog shows this list
// and `use-grade-keys.ts` implements it.
export const GRADE_KEYS: Array<[string, string]> = [
  ['1 – 4', 'choose a label'],
  ['t', 'tags'],
  ['r', 'write the rationale'],
  ['Enter', 'submit and load the next item'],
  ['Shift + Enter', 'a new line in the rationale'],
  ['s', 'skip (with a reason)'],
  ['p', 'the previous item you labelled or skipped'],
  ['Esc', 'leave a field, close a panel'],
  ['?', 'this list'],
];

export function GradeKeysDialog({ onClose }: { onClose: () => void }) {
  return (
    <div className="grade-keys" role="dialog" aria-modal="true" aria-labelledby="keys-title" onClick={onClose} data-testid="grade-keys">
      <div className="card" onClick={(e) => e.stopPropagation()}>
        <h2 className="card-title" id="keys-title">
          Keys
        </h2>
        <dl>
          {GRADE_KEYS.map(([k, what]) => (
            <div key={k} style={{ display: 'contents' }}>
              <dt>
                <kbd>{k}</kbd>
              </dt>
              <dd style={{ margin: 0 }}>{what}</dd>
            </div>
          ))}
        </dl>
      </div>
    </div>
  );
}
