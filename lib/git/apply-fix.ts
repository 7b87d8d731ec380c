import 'server-only';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GitError, gitOut as gitOutAs, receivePackOption, runGit as runGitAs, serverGitCredentials, type GitCredentials, type GitRunOptions } from './runner';

// Writes an accepted fix as a commit on a change's branch, in the repository
// the change lives in. Two kinds of Repository.gitUrl:
//
// - a local path (a working repository on the server's disk): the commit is
//   built with plumbing against a throw-away index file (read-tree, apply
//   --cached, write-tree, commit-tree), so neither the repository's work tree
//   nor its index is ever touched, then the branch moves with
//   `update-ref <branch> <new> <expected-old>`, git's compare-and-swap;
// - a URL (ssh://, https://, file://, host:path): a temporary bare clone of the
//   one branch, the same plumbing there, then
//   `push --force-with-lease=<branch>:<expected-old>`, the remote's
//   compare-and-swap.
//
// Either way the branch moves only if it is still where flowfix found it, so
// a developer's push in the meantime is never overwritten. Each commit names
// its fix in a trailer (Flowfix-Fix: <id>), which is how a crash between the
// ref update and the database write is recognised later (findFixCommit).

// All of it runs through the push profile: the repository is the change's
// own (its config and hooks are not flowfix's to run), and the only
// credentials are the ones handed in.
const runGit = (cwd: string, args: string[], opts: GitRunOptions = {}) => runGitAs('push', cwd, args, opts);
const gitOut = (cwd: string, args: string[], opts: GitRunOptions = {}) => gitOutAs('push', cwd, args, opts);

export const FIX_TRAILER = 'Flowfix-Fix';
export const COMMITTER = { name: 'flowfix', email: 'flowfix@localhost' } as const;

export interface GitPerson {
  name: string;
  email: string;
}

export interface ApplyFixCommitInput {
  gitUrl: string;
  branch: string;
  /** the branch tip the fix was made against (the revision's headRev) */
  expectedHead: string;
  diff: string;
  author: GitPerson;
  /** the whole commit message, trailers included (see fixCommitMessage) */
  message: string;
  fixId: string;
  /** for a remote (default: the server's ssh agent and ssh command, serverGitCredentials) */
  credentials?: GitCredentials;
}

export type ApplyFixCommitResult =
  /** the commit is on the branch now */
  | { outcome: 'applied'; commit: string }
  /** an earlier attempt already put this fix on the branch (its trailer is there) */
  | { outcome: 'already_applied'; commit: string }
  /** the branch is not where the fix was made (null: the branch is gone); nothing written */
  | { outcome: 'moved'; actualHead: string | null }
  /** the branch is checked out in a work tree on the server; nothing written */
  | { outcome: 'checked_out'; worktree: string };

/** A fix that cannot be written as a commit (the diff does not apply, the repository is unreachable). */
export class ApplyFixError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApplyFixError';
  }
}

/** True for gitUrls that are URLs (scheme:// or scp-like host:path), false for local paths. */
export function isRemoteGitUrl(gitUrl: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(gitUrl)) return true;
  // scp-like user@host:path, but not a Windows drive (C:\...)
  return /^[^/\\:]{2,}:/.test(gitUrl) && !path.isAbsolute(gitUrl);
}

const BRANCH_NAME = /^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._\-/]+$/;

function assertInputs({ branch, expectedHead }: { branch: string; expectedHead: string }): void {
  // both end up in git arguments and refspecs: refuse anything that could be read as an option or a pattern
  if (!BRANCH_NAME.test(branch) || branch.endsWith('.lock') || branch.endsWith('/')) {
    throw new ApplyFixError(`"${branch}" is not a branch name flowfix can update`);
  }
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(expectedHead)) {
    throw new ApplyFixError(`"${expectedHead}" is not a full commit id`);
  }
}

/** The commit message: subject, the summary as plain text, then the trailers. */
export function fixCommitMessage({ subject, body, fixId, runId }: { subject: string; body?: string; fixId: string; runId?: string | null }): string {
  const oneLine = subject.replace(/\s+/g, ' ').trim().slice(0, 100) || 'flowfix: fix failing tests';
  const trailers = ['Fixed-by: flowfix', `${FIX_TRAILER}: ${fixId}`, ...(runId ? [`Flowfix-Run: ${runId}`] : [])];
  const text = body?.trim();
  return `${oneLine}\n\n${text ? `${text}\n\n` : ''}${trailers.join('\n')}\n`;
}

async function readBranchTip(dir: string, branch: string): Promise<string | null> {
  const res = await runGit(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { okCodes: [1] });
  return res.exitCode === 0 ? res.stdout.trim() : null;
}

