import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PrismaClient } from '../../../lib/generated/prisma/client';
import type { Role } from '../../../lib/generated/prisma/enums';

// Real git repositories and the rows of a change with a READY fix on them,
// for the accept / reject / edit-accept tests.

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Dev Eloper',
  GIT_AUTHOR_EMAIL: 'dev@example.com',
  GIT_COMMITTER_NAME: 'Dev Eloper',
  GIT_COMMITTER_EMAIL: 'dev@example.com',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

// every folder made here goes when the test process ends (a test's own
// cleanup may never run when it fails): a run of the suite leaves nothing in
// the system temp folder
const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

export function tmpDir(prefix = 'flowfix-fixes-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export const BRANCH = 'feature/total';
export const BUGGY = 'export const total = (xs) => xs.reduce((a, b) => a + b, 1);\n';
export const FIXED = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n';
export const EDITED = 'export const total = (xs) => xs.reduce((sum, x) => sum + x, 0);\n';

/** The fix's diff: cart.js from BUGGY to `to`. */
export function fixDiff(to = FIXED): string {
  return ['diff --git a/cart.js b/cart.js', '--- a/cart.js', '+++ b/cart.js', '@@ -1 +1 @@', `-${BUGGY.trimEnd()}`, `+${to.trimEnd()}`, ''].join('\n');
}

export interface BuiltRepo {
  /** the working repository (main checked out, the change on BRANCH) */
  dir: string;
  headRev: string;
  baseRev: string;
}

/** A non-bare repository: main checked out with a README, BRANCH with the buggy cart.js. */
export function buildWorkingRepo(root: string): BuiltRepo {
  const dir = path.join(root, 'shop');
  fs.mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(dir, 'README.md'), '# shop\n');
  fs.writeFileSync(path.join(dir, 'cart.js'), FIXED);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'start');
  const baseRev = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'checkout', '-q', '-b', BRANCH);
  fs.writeFileSync(path.join(dir, 'cart.js'), BUGGY);
  git(dir, 'commit', '-q', '-am', 'Start totals at one');
  const headRev = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'checkout', '-q', 'main');
  return { dir, headRev, baseRev };
}

/** A bare copy of a working repository, reached by a file:// URL. */
export function buildBareRemote(root: string, from: string): { bare: string; url: string } {
  const bare = path.join(root, 'shop.git');
  git(root, 'clone', '-q', '--bare', from, bare);
  return { bare, url: `file://${bare}` };
}

/** Moves BRANCH by one commit of the developer's own (in a scratch clone, pushed back). */
export function moveBranch(gitUrlOrDir: string, root: string): string {
  const scratch = fs.mkdtempSync(path.join(root, 'mover-'));
  git(scratch, 'clone', '-q', '--branch', BRANCH, gitUrlOrDir, 'c');
  const c = path.join(scratch, 'c');
  fs.writeFileSync(path.join(c, 'NOTES.md'), 'the developer kept working\n');
  git(c, 'add', 'NOTES.md');
  git(c, 'commit', '-q', '-m', 'More work');
  // a non-bare origin refuses a push to its checked-out branch; BRANCH is not checked out there
  git(c, 'push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`);
  return git(c, 'rev-parse', 'HEAD');
}

export async function createUser(db: PrismaClient, name: string, roles: Role[]) {
  const slug = `${name.toLowerCase().replace(/\W+/g, '-')}-${Math.random().toString(36).slice(2, 8)}`;
  return db.user.create({ data: { email: `${slug}@example.com`, name, roles } });
}

/** Repository, change, revision, run and a READY fix for a repository at `gitUrl`. */
export async function createFixFor(
  db: PrismaClient,
  { gitUrl, headRev, baseRev, diff = fixDiff(), name }: { gitUrl: string; headRev: string; baseRev: string; diff?: string; name?: string },
) {
  const repoName = name ?? `shop-${Math.random().toString(36).slice(2, 10)}`;
  const repository = await db.repository.create({ data: { name: repoName, gitUrl, language: 'javascript' } });
  const change = await db.change.create({
    data: {
      repositoryId: repository.id,
      externalId: `PR-${Math.floor(Math.random() * 1e6)}`,
      title: 'Start totals at one',
      author: 'Dev Eloper',
      authorEmail: 'dev@example.com',
      branch: BRANCH,
      baseRev,
      headRev,
      status: 'FIX_READY',
    },
  });
  const revision = await db.changeRevision.create({ data: { changeId: change.id, number: 1, baseRev, headRev, branch: BRANCH } });
  const run = await db.run.create({
    data: { changeId: change.id, revisionId: revision.id, policy: 'offline', status: 'FIXED', exitReason: 'fixed', finishedAt: new Date() },
  });
  const fix = await db.fix.create({
    data: {
      runId: run.id,
      changeId: change.id,
      revisionId: revision.id,
      diff,
      files: ['cart.js'],
      summaryHtml: '<p>The total started at <code>1</code> instead of <code>0</code>.</p>',
      evidence: {},
    },
  });
  return { repository, change, revision, run, fix };
}

/** Commit metadata of a ref: author, committer, message. */
export function commitInfo(dir: string, ref: string) {
  const [author, authorEmail, committer, parents, message] = git(dir, 'log', '-1', '--format=%an%x00%ae%x00%cn%x00%P%x00%B', ref).split('\0');
  return { author, authorEmail, committer, parents: parents.split(' ').filter(Boolean), message };
}

export function showFile(dir: string, ref: string, file: string): string {
  return execFileSync('git', ['show', `${ref}:${file}`], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
}
