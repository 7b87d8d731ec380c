// Applying a fix to the developer's working tree, all or nothing. The fix is
// a unified diff made at the change's head; the working tree may have moved
// on locally. Each hunk is looked for where it says, then at the nearest
// offset where its old lines match exactly (as `git apply` does, without
// fuzz); a hunk whose lines were edited locally is a conflict, and then no
// file is written. No 'vscode' import: tested with node --test.
import { parsePatch, patchPath, type FilePatch, type PatchHunk } from '../../../lib/diff/apply';

export interface FileWrite {
  path: string;
  /** the text on disk now (null: no such file) */
  before: string | null;
  /** the text to write (null: delete the file) */
  after: string | null;
}

export type FixPlan = { ok: true; writes: FileWrite[] } | { ok: false; problems: string[] };

/** The working tree as the plan reads and writes it (repository-relative paths). */
export interface WorkingTree {
  read(relPath: string): Promise<string | null>;
  write(relPath: string, text: string): Promise<void>;
  remove(relPath: string): Promise<void>;
}

/**
 * The file's lines, each with the line break it had. The fix's diff is read
 * with LF line breaks (parsePatch), and a working tree may hold CRLF (a
 * Windows checkout, core.autocrlf): lines are matched without their breaks,
 * and written back with them, so applying a fix does not rewrite every line.
 */
function splitLines(text: string): { lines: string[]; breaks: string[]; finalNewline: boolean; eol: string } {
  if (text === '') return { lines: [], breaks: [], finalNewline: true, eol: '\n' };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  const ended = finalNewline ? lines.length : lines.length - 1;
  const breaks = lines.map((line, i) => (i < ended && line.endsWith('\r') ? '\r\n' : '\n'));
  for (let i = 0; i < ended; i++) if (breaks[i] === '\r\n') lines[i] = lines[i]!.slice(0, -1);
  // new lines take the break most of the file's lines have (a tie: LF, git's own),
  // and so does a last line that had none, should the fix put lines after it
  const crlf = breaks.slice(0, ended).filter((b) => b === '\r\n').length;
  const eol = crlf * 2 > ended ? '\r\n' : '\n';
  if (ended < lines.length) breaks[ended] = eol;
  return { lines, breaks, finalNewline, eol };
}

function matchesAt(lines: readonly string[], at: number, old: readonly string[]): boolean {
  if (at < 0 || at + old.length > lines.length) return false;
  for (let i = 0; i < old.length; i++) if (lines[at + i] !== old[i]) return false;
  return true;
}

/** Where the hunk's old lines are, nearest to where it expects them, not before `from`; -1 if nowhere. */
function locate(lines: readonly string[], expected: number, from: number, old: readonly string[]): number {
  for (let d = 0; d <= lines.length; d++) {
    for (const at of d === 0 ? [expected] : [expected - d, expected + d]) {
      if (at >= from && matchesAt(lines, at, old)) return at;
    }
  }
  return -1;
}

/** The file's text with the patch's hunks applied at their (possibly shifted) places; a string naming the conflict otherwise. */
export function applyHunks(text: string, hunks: readonly PatchHunk[], path: string): { text: string } | { conflict: string } {
  const src = splitLines(text);
  const out: string[] = [];
  const outBreaks: string[] = [];
  const keep = (from: number, to: number) => {
    out.push(...src.lines.slice(from, to));
    outBreaks.push(...src.breaks.slice(from, to));
  };
  let finalNewline = src.finalNewline;
  let cursor = 0;
  let offset = 0;
  for (const hunk of hunks) {
    const old = hunk.lines.filter((l) => l.type !== '+').map((l) => l.text);
    const expected = (hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1) + offset;
    const at = old.length === 0 ? Math.min(Math.max(expected, cursor), src.lines.length) : locate(src.lines, expected, cursor, old);
    if (at < 0) return { conflict: `${path}: your local changes conflict with the fix near line ${hunk.oldStart}` };
    offset = at - (expected - offset);
    keep(cursor, at);
    // a context line keeps its own break; an added line takes the file's
    let from = at;
    for (const line of hunk.lines) {
      if (line.type === '+') {
        out.push(line.text);
        outBreaks.push(src.eol);
      } else {
        if (line.type === ' ') {
          out.push(line.text);
          outBreaks.push(src.breaks[from] ?? src.eol);
        }
        from++;
      }
    }
    cursor = at + old.length;
    if (cursor === src.lines.length) {
      if (hunk.newNoNewline) finalNewline = false;
      else if (hunk.oldNoNewline || hunk.newLines > 0) finalNewline = true;
    }
  }
  keep(cursor, src.lines.length);
  if (out.length === 0) return { text: '' };
  const last = out.length - 1;
  return { text: out.map((line, i) => line + (i < last || finalNewline ? outBreaks[i] : '')).join('') };
}

