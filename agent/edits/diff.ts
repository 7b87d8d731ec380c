// Reads unified diffs (git's flavour): which files, how (added, deleted,
// renamed, binary) and which lines. The post filters judge fixes by their
// diff, and the pipeline derives the change's edited spans from it.

import { parsePatch } from '../../lib/diff/apply';

export interface DiffLine {
  type: '+' | '-' | ' ';
  text: string;
  /** line number on the old side ('-' and ' ') */
  oldLine?: number;
  /** line number on the new side ('+' and ' ') */
  newLine?: number;
}

export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

export interface DiffFile {
  oldPath: string | null;
  newPath: string | null;
  status: 'added' | 'deleted' | 'renamed' | 'modified';
  binary: boolean;
  hunks: DiffHunk[];
}

/**
 * Reads a unified diff with line numbers on both sides. The reading itself is
 * lib/diff/apply.ts's (one parser for the agent and the diff viewer); this
 * adds the old/new line number of every line, which the filters and the
 * edited-span computation need.
 */
export function parseUnifiedDiff(diff: string): DiffFile[] {
  return parsePatch(diff).map((patch) => ({
    oldPath: patch.oldPath,
    newPath: patch.newPath,
    status: patch.status,
    binary: patch.binary,
    hunks: patch.hunks.map((hunk) => {
      let oldNo = hunk.oldStart;
      let newNo = hunk.newStart;
      return {
        oldStart: hunk.oldStart,
        oldLines: hunk.oldLines,
        newStart: hunk.newStart,
        newLines: hunk.newLines,
        lines: hunk.lines.map((line): DiffLine => {
          if (line.type === '+') return { type: '+', text: line.text, newLine: newNo++ };
          if (line.type === '-') return { type: '-', text: line.text, oldLine: oldNo++ };
          return { type: ' ', text: line.text, oldLine: oldNo++, newLine: newNo++ };
        }),
      };
    }),
  }));
}

/** The path a file has after the diff (or before, for a deletion). */
export function diffFilePath(file: DiffFile): string {
  return file.newPath ?? file.oldPath ?? '';
}

/** Head-side line ranges a diff touched, per file: the change's edited spans. */
export function editedSpans(diff: string): Array<{ file: string; startLine: number; endLine: number }> {
  const spans: Array<{ file: string; startLine: number; endLine: number }> = [];
  for (const file of parseUnifiedDiff(diff)) {
    if (!file.newPath || file.binary) continue;
    for (const hunk of file.hunks) {
      let start: number | null = null;
      let end = 0;
      for (const l of hunk.lines) {
        // a pure deletion touches the line where the removed text used to be
        const at = l.type === '+' ? l.newLine : l.type === '-' ? undefined : null;
        if (l.type === '-') {
          const anchor = Math.max(1, lastNewLine(hunk, l));
          start ??= anchor;
          end = Math.max(end, anchor);
        } else if (at !== null && at !== undefined) {
          start ??= at;
          end = Math.max(end, at);
        }
      }
      if (start !== null) spans.push({ file: file.newPath, startLine: start, endLine: Math.max(start, end) });
    }
  }
  return spans;
}

function lastNewLine(hunk: DiffHunk, target: DiffLine): number {
  let last = hunk.newStart;
  for (const l of hunk.lines) {
    if (l === target) return last;
    if (l.newLine !== undefined) last = l.newLine + 1;
  }
  return last;
}