/** The newest commit in since..ref whose Flowfix-Fix trailer names the fix, if any. */
async function findFixCommitIn({ dir, ref, since, fixId }: { dir: string; ref: string; since: string; fixId: string }): Promise<string | null> {
  const known = await runGit(dir, ['cat-file', '-e', `${since}^{commit}`], { okCodes: [1, 128] });
  const range = known.exitCode === 0 ? [`${since}..${ref}`] : ['-n', '200', ref];
  const out = await gitOut(dir, ['log', `--format=%H%x1f%(trailers:key=${FIX_TRAILER},valueonly,separator=%x1e)`, ...range, '--']);
  for (const line of out.split('\n')) {
    const [sha, values = ''] = line.split('\x1f');
    if (values.split('\x1e').some((v) => v.trim() === fixId)) return sha;
  }
  return null;
}

/** The non-bare work tree that has the branch checked out, if any. */
async function worktreeWithBranch(dir: string, branch: string): Promise<string | null> {
  const out = await gitOut(dir, ['worktree', 'list', '--porcelain']);
  for (const block of out.split('\n\n')) {
    const lines = block.split('\n');
    const worktree = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (worktree && !lines.includes('bare') && lines.includes(`branch refs/heads/${branch}`)) return worktree;
  }
  return null;
}

/** Builds the fix commit on top of `parent` without a work tree; returns its id. */
async function writeFixCommit({
  dir,
  scratch,
  parent,
  diff,
  author,
  message,
}: {
  dir: string;
  scratch: string;
  parent: string;
  diff: string;
  author: GitPerson;
  message: string;
}): Promise<string> {
  const env = { GIT_INDEX_FILE: path.join(scratch, 'index') };
  await runGit(dir, ['read-tree', parent], { env });
  try {
    await runGit(dir, ['apply', '--cached', '--whitespace=nowarn', '-'], { env, input: diff.endsWith('\n') ? diff : `${diff}\n` });
  } catch (err) {
    throw new ApplyFixError(`the fix does not apply to ${parent.slice(0, 12)}: ${(err as GitError).stderr?.trim() || (err as Error).message}`, {
      cause: err,
    });
  }
  const tree = await gitOut(dir, ['write-tree'], { env });
  return gitOut(dir, ['commit-tree', tree, '-p', parent, '-F', '-'], {
    input: message,
    env: {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: COMMITTER.name,
      GIT_COMMITTER_EMAIL: COMMITTER.email,
    },
  });
}

