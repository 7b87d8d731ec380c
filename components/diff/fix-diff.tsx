'use client';

import dynamic from 'next/dynamic';
import { useState } from 'react';
import { fixFilesUrl, useFixFiles, type FixFile } from './use-fix-files';
import { NARROW_SCREEN, useMediaQuery } from '@/components/shell/use-media-query';

// The fix's diff, file by file, in Monaco's diff editor. Monaco is reached
// only through this dynamic import with ssr: false: it needs the browser.
const MonacoDiff = dynamic(() => import('./monaco-diff'), {
  ssr: false,
  loading: () => <div className="muted small diff-loading">Loading the diff editor…</div>,
});

const STATUS_MARK: Record<FixFile['status'], string> = { added: 'A', deleted: 'D', renamed: 'R', modified: 'M' };

function FileList({ files, selected, edited, onSelect }: { files: FixFile[]; selected: string; edited: Set<string>; onSelect: (path: string) => void }) {
  return (
    <ul className="diff-files" data-testid="diff-file-list" aria-label="Files in this fix">
      {files.map((f) => (
        <li key={f.path}>
          <button
            type="button"
            className="diff-file"
            aria-current={f.path === selected ? 'true' : undefined}
            data-testid="diff-file"
            data-path={f.path}
            onClick={() => onSelect(f.path)}
            title={f.oldPath && f.oldPath !== f.path ? `${f.oldPath} → ${f.path}` : f.path}
          >
            <span className={`diff-file-status diff-file-${f.status}`} aria-label={f.status}>
              {STATUS_MARK[f.status]}
            </span>
            <span className="mono diff-file-path">{f.path}</span>
            {edited.has(f.path) && <span className="badge badge-edited">edited</span>}
          </button>
        </li>
      ))}
    </ul>
  );
}

export function FixDiff({
  fixId,
  filesUrl = fixFilesUrl(fixId),
  file,
  onFileChange,
  editing,
  edits,
  onEdit,
}: {
  fixId: string;
  /** where the files come from (the grading page reads them through its queue) */
  filesUrl?: string;
  /** the file to show (deep link ?file=); the first one when absent or unknown */
  file: string | null;
  onFileChange: (path: string) => void;
  editing: boolean;
  /** edited modified sides by path ("edit then accept") */
  edits: Record<string, string>;
  onEdit: (path: string, text: string) => void;
}) {
  const files = useFixFiles(filesUrl, true);
  // inline below 768 px, where two columns of code would each be clipped to half a phone; the reviewer's own choice wins
  const narrow = useMediaQuery(NARROW_SCREEN);
  const [layout, setLayout] = useState<'side-by-side' | 'inline' | null>(null);
  const sideBySide = layout === null ? !narrow : layout === 'side-by-side';
  const setSideBySide = (on: boolean) => setLayout(on ? 'side-by-side' : 'inline');

  if (files.isPending)
    return (
      <div className="card muted small" data-testid="diff-loading">
        Loading the fix’s files…
      </div>
    );
  if (files.isError) {
    return (
      <div className="alert alert-error" role="alert" data-testid="diff-error">
        Could not load the diff: {files.error.message}
      </div>
    );
  }
  const list = files.data;
  if (list.length === 0) return <div className="card muted">This fix changes no files.</div>;
  const current = list.find((f) => f.path === file) ?? list[0];
  const edited = new Set(Object.keys(edits));
  // read once per mount by MonacoDiff: coming back to an edited file shows the edit
  const startText = edits[current.path] ?? current.modified;
  const canEditCurrent = editing && current.complete && !current.binary && current.status !== 'deleted';

  return (
    <div className="diff-panel" data-testid="diff-panel">
      <div className="diff-toolbar">
        <span className="muted small">
          {list.length} {list.length === 1 ? 'file' : 'files'}
        </span>
        <div className="diff-toggle" role="group" aria-label="Diff layout">
          <button
            type="button"
            className={`btn btn-small${sideBySide ? ' btn-on' : ''}`}
            aria-pressed={sideBySide}
            data-testid="diff-side-by-side"
            onClick={() => setSideBySide(true)}
          >
            Side by side
          </button>
          <button
            type="button"
            className={`btn btn-small${!sideBySide ? ' btn-on' : ''}`}
            aria-pressed={!sideBySide}
            data-testid="diff-inline"
            onClick={() => setSideBySide(false)}
          >
            Inline
          </button>
        </div>
      </div>
      <div className="diff-body">
        <FileList files={list} selected={current.path} edited={edited} onSelect={onFileChange} />
        <div className="diff-main">
          <div className="diff-file-head">
            <span className="mono" data-testid="diff-current-file">
              {current.path}
            </span>
            <span className="muted small">{current.language}</span>
            {!current.complete && !current.binary && (
              <span className="muted small" data-testid="diff-partial">
                Only the changed regions are shown: the file at the fix’s revision is not available here.
              </span>
            )}
          </div>
          {editing && !canEditCurrent && (
            <div className="alert alert-info small" data-testid="diff-not-editable">
              This file cannot be edited here: its text at the fix’s revision is not available.
            </div>
          )}
          {current.binary ? (
            <div className="card muted">Binary file: no text diff.</div>
          ) : (
            <MonacoDiff
              key={`${current.path}:${canEditCurrent ? 'edit' : 'read'}`}
              path={current.path}
              language={current.language}
              original={current.original}
              modified={startText}
              sideBySide={sideBySide}
              editable={canEditCurrent}
              onModifiedChange={canEditCurrent ? (text) => onEdit(current.path, text) : undefined}
            />
          )}
        </div>
      </div>
    </div>
  );
}
