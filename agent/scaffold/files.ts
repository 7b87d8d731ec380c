// Walks a workspace for source files. Skips dependency, build and VCS folders
// so that indexing a real repository stays fast and suspects are never in
// code the change cannot own.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { workspaceGit as git } from '../workspace/git';

const IGNORED_DIRS = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'build',
  'out',
  'coverage',
  '.next',
  '.turbo',
  '.cache',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.tox',
  '.nox',
  'venv',
  '.venv',
  '.flowfix-venv',
  'env',
  'site-packages',
  '.eggs',
  'target',
  'vendor',
]);

export const TS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
export const PY_EXTENSIONS = ['.py'];

/** Caps the walk: a workspace bigger than this is indexed partially, not forever. */
const MAX_FILES = 20_000;

export interface SourceFiles {
  ts: string[];
  py: string[];
  /** every package.json (what a package-root import resolves through) */
  packages: string[];
}

function isIgnoredDir(name: string): boolean {
  // Python virtualenvs come under many names; `pyvenv.cfg` is checked by callers
  // that need it, the common names are enough here.
  return IGNORED_DIRS.has(name) || name.endsWith('.egg-info');
}

export function languageOf(file: string): 'ts' | 'py' | null {
  if (file.endsWith('.d.ts')) return null;
  const ext = path.extname(file);
  if (TS_EXTENSIONS.includes(ext)) return 'ts';
  if (PY_EXTENSIONS.includes(ext)) return 'py';
  return null;
}

/**
 * In a git checkout, the files git does not ignore (tracked, or new and not
 * ignored), relative to `root`; null elsewhere. A build's output (css-what's
 * lib/ copies of its parser) is ignored there, and must never be a suspect.
 */
async function notIgnored(root: string): Promise<Set<string> | null> {
  try {
    const { stdout } = await git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { maxOutputBytes: 64 * 1024 * 1024 });
    return new Set(stdout.split('\0').filter(Boolean));
  } catch {
    return null;
  }
}

/** Workspace-relative, forward-slash paths of every TS/JS and Python source file. */
export async function listSourceFiles({ root }: { root: string }): Promise<SourceFiles> {
  const found: SourceFiles = { ts: [], py: [], packages: [] };
  const listed = await notIgnored(root);
  let count = 0;
  async function walk(rel: string): Promise<void> {
    if (count >= MAX_FILES) return;
    const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      // Symlinks are not followed: they may point out of the workspace.
      if (entry.isDirectory()) {
        if (!isIgnoredDir(entry.name) && !entry.name.startsWith('.')) await walk(child);
      } else if (entry.isFile()) {
        if (listed && !listed.has(child)) continue;
        if (entry.name === 'package.json') found.packages.push(child);
        const lang = languageOf(entry.name);
        if (lang && count < MAX_FILES) {
          found[lang].push(child);
          count += 1;
        }
      }
    }
  }
  await walk('');
  return found;
}
