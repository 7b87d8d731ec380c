import { mkdtemp, mkdir, readFile, readdir, realpath, rm, stat, writeFile, lstat, unlink, appendFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HostCloneAccess } from '../../lib/hosts/clone-access';
import { dependencyCacheDir, handOver, newSandboxIdentity, type SandboxIdentity } from '../../lib/sandbox';
import type { CommandSandbox } from './exec';
import { workspaceGit as git, isCredentialRefusal, isRepositoryNotFound, type GitResult } from './git';
import type { WorkspaceView } from '../types';

// One run's private checkout of the head revision. Layout of the run folder:
//   <run>/repo  the checkout (root): the only place tools may read or edit
//   <run>/home  HOME for the repository's commands
//   <run>/tmp   TMPDIR for them
// The folder is removed by dispose(). Every path a policy or tool names is
// resolved (realpath) and refused when it leaves the checkout or enters .git.
// The repository's commands run as the workspace's own sandbox user
// (lib/sandbox/identity.ts), so repo/, home/ and tmp/ belong to it, except
// repo/.git, which stays the server's and is read-only in the sandbox (a hook
// or config written there would run in the server's own git). Files the
// server writes (edits, git checkouts) are handed over before the next command.
// A repository on a code host is cloned with the host's token: it reaches
// git through the runner's credential helper, for the clone and the fetch
// alone, so it is in neither the clone's config nor its remote URL, and the
// repository's commands, which start later, never have it.

export class WorkspacePathError extends Error {
  readonly kind = 'path' as const;
  constructor(
    message: string,
    readonly requested: string,
  ) {
    super(message);
    this.name = 'WorkspacePathError';
  }
}

export class BinaryFileError extends Error {
  constructor(readonly file: string) {
    super(`${file} is a binary file; flowfix does not read or edit binary files`);
    this.name = 'BinaryFileError';
  }
}

const MAX_READ_BYTES = 1024 * 1024;
const MAX_SEARCH_LINE = 300;

/** Files that commands create and that must never show up in a fix's diff. */
// runners' own output beside the tests: node-tap 18+ (.tap/), nyc (.nyc_output/), coverage reports;
// the Python virtualenv setup makes (agent/testing/runners.ts PYTHON_VENV)
const DEFAULT_EXCLUDES = [
  'node_modules/',
  '__pycache__/',
  '*.pyc',
  '.pytest_cache/',
  '.flowfix-tmp/',
  '*.tsbuildinfo',
  '.tap/',
  '.nyc_output/',
  'coverage/',
  '.flowfix-venv/',
];

export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8000);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep);
}

export interface CreateWorkspaceInput {
  /** a local repository path or a URL git can clone */
  source: string;
  headRev: string;
  /** folder to create the run folder in (default: the OS temp folder) */
  parentDir?: string;
  /** extra patterns kept out of the diff (the JUnit report, build output) */
  excludes?: string[];
  /** the repository's dependency cache (default: lib/sandbox/cache.ts, by source) */
  cacheDir?: string;
  /** a repository on a code host: the credentials to clone it with, and the ref that holds a fork's head */
  access?: HostCloneAccess;
}

/**
 * A host's refusal of the clone (its credentials refused, or the repository
 * not there for them), naming the repository and the host; git's message
 * names the URL, which holds no token. null: some other failure.
 */
function refusalMessage(access: HostCloneAccess, err: unknown): string | null {
  const said = ((err as { stderr?: string }).stderr ?? '').trim().split('\n').at(-1) ?? '';
  if (isRepositoryNotFound(err)) {
    return `${access.label} has no repository at this URL for the credentials flowfix got from the host (HTTP 404): the App or token may not have been given access to it, or the repository's git URL is wrong (${said})`;
  }
  if (isCredentialRefusal(err)) {
    return `${access.label} refused the credentials flowfix got from the host (HTTP 401/403): its token may have expired or been revoked, or it has no access to the repository (${said})`;
  }
  return null;
}

export class Workspace implements WorkspaceView {
  private log = '';
  /** true from a reset() until anything may have changed the files: an edit, a command, a checkout */
  private pristine = false;
  private headTreeId: string | undefined;
  /** false once the server wrote files the sandbox user does not own yet */
  private handedOver = false;
  /** the uid/gid this workspace's commands run as */
  readonly identity: SandboxIdentity = newSandboxIdentity();

