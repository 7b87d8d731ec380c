// Reads unified diffs (git's flavour): which files, how (added, deleted,
// renamed, binary) and which lines. The post filters judge fixes by their
// diff, and the pipeline derives the change's edited spans from it.

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

function unquote(p: string): string {
  if (!p.startsWith('"')) return p;
  try {
    return JSON.parse(p) as string;
  } catch {
    return p.slice(1, -1);
  }
}

function stripPrefix(p: string): string | null {
  const raw = unquote(p.replace(/\t.*$/, ''));
  if (raw === '/dev/null') return null;
  return raw.replace(/^[ab]\//, '');
}

export function parseUnifiedDiff(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let hunk: DiffHunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  const lines = diff.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m: RegExpExecArray | null;
    if ((m = /^diff --git (\S+|"[^"]+") (\S+|"[^"]+")$/.exec(line))) {
      file = { oldPath: stripPrefix(m[1]), newPath: stripPrefix(m[2]), status: 'modified', binary: false, hunks: [] };
      files.push(file);
      hunk = null;
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ') && (!hunk || oldNo >= hunk.oldStart + hunk.oldLines)) {
      const oldPath = stripPrefix(line.slice(4));
      const newPath = stripPrefix(lines[i + 1].slice(4));
      if (!file || file.hunks.length > 0) {
        file = { oldPath, newPath, status: 'modified', binary: false, hunks: [] };
        files.push(file);
      } else {
        file.oldPath = oldPath;
        file.newPath = newPath;
      }
      if (oldPath === null) file.status = 'added';
      if (newPath === null) file.status = 'deleted';
      hunk = null;
      i++;
      continue;
    }
    if (!file) continue;
    if (/^new file mode/.test(line)) {
      file.status = 'added';
      file.oldPath = null;
    } else if (/^deleted file mode/.test(line)) {
      file.status = 'deleted';
      file.newPath = null;
    } else if ((m = /^rename from (.+)$/.exec(line))) {
      file.status = 'renamed';
      file.oldPath = unquote(m[1]);
    } else if ((m = /^rename to (.+)$/.exec(line))) {
      file.status = 'renamed';
      file.newPath = unquote(m[1]);
    } else if (/^GIT binary patch$|^Binary files .* differ$/.test(line)) {
      file.binary = true;
    } else if ((m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line))) {
      hunk = {
        oldStart: Number(m[1]),
        oldLines: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newLines: m[4] === undefined ? 1 : Number(m[4]),
        lines: [],
      };
      oldNo = hunk.oldStart;
      newNo = hunk.newStart;
      file.hunks.push(hunk);
    } else if (hunk && (line.startsWith('+') || line.startsWith('-') || line.startsWith(' '))) {
      const type = line[0] as DiffLine['type'];
      const text = line.slice(1);
      if (type === '+') hunk.lines.push({ type, text, newLine: newNo++ });
      else if (type === '-') hunk.lines.push({ type, text, oldLine: oldNo++ });
      else hunk.lines.push({ type, text, oldLine: oldNo++, newLine: newNo++ });
    }
  }
  return files;
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

/** Added and removed line counts. */
export function diffStat(diff: string): { files: number; added: number; removed: number } {
  let added = 0;
  let removed = 0;
  const files = parseUnifiedDiff(diff);
  for (const f of files)
    for (const h of f.hunks)
      for (const l of h.lines) {
        if (l.type === '+') added++;
        else if (l.type === '-') removed++;
      }
  return { files: files.length, added, removed };
}
