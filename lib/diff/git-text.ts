import 'server-only';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runGit } from '../git/runner';
import { isSafeRelativePath } from './apply';

// Git as a text tool for the diff viewer: read a file at a revision, and turn
// edited texts back into a unified diff that `git apply` accepts (the
// reviewer's "edit then accept"). Git itself writes the diff so its quirks
// (quoting, "\ No newline", mode lines) are exactly what the apply side reads.

const MAX_BYTES = 8 * 1024 * 1024;

const REV = /^[0-9a-f]{7,64}$/i;

export { isSafeRelativePath };

/**
 * The text of `filePath` at `rev` in a local repository, or null when it
 * cannot be read (not a local path, unknown revision, no such file, binary).
 */
export async function readFileAtRevision({ repoPath, rev, filePath }: { repoPath: string; rev: string; filePath: string }): Promise<string | null> {
  if (!REV.test(rev) || !isSafeRelativePath(filePath) || !path.isAbsolute(repoPath)) return null;
  try {
    const { stdoutBytes: buf } = await runGit('read', repoPath, ['show', `${rev}:${filePath}`], { maxOutputBytes: MAX_BYTES });
    if (buf.includes(0)) return null;
    return buf.toString('utf8');
  } catch {
    return null;
  }
}

export interface TextFileChange {
  path: string;
  /** null: the file does not exist before */
  original: string | null;
  /** null: the file does not exist after */
  modified: string | null;
}

/** A unified diff (a/ b/ paths, as `git diff` writes it) from whole texts before and after. */
export async function unifiedDiffFromTexts({ files }: { files: TextFileChange[] }): Promise<string> {
  for (const f of files) if (!isSafeRelativePath(f.path)) throw new Error(`unsafe path: ${f.path}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'flowfix-edit-'));
  // a scratch repository of flowfix's own
  const scratchGit = (...args: string[]) => runGit('workspace', dir, args, { config: { 'core.quotepath': 'false' }, maxOutputBytes: MAX_BYTES });
  const put = async (rel: string, text: string) => {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
  };
  try {
    await scratchGit('init', '-q');
    for (const f of files) if (f.original !== null) await put(f.path, f.original);
    await scratchGit('add', '--all');
    for (const f of files) {
      if (f.modified === null) await rm(path.join(dir, f.path), { force: true });
      else await put(f.path, f.modified);
    }
    // new files must be in the index (intent-to-add) for `git diff` to show them
    const added = files.filter((f) => f.original === null && f.modified !== null).map((f) => f.path);
    if (added.length) await scratchGit('add', '-N', '--', ...added);
    const { stdout } = await scratchGit('diff', '--no-color', '--no-ext-diff', '--');
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `git diff <options> from to` in a local repository, or null when it cannot
 * be read (not a local path, an unknown revision) or is larger than maxBytes.
 */
async function readDiff(repoPath: string, from: string, to: string, options: string[], maxBytes: number): Promise<Buffer | null> {
  if (!REV.test(from) || !REV.test(to) || !path.isAbsolute(repoPath) || !existsSync(repoPath)) return null;
  try {
    return (await runGit('read', repoPath, ['diff', ...options, from, to, '--'], { maxOutputBytes: maxBytes })).stdoutBytes;
  } catch {
    return null;
  }
}

/**
 * `git diff from to` in a local repository (the change's own diff, or what
 * the developer did between two revisions), or null when it cannot be read
 * or is larger than maxBytes.
 */
export async function diffBetweenRevisions({
  repoPath,
  from,
  to,
  maxBytes = 512 * 1024,
}: {
  repoPath: string;
  from: string;
  to: string;
  maxBytes?: number;
}): Promise<string | null> {
  const diff = await readDiff(repoPath, from, to, ['--no-color', '--no-ext-diff', '--no-renames'], maxBytes);
  return diff === null ? null : diff.toString('utf8');
}

/**
 * The paths a local repository's diff between two revisions touches (both
 * sides of a rename), sorted; null when it cannot be read (not a local path,
 * an unknown revision). At most `max` paths.
 */
export async function filesChangedBetween({
  repoPath,
  from,
  to,
  max = 1000,
}: {
  repoPath: string;
  from: string;
  to: string;
  max?: number;
}): Promise<string[] | null> {
  const names = await readDiff(repoPath, from, to, ['--name-only', '--no-renames', '-z'], 4 * 1024 * 1024);
  if (names === null) return null;
  return [...new Set(names.toString('utf8').split('\0').filter(Boolean))].sort().slice(0, max);
}
