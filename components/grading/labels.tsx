import { GRADE_LABEL_TEXT, GRADE_TAG_TEXT, type GradeLabelName, type GradeTagName } from '@/common/grading';
import type { QueueProgress } from './types';

export function LabelBadge({ label }: { label: GradeLabelName }) {
  return (
    <span className={`badge badge-label-${label.toLowerCase()}`} data-testid="label-badge" data-label={label}>
      {GRADE_LABEL_TEXT[label].name}
    </span>
  );
}

export function TagBadges({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return null;
  return (
    <span className="row">
      {tags.map((t) => (
        <span key={t} className="badge badge-tag">
          {GRADE_TAG_TEXT[t as GradeTagName] ?? t}
        </span>
      ))}
    </span>
  );
}

/**
 * Complete / disputed / in progress / waiting as one bar, with a legend. A
 * grader who does not lead the queue gets no disputed count (it would tell
 * them whether labels agreed): complete is every item with all its labels.
 */
export function ProgressBar({ progress, legend = false }: { progress: QueueProgress; legend?: boolean }) {
  const pct = (n: number) => (progress.items ? `${(n / progress.items) * 100}%` : '0%');
  const disputed = progress.disputed === null ? '' : `, ${progress.disputed} disputed`;
  const text = `${progress.complete} of ${progress.items} complete${disputed}, ${progress.inProgress} in progress, ${progress.waiting} waiting`;
  return (
    <div data-testid="queue-progress" data-complete={progress.complete} data-items={progress.items}>
      <div className="progress-bar" role="img" aria-label={text} title={text}>
        <span className="progress-complete" style={{ width: pct(progress.complete) }} />
        {progress.disputed !== null && <span className="progress-disputed" style={{ width: pct(progress.disputed) }} />}
        <span className="progress-in-progress" style={{ width: pct(progress.inProgress) }} />
      </div>
      {legend && (
        <div className="progress-legend">
          <span>
            <i className="progress-complete" />
            {progress.complete} complete
          </span>
          {progress.disputed !== null && (
            <span>
              <i className="progress-disputed" />
              {progress.disputed} disputed
            </span>
          )}
          <span>
            <i className="progress-in-progress" />
            {progress.inProgress} in progress
          </span>
          <span>
            <i className="waiting" />
            {progress.waiting} waiting
          </span>
        </div>
      )}
    </div>
  );
}

/** A unified diff as text, lines coloured by kind. Text only: diffs come from repositories. */
export function DiffText({ diff, label }: { diff: string; label: string }) {
  const lines = diff.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return (
    <div className="diff-text" role="region" aria-label={label} tabIndex={0}>
      {lines.map((line, i) => {
        const kind = line.startsWith('@@')
          ? 'hunk'
          : line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')
            ? 'meta'
            : line.startsWith('+')
              ? 'add'
              : line.startsWith('-')
                ? 'del'
                : '';
        return (
          <div key={i} className={kind}>
            {line || ' '}
          </div>
        );
      })}
    </div>
  );
}
