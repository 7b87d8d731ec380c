// A fix as GitHub suggested changes: possible only when every hunk replaces
// lines the pull request's own diff shows on its new side (added or context
// lines), since a review comment can only sit on those. The fix was made
// against the pull request's head, so a hunk's old side is the head's text.

export interface Suggestion {
  path: string;
  /** first and last head line replaced (equal for one line) */
  startLine: number;
  line: number;
  body: string;
}

interface Hunk {
  path: string;
  oldStart: number;
  oldLines: string[];
  newLines: string[];
}

function parseHunks(diff: string): Hunk[] | null {
  const hunks: Hunk[] = [];
  let path: string | null = null;
  let current: Hunk | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      path = null;
      current = null;
    } else if (line.startsWith('+++ ')) {
      const target = line.slice(4).trim();
      // a deleted file cannot be suggested line by line
      if (target === '/dev/null') return null;
      path = target.replace(/^b\//, '');
    } else if (line.startsWith('--- ')) {
      continue;
    } else if (line.startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m || !path) return null;
      current = { path, oldStart: Number(m[1]), oldLines: [], newLines: [] };
      hunks.push(current);
    } else if (current) {
      if (line.startsWith('\\')) continue;
      const body = line.slice(1);
      if (line.startsWith('-')) current.oldLines.push(body);
      else if (line.startsWith('+')) current.newLines.push(body);
      else if (line.startsWith(' ')) {
        current.oldLines.push(body);
        current.newLines.push(body);
      }
    }
  }
  return hunks;
}

/** The new-side line numbers a file's patch (from the pull request's file list) shows. */
export function rightSideLines(patch: string): Set<number> {
  const lines = new Set<number>();
  let next = 0;
  for (const line of patch.split('\n')) {
    const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (m) {
      next = Number(m[1]);
      continue;
    }
    if (next === 0 || line.startsWith('-') || line.startsWith('\\')) continue;
    lines.add(next);
    next += 1;
  }
  return lines;
}

/** The suggestions for every hunk, or null when any hunk falls outside the pull request's diff. */
export function suggestionsFor(fixDiff: string, prFiles: ReadonlyArray<{ filename: string; patch?: string }>): Suggestion[] | null {
  const hunks = parseHunks(fixDiff);
  if (!hunks || hunks.length === 0) return null;
  const shown = new Map(prFiles.map((f) => [f.filename, f.patch ? rightSideLines(f.patch) : new Set<number>()]));
  const out: Suggestion[] = [];
  for (const h of hunks) {
    const visible = shown.get(h.path);
    if (!visible || h.oldLines.length === 0) return null;
    const last = h.oldStart + h.oldLines.length - 1;
    for (let n = h.oldStart; n <= last; n++) if (!visible.has(n)) return null;
    const longest = Math.max(2, ...[...h.newLines.join('\n').matchAll(/`+/g)].map((m) => m[0].length));
    const f = '`'.repeat(longest + 1);
    out.push({ path: h.path, startLine: h.oldStart, line: last, body: `${f}suggestion\n${h.newLines.join('\n')}${h.newLines.length ? '\n' : ''}${f}` });
  }
  return out;
}
