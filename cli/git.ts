import { diffStatFromNumstat } from '../common/diffstat';
import { GitError, runUserGit } from '../lib/git/process';
import { CliError } from './io';

// What `flowfix report` learns from the local checkout. This is the user's
// own repository and git, so their git configuration applies (unlike the
// server's git calls on repositories it reads, lib/git/runner.ts).

export interface GitFacts {
  headRev: string;
  baseRev: string;
  /** how the base was found, for the user's information */
  baseFrom: string;
  branch: string;
  author: string;
  authorEmail: string;
  /** committer date of HEAD (ISO 8601 with offset) */
  committedAt: string;
  subject: string;
  body: string;
  diffStat: { files: number; additions: number; deletions: number };
}

/** The user's own git in their own checkout; a failure is an answer (ok: false), not a throw. */
export async function userGit(cwd: string, args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  try {
    return { ok: true, ...(await runUserGit(cwd, args)) };
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    return { ok: false, stdout: '', stderr: err.stderr || err.message };
  }
}

async function userGitOut(cwd: string, args: string[], what: string): Promise<string> {
  const res = await userGit(cwd, args);
  if (!res.ok) throw new CliError(`${what}: ${res.stderr.trim() || `git ${args.join(' ')} failed`}`);
  return res.stdout.trim();
}

async function tryUserGit(cwd: string, args: string[]): Promise<string | undefined> {
  const res = await userGit(cwd, args);
  return res.ok && res.stdout.trim() ? res.stdout.trim() : undefined;
}

/** origin's default branch when known, else the first of main/master that exists. */
async function findDefaultBranch(cwd: string): Promise<string | undefined> {
  const originHead = await tryUserGit(cwd, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  if (originHead) return originHead.replace(/^origin\//, '');
  for (const name of ['main', 'master']) {
    if (await tryUserGit(cwd, ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${name}`])) return name;
    if (await tryUserGit(cwd, ['rev-parse', '--verify', '--quiet', `refs/heads/${name}`])) return name;
  }
  return undefined;
}

/**
 * The diff base: the merge-base of HEAD with the given --base, or else with
 * origin/<default> or <default>; when no merge-base exists (unrelated
 * histories) the tip of the first candidate that exists.
 */
async function findBase({ cwd, base, defaultBranch }: { cwd: string; base?: string; defaultBranch?: string }): Promise<{ rev: string; from: string }> {
  const candidates = base ? [base] : defaultBranch ? [`origin/${defaultBranch}`, defaultBranch] : [];
  if (candidates.length === 0) {
    throw new CliError('cannot tell the default branch (no origin/HEAD, main or master): pass --base REV or --default-branch NAME');
  }
  for (const candidate of candidates) {
    const mergeBase = await tryUserGit(cwd, ['merge-base', 'HEAD', candidate]);
    if (mergeBase) return { rev: mergeBase, from: `merge-base of HEAD and ${candidate}` };
  }
  for (const candidate of candidates) {
    const tip = await tryUserGit(cwd, ['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`]);
    if (tip) return { rev: tip, from: `tip of ${candidate} (no merge-base with HEAD)` };
  }
  throw new CliError(`cannot find the diff base ${candidates.join(' or ')} in this checkout: pass --base REV`);
}

async function diffStat(cwd: string, baseRev: string): Promise<GitFacts['diffStat']> {
  return diffStatFromNumstat(await userGitOut(cwd, ['diff', '--numstat', baseRev, 'HEAD'], 'cannot compute the diff'));
}

export async function readGitFacts({
  cwd,
  base,
  branch,
  defaultBranch,
}: {
  cwd: string;
  base?: string;
  branch?: string;
  defaultBranch?: string;
}): Promise<GitFacts> {
  await userGitOut(cwd, ['rev-parse', '--show-toplevel'], `not a git checkout: ${cwd}`);
  const headRev = await userGitOut(cwd, ['rev-parse', '--verify', 'HEAD^{commit}'], 'the checkout has no commit at HEAD');
  const currentBranch = branch ?? (await tryUserGit(cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD']));
  if (!currentBranch) throw new CliError('HEAD is detached (common on CI): pass --branch NAME');
  const log = await userGitOut(cwd, ['log', '-1', '--format=%an%x00%ae%x00%cI%x00%s%x00%b', 'HEAD'], 'cannot read the HEAD commit');
  const [author = '', authorEmail = '', committedAt = '', subject = '', body = ''] = log.split('\0');
  const found = await findBase({ cwd, base, defaultBranch: defaultBranch ?? (await findDefaultBranch(cwd)) });
  return {
    headRev,
    baseRev: found.rev,
    baseFrom: found.from,
    branch: currentBranch,
    author,
    authorEmail,
    committedAt,
    subject,
    body: body.trim(),
    diffStat: await diffStat(cwd, found.rev),
  };
}