  private constructor(
    /** the repository's dependency cache, shared by its runs */
    readonly cacheDir: string,
    readonly runDir: string,
    readonly root: string,
    readonly home: string,
    readonly tmpDir: string,
    readonly headRev: string,
  ) {}

  /** Clones `source` at `headRev` into a fresh folder. */
  static async create(input: CreateWorkspaceInput): Promise<Workspace> {
    const runDir = await realpath(await mkdtemp(path.join(input.parentDir ?? tmpdir(), 'flowfix-run-')));
    try {
      const repo = path.join(runDir, 'repo');
      const home = path.join(runDir, 'home');
      const tmp = path.join(runDir, 'tmp');
      await Promise.all([mkdir(home), mkdir(tmp)]);
      const local = !/^[a-z][a-z0-9+.-]*:\/\//i.test(input.source) && !/^[^/]+@[^:]+:/.test(input.source);
      const { access } = input;
      const fromRemote = (run: () => Promise<GitResult>) =>
        run().catch((err: unknown) => {
          const refusal = access ? refusalMessage(access, err) : null;
          throw refusal ? new Error(refusal, { cause: err }) : err;
        });
      const credentials = access ? { credentials: access.credentials } : {};
      // --shared borrows the source's objects: a clone of a large local repository takes milliseconds
      await fromRemote(() => git(runDir, ['clone', '--quiet', '--no-checkout', ...(local ? ['--shared'] : []), '--', input.source, repo], credentials));
      const headCommit = ['rev-parse', '--verify', '--end-of-options', `${input.headRev}^{commit}`];
      if (access?.headRef && (await git(repo, ['rev-parse', '--quiet', ...headCommit.slice(1)], { okCodes: [1, 128] })).exitCode !== 0) {
        // a fork's pull request: its head is on none of the repository's branches, only under the host's ref
        await fromRemote(() => git(repo, ['fetch', '--quiet', '--no-tags', 'origin', `+${access.headRef}:refs/flowfix/change-head`], credentials));
      }
      const head = (await git(repo, headCommit)).stdout.trim();
      await git(repo, ['checkout', '--quiet', '--detach', head]);
      const excludes = [...DEFAULT_EXCLUDES, ...(input.excludes ?? [])];
      await appendFile(path.join(repo, '.git', 'info', 'exclude'), `\n# flowfix\n${excludes.join('\n')}\n`);
      return new Workspace(input.cacheDir ?? dependencyCacheDir(input.source), runDir, await realpath(repo), home, tmp, head);
    } catch (err) {
      await rm(runDir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * The sandbox of this workspace's commands: repo/, home/ and tmp/
   * writable, as the workspace's user; hands it the files the server wrote.
   */
  /** More patterns kept out of the fix's diff: a report whose name is known only once setup read the repository. */
  async exclude(patterns: string[]): Promise<void> {
    await appendFile(path.join(this.root, '.git', 'info', 'exclude'), `${patterns.join('\n')}\n`);
  }

  async commandSandbox(opts: { install?: boolean } = {}): Promise<CommandSandbox & { cacheDir?: string }> {
    const writable = [this.root, this.home, this.tmpDir];
    if (!this.handedOver) {
      await handOver(writable, this.identity);
      this.handedOver = true;
    }
    const cache = this.cacheDir;
    if (opts.install) {
      // the last run's user wrote it: this run's user takes it over
      await mkdir(cache, { recursive: true });
      await handOver([cache], this.identity);
      return { writable: [...writable, cache], identity: this.identity, cacheDir: cache };
    }
    const hasCache = await stat(cache).then(
      () => true,
      () => false,
    );
    return { writable, identity: this.identity, ...(hasCache ? { readOnly: [cache], cacheDir: cache } : {}) };
  }

  /**
   * A fresh folder under the run's tmp/ for the server to write into and a
   * later command to use (coverage's bootstrap and output): outside repo/, so
   * nothing in it can reach a fix's diff; handed to the sandbox's user with the
   * next command.
   */
  async scratchDir(prefix: string): Promise<string> {
    const dir = await mkdtemp(path.join(this.tmpDir, `${prefix.replace(/[^\w-]/g, '')}-`));
    this.handedOver = false;
    return dir;
  }

  /** Removes the whole run folder. */
  async dispose(): Promise<void> {
    await rm(this.runDir, { recursive: true, force: true });
  }

  /**
   * The absolute path of a workspace-relative path, after following symlinks.
   * For a path that does not exist yet, its nearest existing ancestor is checked.
   */
  async resolve(rel: string, opts: { allowRoot?: boolean } = {}): Promise<string> {
    if (typeof rel !== 'string' || rel.includes('\0')) throw new WorkspacePathError('invalid path', String(rel));
    if (path.isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel)) {
      throw new WorkspacePathError(`absolute paths are not allowed: ${rel}`, rel);
    }
    const joined = path.resolve(this.root, rel);
    if (!isInside(this.root, joined)) throw new WorkspacePathError(`path leaves the workspace: ${rel}`, rel);
    if (joined === this.root && !opts.allowRoot) throw new WorkspacePathError('path is the workspace root', rel);
    const relToRoot = path.relative(this.root, joined);
    if (relToRoot === '.git' || relToRoot.startsWith(`.git${path.sep}`)) {
      throw new WorkspacePathError(`the .git folder is off limits: ${rel}`, rel);
    }
    // Follow symlinks: the nearest existing ancestor must resolve inside too.
    let probe = joined;
    let rest = '';
    for (;;) {
      try {
        const real = await realpath(probe);
        if (!isInside(this.root, real)) throw new WorkspacePathError(`path leaves the workspace through a symlink: ${rel}`, rel);
        return rest ? path.join(real, rest) : real;
      } catch (err) {
        if (err instanceof WorkspacePathError) throw err;
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
        // a dangling symlink is refused: its target may lie anywhere
        const isLink = await lstat(probe).then(
          (s) => s.isSymbolicLink(),
          () => false,
        );
        if (isLink) throw new WorkspacePathError(`dangling symlink: ${rel}`, rel);
        rest = rest ? path.join(path.basename(probe), rest) : path.basename(probe);
        probe = path.dirname(probe);
        if (!isInside(this.root, probe)) throw new WorkspacePathError(`path leaves the workspace: ${rel}`, rel);
      }
    }
  }

  /** Workspace-relative form of an absolute path inside the workspace (posix separators). */
  relative(abs: string): string {
    return path.relative(this.root, abs).split(path.sep).join('/');
  }

  async readFile(rel: string, range?: { start: number; end: number }): Promise<string> {
    const abs = await this.resolve(rel);
    const info = await stat(abs);
    if (!info.isFile()) throw new WorkspacePathError(`not a file: ${rel}`, rel);
    if (info.size > MAX_READ_BYTES && !range) {
      throw new WorkspacePathError(`${rel} is ${info.size} bytes; read a line range instead`, rel);
    }
    const bytes = await readFile(abs);
    if (looksBinary(bytes)) throw new BinaryFileError(rel);
    const text = bytes.toString('utf8');
    if (!range) return text;
    const lines = text.split('\n');
    const start = Math.max(1, Math.floor(range.start));
    const end = Math.min(lines.length, Math.floor(range.end));
    return lines.slice(start - 1, Math.max(start - 1, end)).join('\n');
  }

  async listDir(rel: string): Promise<Array<{ name: string; kind: 'file' | 'dir' }>> {
    const abs = rel === '' || rel === '.' ? this.root : await this.resolve(rel);
    const entries = await readdir(abs, { withFileTypes: true });
    const out: Array<{ name: string; kind: 'file' | 'dir' }> = [];
    for (const e of entries) {
      if (abs === this.root && e.name === '.git') continue;
      if (e.isSymbolicLink()) {
        // show a link only when it stays inside
        const target = await this.resolve(path.relative(this.root, path.join(abs, e.name))).catch(() => null);
        if (!target) continue;
        const s = await stat(target).catch(() => null);
        if (s) out.push({ name: e.name, kind: s.isDirectory() ? 'dir' : 'file' });
        continue;
      }
      if (e.isDirectory()) out.push({ name: e.name, kind: 'dir' });
      else if (e.isFile()) out.push({ name: e.name, kind: 'file' });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async search(query: string, opts: { glob?: string; maxResults?: number } = {}): Promise<Array<{ file: string; line: number; text: string }>> {
    if (!query) return [];
    const max = Math.min(Math.max(opts.maxResults ?? 50, 1), 500);
    const args = ['grep', '-n', '-I', '--no-color', '--untracked', '--exclude-standard', '-F', '-e', query];
    if (opts.glob) args.push('--', opts.glob.startsWith(':') ? opts.glob : `:(glob)${opts.glob}`);
    const { stdout } = await git(this.root, args, { okCodes: [1] });
    const out: Array<{ file: string; line: number; text: string }> = [];
    for (const row of stdout.split('\n')) {
      const m = /^(.*?):(\d+):(.*)$/.exec(row);
      if (!m) continue;
      out.push({ file: m[1], line: Number(m[2]), text: m[3].slice(0, MAX_SEARCH_LINE) });
      if (out.length >= max) break;
    }
    return out;
  }

  lastLog(): string {
    return this.log;
  }

  setLastLog(text: string): void {
    this.log = text;
  }

  /** Writes a text file; refuses escapes, .git and binary content or targets. */
  async writeFile(rel: string, content: string): Promise<void> {
    const abs = await this.resolve(rel);
    if (content.includes('\0')) throw new BinaryFileError(rel);
    const existing = await this.readBytesIfFile(abs);
    if (existing && looksBinary(existing)) throw new BinaryFileError(rel);
    this.markChanged();
    this.handedOver = false;
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }

  async deleteFile(rel: string): Promise<void> {
    const abs = await this.resolve(rel);
    const info = await lstat(abs);
    if (!info.isFile() && !info.isSymbolicLink()) throw new WorkspacePathError(`not a file: ${rel}`, rel);
    this.markChanged();
    await unlink(abs);
  }

  async exists(rel: string): Promise<boolean> {
    try {
      await stat(await this.resolve(rel));
      return true;
    } catch {
      return false;
    }
  }

  async isBinary(rel: string): Promise<boolean> {
    const bytes = await this.readBytesIfFile(await this.resolve(rel));
    return bytes !== null && looksBinary(bytes);
  }

  private async readBytesIfFile(abs: string): Promise<Buffer | null> {
    try {
      const handle = await open(abs, 'r');
      try {
        const buf = Buffer.alloc(8000);
        const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
        return buf.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    } catch {
      return null;
    }
  }

  /** `git diff` of the workspace (tracked and new files) against the head revision. */
  async diff(): Promise<string> {
    await git(this.root, ['add', '--all', '--', '.']);
    const { stdout } = await git(this.root, ['diff', '--cached', '--no-color', '--no-ext-diff', '--binary', this.headRev]);
    return stdout;
  }

  /** Files the workspace changed against the head revision. */
  async changedFiles(): Promise<string[]> {
    await git(this.root, ['add', '--all', '--', '.']);
    const { stdout } = await git(this.root, ['diff', '--cached', '--name-only', '--no-renames', this.headRev]);
    return stdout.split('\n').filter(Boolean);
  }

  /** Back to the head revision: every edit undone, new (non-ignored) files removed. */
  async reset(): Promise<void> {
    this.markChanged();
    this.handedOver = false;
    await git(this.root, ['reset', '--quiet', '--hard', this.headRev]);
    await git(this.root, ['clean', '-fdq']);
    this.pristine = true;
  }

  /** `git apply` of a patch to the working tree (`options` before the `-` that reads it from stdin). */
  async applyPatch(patch: string, options: string[]): Promise<void> {
    this.markChanged();
    this.handedOver = false;
    await git(this.root, ['apply', ...options, '-'], { input: patch });
  }

  /**
   * Something may have changed the files outside this class's own methods (a
   * command): the workspace is no longer known to equal the head.
   */
  markChanged(): void {
    this.pristine = false;
  }

  /**
   * The head revision's tree while the files are known to be exactly the
   * head's (since reset(), nothing written and no command run), else null.
   * Saves the compile gate a snapshot (two git processes) per candidate.
   */
  async pristineTree(): Promise<string | null> {
    if (!this.pristine) return null;
    this.headTreeId ??= (await git(this.root, ['rev-parse', '--verify', '--end-of-options', `${this.headRev}^{tree}`])).stdout.trim();
    return this.pristine ? this.headTreeId : null;
  }

  /** Checks out another revision (the base, to see if a failure predates the change). */
  async checkoutRevision(rev: string): Promise<void> {
    const commit = (await git(this.root, ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`])).stdout.trim();
    this.markChanged();
    this.handedOver = false;
    await git(this.root, ['checkout', '--quiet', '--force', '--detach', commit]);
    await git(this.root, ['clean', '-fdq']);
  }
}
