// A fix is stored as a unified diff (git's flavour). The diff viewer needs
// whole texts on both sides, so this module reads a diff per file and applies
// its hunks to the file's text at the fix's revision. When that text is not
// available (a remote repository, demo history with made-up revisions) it
// rebuilds what the hunks themselves show, padded so line numbers still match.
//
// parsePatch is flowfix's one unified-diff reader: agent/edits/diff.ts builds on it.

export interface PatchLine {
  type: ' ' | '+' | '-';
  text: string;
}

export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: PatchLine[];
  /** the old side's last line has no newline at end of file */
  oldNoNewline: boolean;
  newNoNewline: boolean;
}

export interface FilePatch {
  oldPath: string | null;
  newPath: string | null;
  status: 'added' | 'deleted' | 'renamed' | 'modified';
  binary: boolean;
  hunks: PatchHunk[];
}

/** A repository-relative path that cannot escape or be read as an option. */
export function isSafeRelativePath(p: string): boolean {
  if (!p || p.startsWith('/') || p.startsWith('-') || p.includes('\0') || p.includes('\\')) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/**
 * Why a diff would write outside the repository's working tree, one line per
 * offending path: absolute or "..", or into git's own .git folder (hooks there
 * run on the next git command). Empty when every path stays inside.
 */
export function diffPathProblems(diff: string): string[] {
  const paths = new Set<string>();
  for (const file of parsePatch(diff)) {
    if (file.oldPath !== null) paths.add(file.oldPath);
    if (file.newPath !== null) paths.add(file.newPath);
  }
  // git apply also obeys copy and rename headers, which parsePatch does not keep
  // when ---/+++ lines follow them
  for (const m of diff.replace(/\r\n/g, '\n').matchAll(/^(?:copy|rename) (?:from|to) (.+)$/gm)) paths.add(unquote(m[1]));
  const problems: string[] = [];
  for (const p of paths) {
    if (!isSafeRelativePath(p)) problems.push(`${JSON.stringify(p)} is outside the repository`);
    else if (p.split('/').includes('.git')) problems.push(`${JSON.stringify(p)} is inside .git`);
  }
  return problems;
}

export class PatchMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchMismatchError';
  }
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

/** Splits a unified diff into one patch per file. */
export function parsePatch(diff: string): FilePatch[] {
  const files: FilePatch[] = [];
  let file: FilePatch | null = null;
  let hunk: PatchHunk | null = null;
  // lines still expected in the current hunk, per side: a hunk line that looks
  // like a header ("--- x") is content while these are positive
  let oldLeft = 0;
  let newLeft = 0;
  let last: PatchLine['type'] | null = null;
  const lines = diff.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const inHunk = hunk !== null && (oldLeft > 0 || newLeft > 0);
    if (inHunk && hunk && /^[ +-]/.test(line)) {
      const type = line[0] as PatchLine['type'];
      hunk.lines.push({ type, text: line.slice(1) });
      if (type !== '+') oldLeft--;
      if (type !== '-') newLeft--;
      last = type;
      continue;
    }
    if (inHunk && hunk && line === '') {
      // an empty context line whose leading space an editor trimmed
      hunk.lines.push({ type: ' ', text: '' });
      oldLeft--;
      newLeft--;
      last = ' ';
      continue;
    }
    if (line.startsWith('\\') && hunk) {
      if (last === '-' || last === ' ') hunk.oldNoNewline = true;
      if (last === '+' || last === ' ') hunk.newNoNewline = true;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^diff --git (\S+|"[^"]+") (\S+|"[^"]+")$/.exec(line))) {
      file = { oldPath: stripPrefix(m[1]), newPath: stripPrefix(m[2]), status: 'modified', binary: false, hunks: [] };
      files.push(file);
      hunk = null;
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
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
        oldNoNewline: false,
        newNoNewline: false,
      };
      oldLeft = hunk.oldLines;
      newLeft = hunk.newLines;
      last = null;
      file.hunks.push(hunk);
    }
  }
  return files;
}