async function withScratch<T>(fn: (scratch: string) => Promise<T>): Promise<T> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'flowfix-apply-'));
  try {
    return await fn(scratch);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

async function assertRepository(dir: string): Promise<void> {
  try {
    await gitOut(dir, ['rev-parse', '--git-dir']);
  } catch (err) {
    throw new ApplyFixError(`${dir} is not a git repository`, { cause: err });
  }
}

async function applyInLocalRepository(input: ApplyFixCommitInput): Promise<ApplyFixCommitResult> {
  const dir = path.resolve(input.gitUrl);
  await assertRepository(dir);
  const tip = await readBranchTip(dir, input.branch);
  if (tip !== input.expectedHead) return explainMoved({ dir, tip, input });
  const worktree = await worktreeWithBranch(dir, input.branch);
  if (worktree) return { outcome: 'checked_out', worktree };
  return withScratch(async (scratch) => {
    const commit = await writeFixCommit({ dir, scratch, parent: input.expectedHead, ...input });
    const ref = `refs/heads/${input.branch}`;
    const swap = await runGit(dir, ['update-ref', '-m', `flowfix: apply fix ${input.fixId}`, ref, commit, input.expectedHead], {
      okCodes: [1, 128],
    });
    if (swap.exitCode === 0) return { outcome: 'applied', commit };
    // the compare-and-swap lost: someone moved the branch between our read and our write
    const now = await readBranchTip(dir, input.branch);
    if (now !== input.expectedHead) return explainMoved({ dir, tip: now, input });
    throw new ApplyFixError(`cannot update ${ref}: ${swap.stderr.trim()}`);
  });
}

async function explainMoved({ dir, tip, input }: { dir: string; tip: string | null; input: ApplyFixCommitInput }): Promise<ApplyFixCommitResult> {
  if (tip) {
    const mine = await findFixCommitIn({ dir, ref: tip, since: input.expectedHead, fixId: input.fixId });
    if (mine) return { outcome: 'already_applied', commit: mine };
  }
  return { outcome: 'moved', actualHead: tip };
}

async function remoteBranchTip(gitUrl: string, branch: string, credentials: GitCredentials): Promise<string | null> {
  try {
    const out = await gitOut(os.tmpdir(), ['ls-remote', '--heads', '--', gitUrl, `refs/heads/${branch}`], { credentials });
    const line = out.split('\n').find((l) => l.endsWith(`\trefs/heads/${branch}`));
    return line ? line.split('\t')[0] : null;
  } catch (err) {
    throw new ApplyFixError(`cannot reach ${gitUrl}: ${(err as GitError).stderr?.trim() || (err as Error).message}`, { cause: err });
  }
}

/** A bare clone of one branch of a remote, in `scratch/repo`. */
async function cloneBranch({
  gitUrl,
  branch,
  scratch,
  credentials,
}: {
  gitUrl: string;
  branch: string;
  scratch: string;
  credentials: GitCredentials;
}): Promise<string> {
  const dir = path.join(scratch, 'repo');
  try {
    await runGit(scratch, ['clone', '--bare', '--quiet', '--no-tags', '--single-branch', '--branch', branch, '--', gitUrl, dir], { credentials });
  } catch (err) {
    throw new ApplyFixError(`cannot fetch ${branch} from ${gitUrl}: ${(err as GitError).stderr?.trim() || (err as Error).message}`, {
      cause: err,
    });
  }
  return dir;
}

async function applyInRemoteRepository(input: ApplyFixCommitInput): Promise<ApplyFixCommitResult> {
  const credentials = input.credentials ?? serverGitCredentials();
  const remoteTip = await remoteBranchTip(input.gitUrl, input.branch, credentials);
  if (remoteTip === null) return { outcome: 'moved', actualHead: null };
  return withScratch(async (scratch) => {
    const dir = await cloneBranch({ gitUrl: input.gitUrl, branch: input.branch, scratch, credentials });
    const tip = await readBranchTip(dir, input.branch);
    if (tip !== input.expectedHead) return explainMoved({ dir, tip, input });
    const commit = await writeFixCommit({ dir, scratch, parent: input.expectedHead, ...input });
    const ref = `refs/heads/${input.branch}`;
    const push = await runGit(
      dir,
      [
        'push',
        '--porcelain',
        '--quiet',
        ...receivePackOption(input.gitUrl),
        `--force-with-lease=${ref}:${input.expectedHead}`,
        '--',
        input.gitUrl,
        `${commit}:${ref}`,
      ],
      { okCodes: [1, 128], credentials },
    );
    if (push.exitCode === 0) return { outcome: 'applied', commit };
    const now = await remoteBranchTip(input.gitUrl, input.branch, credentials);
    if (now === commit) return { outcome: 'applied', commit };
    if (now !== input.expectedHead) {
      // the lease lost: fetch what is there now to tell "moved" from "our earlier attempt"
      const again = await withScratch((s) =>
        cloneBranch({ gitUrl: input.gitUrl, branch: input.branch, scratch: s, credentials }).then((d) => explainMoved({ dir: d, tip: now, input })),
      );
      return again;
    }
    throw new ApplyFixError(`the push to ${input.gitUrl} was refused: ${(push.stderr || push.stdout).trim()}`);
  });
}

/** Applies the fix as one commit on the branch if the branch is still at expectedHead. */
export async function applyFixCommit(input: ApplyFixCommitInput): Promise<ApplyFixCommitResult> {
  assertInputs(input);
  return isRemoteGitUrl(input.gitUrl) ? applyInRemoteRepository(input) : applyInLocalRepository(input);
}

/**
 * The commit on the branch (after `since`) that carries this fix's trailer:
 * how a crash after the ref update but before the database write is found.
 */
export async function findFixCommit({
  gitUrl,
  branch,
  since,
  fixId,
  credentials = serverGitCredentials(),
}: {
  gitUrl: string;
  branch: string;
  since: string;
  fixId: string;
  credentials?: GitCredentials;
}): Promise<string | null> {
  assertInputs({ branch, expectedHead: since });
  if (!isRemoteGitUrl(gitUrl)) {
    const dir = path.resolve(gitUrl);
    await assertRepository(dir);
    const tip = await readBranchTip(dir, branch);
    return tip ? findFixCommitIn({ dir, ref: tip, since, fixId }) : null;
  }
  if ((await remoteBranchTip(gitUrl, branch, credentials)) === null) return null;
  return withScratch(async (scratch) => {
    const dir = await cloneBranch({ gitUrl, branch, scratch, credentials });
    return findFixCommitIn({ dir, ref: `refs/heads/${branch}`, since, fixId });
  });
}