function isInside(p: string): boolean {
  return !!p && !p.startsWith('/') && !p.includes('\\') && !p.includes('\0') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && s !== '.git');
}

async function planFile(file: FilePatch, tree: WorkingTree): Promise<{ writes: FileWrite[] } | { problem: string }> {
  const target = patchPath(file);
  for (const p of [file.oldPath, file.newPath]) if (p !== null && !isInside(p)) return { problem: `${p}: outside the repository; nothing was written` };
  if (file.binary) return { problem: `${target}: a binary change; apply it with "Apply as commit" or git` };
  if (file.status === 'added') {
    const existing = await tree.read(target);
    const added = applyHunks('', file.hunks, target);
    if ('conflict' in added) return { problem: added.conflict };
    if (existing !== null && existing !== added.text) return { problem: `${target}: the fix adds this file, and your working tree already has a different one` };
    return { writes: existing === added.text ? [] : [{ path: target, before: existing, after: added.text }] };
  }
  const source = file.oldPath ?? target;
  const current = await tree.read(source);
  if (current === null) return { problem: `${source}: the fix changes this file, and it was deleted in your working tree` };
  const applied = applyHunks(current, file.hunks, source);
  if ('conflict' in applied) return { problem: applied.conflict };
  if (file.status === 'deleted') return { writes: [{ path: source, before: current, after: null }] };
  if (file.status === 'renamed' && file.newPath && file.newPath !== source) {
    if ((await tree.read(file.newPath)) !== null) return { problem: `${file.newPath}: the fix renames ${source} to it, and it already exists in your working tree` };
    return { writes: [{ path: source, before: current, after: null }, { path: file.newPath, before: null, after: applied.text }] };
  }
  return { writes: [{ path: source, before: current, after: applied.text }] };
}

/** Everything the fix would write, or every conflict that stops it (then nothing may be written). */
export async function planFix(diff: string, tree: WorkingTree): Promise<FixPlan> {
  const files = parsePatch(diff);
  if (files.length === 0) return { ok: false, problems: ['The fix has no file changes'] };
  const writes: FileWrite[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const planned = await planFile(file, tree);
    if ('problem' in planned) problems.push(planned.problem);
    else writes.push(...planned.writes);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, writes };
}

/** Writes a plan; if any write fails, puts back what was already written and rethrows. */
export async function writePlan(writes: readonly FileWrite[], tree: WorkingTree): Promise<void> {
  const done: FileWrite[] = [];
  try {
    for (const w of writes) {
      if (w.after === null) await tree.remove(w.path);
      else await tree.write(w.path, w.after);
      done.push(w);
    }
  } catch (err) {
    await undoPlan(done, tree);
    throw err;
  }
}

/** Puts the files of a written plan back as they were. */
export async function undoPlan(writes: readonly FileWrite[], tree: WorkingTree): Promise<void> {
  for (const w of [...writes].reverse()) {
    if (w.before === null) await tree.remove(w.path).catch(() => undefined);
    else await tree.write(w.path, w.before).catch(() => undefined);
  }
}