/** The path a file has after the patch (before it, for a deletion). */
export function patchPath(patch: FilePatch): string {
  return patch.newPath ?? patch.oldPath ?? '';
}

function splitText(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === '') return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, finalNewline };
}

function joinText(lines: string[], finalNewline: boolean): string {
  if (lines.length === 0) return '';
  return lines.join('\n') + (finalNewline ? '\n' : '');
}

/**
 * Applies a file's hunks to its original text, exactly: every context and
 * removed line must match where the hunk says (no fuzz), else
 * PatchMismatchError — a fix shown against the wrong text would mislead.
 */
export function applyFilePatch({ original, patch }: { original: string; patch: FilePatch }): string {
  if (patch.status === 'deleted') return '';
  const src = splitText(original.replace(/\r\n/g, '\n'));
  const out: string[] = [];
  let finalNewline = src.finalNewline;
  let cursor = 0; // index into src.lines
  for (const hunk of patch.hunks) {
    // a hunk of zero old lines starts *after* line oldStart
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    if (start < cursor || start > src.lines.length) {
      throw new PatchMismatchError(`hunk at line ${hunk.oldStart} is outside the file or overlaps the previous one`);
    }
    out.push(...src.lines.slice(cursor, start));
    let at = start;
    for (const line of hunk.lines) {
      if (line.type === '+') {
        out.push(line.text);
        continue;
      }
      if (src.lines[at] !== line.text) {
        throw new PatchMismatchError(`line ${at + 1} does not match the patch (expected ${JSON.stringify(line.text)})`);
      }
      if (line.type === ' ') out.push(line.text);
      at++;
    }
    cursor = at;
    if (at === src.lines.length) {
      // the hunk reaches the end of the file: it decides the final newline
      if (hunk.newNoNewline) finalNewline = false;
      else if (hunk.oldNoNewline || hunk.newLines > 0) finalNewline = true;
    }
  }
  out.push(...src.lines.slice(cursor));
  return joinText(out, finalNewline);
}

/**
 * Both sides as far as the hunks show them, each line at its real line number
 * (blank padding in between), for when the whole original is not available.
 */
export function fragmentsFromPatch(patch: FilePatch): { original: string; modified: string } {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const hunk of patch.hunks) {
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const newStart = hunk.newLines === 0 ? hunk.newStart : hunk.newStart - 1;
    while (oldLines.length < oldStart) oldLines.push('');
    while (newLines.length < newStart) newLines.push('');
    for (const line of hunk.lines) {
      if (line.type !== '+') oldLines.push(line.text);
      if (line.type !== '-') newLines.push(line.text);
    }
  }
  return {
    original: patch.status === 'added' ? '' : joinText(oldLines, true),
    modified: patch.status === 'deleted' ? '' : joinText(newLines, true),
  };
}

const LANGUAGES: Array<[RegExp, string]> = [
  [/\.(ts|mts|cts|tsx)$/i, 'typescript'],
  [/\.(js|mjs|cjs|jsx)$/i, 'javascript'],
  [/\.(py|pyi)$/i, 'python'],
  [/\.json$/i, 'json'],
  [/\.(md|markdown)$/i, 'markdown'],
  [/\.ya?ml$/i, 'yaml'],
  [/\.(sh|bash)$/i, 'shell'],
  [/\.css$/i, 'css'],
  [/\.s[ac]ss$/i, 'scss'],
  [/\.html?$/i, 'html'],
  [/\.go$/i, 'go'],
  [/\.java$/i, 'java'],
  [/\.kt$/i, 'kotlin'],
  [/\.rs$/i, 'rust'],
  [/\.rb$/i, 'ruby'],
  [/\.(c|h)$/i, 'c'],
  [/\.(cc|cpp|hpp|cxx)$/i, 'cpp'],
  [/\.sql$/i, 'sql'],
  [/(^|\/)Dockerfile$/, 'dockerfile'],
];

/** Monaco's language id for a file name ('plaintext' when unknown). */
export function languageForPath(path: string): string {
  for (const [re, id] of LANGUAGES) if (re.test(path)) return id;
  return 'plaintext';
}
