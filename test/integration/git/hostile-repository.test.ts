import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Workspace } from '../../../agent/workspace/workspace';
import { readFileAtRevision } from '../../../lib/diff/git-text';
import { applyFixCommit, findFixCommit } from '../../../lib/git/apply-fix';
import { createGitRunner, GitError, runGit, type GitCommand } from '../../../lib/git/runner';
import { readFlowfixFileAtRevision } from '../../../lib/repositories/flowfix-file';

// A repository whose .git/config (and a file it includes) names a program
// for every hook git offers: an fsmonitor, a hooks folder, a credential
// helper and askpass, an ssh command and a git:// proxy, a pager, an external
// diff and a textconv, clean/smudge and process filters and a merge driver
// (its .gitattributes assigns them), and a bare remote reached over file://
// with hooks and an alternate-refs command of its own. Every program writes a
// marker file. Plain git runs each of them; flowfix's runner runs none, over
// every git operation the product performs.

const roots: string[] = [];
after(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

const BASE_TXT = 'one\ntwo\nthree\n';
const HEAD_TXT = 'one\ntwo at head\nthree\n';

const LOCAL_HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'reference-transaction',
  'post-index-change',
  'pre-push',
  'pre-auto-gc',
];
const REMOTE_HOOKS = ['pre-receive', 'update', 'post-receive', 'post-update', 'reference-transaction'];

interface Hostile {
  root: string;
  markers: string;
  /** the working repository, main checked out; `feature` is the change */
  repo: string;
  base: string;
  head: string;
  /** the bare remote, reached as file://remoteUrl */
  remoteUrl: string;
  /** writes the hostile configuration into a repository's .git (a command in a workspace could) */
  poison: (gitDir: string) => void;
}

function program(dir: string, name: string, markers: string, { passInput = false } = {}): string {
  const file = path.join(dir, name);
  // filters hand their input back; nothing else reads stdin (an open one would block)
  fs.writeFileSync(file, `#!/bin/sh\necho "$0 $*" >> '${path.join(markers, name)}'\n${passInput ? 'cat\n' : ''}exit 0\n`, { mode: 0o755 });
  return file;
}

const build = (cwd: string, args: string[]) => runGit('workspace', cwd, args);

async function buildHostile(): Promise<Hostile> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-hostile-')));
  roots.push(root);
  const markers = path.join(root, 'markers');
  const bin = path.join(root, 'bin');
  const hooks = path.join(root, 'hooks');
  const remoteHooks = path.join(root, 'remote-hooks');
  for (const dir of [markers, bin, hooks, remoteHooks]) fs.mkdirSync(dir);
  for (const hook of LOCAL_HOOKS) program(hooks, hook, markers);
  for (const hook of REMOTE_HOOKS) fs.copyFileSync(program(bin, `remote-${hook}`, markers), path.join(remoteHooks, hook));
  for (const hook of REMOTE_HOOKS) fs.chmodSync(path.join(remoteHooks, hook), 0o755);

  const repo = path.join(root, 'repo');
  fs.mkdirSync(repo);
  await build(repo, ['init', '-q', '-b', 'main']);
  fs.writeFileSync(path.join(repo, '.gitattributes'), '*.txt filter=evil diff=evil merge=evil\n*.md filter=proc\n');
  fs.writeFileSync(path.join(repo, 'a.txt'), BASE_TXT);
  fs.writeFileSync(path.join(repo, 'b.md'), '# b\n');
  fs.writeFileSync(path.join(repo, '.flowfix.json'), '{ "settings": { "testCommand": ["npm", "test"] } }\n');
  await build(repo, ['add', '-A']);
  await build(repo, ['commit', '-q', '-m', 'base']);
  const base = (await build(repo, ['rev-parse', 'HEAD'])).stdout.trim();
  await build(repo, ['checkout', '-q', '-b', 'feature']);
  fs.writeFileSync(path.join(repo, 'a.txt'), HEAD_TXT);
  await build(repo, ['commit', '-q', '-am', 'head']);
  const head = (await build(repo, ['rev-parse', 'HEAD'])).stdout.trim();
  await build(repo, ['checkout', '-q', 'main']);

  // the remote borrows objects from another repository, so an alternate-refs command has something to run for
  const alternate = path.join(root, 'alternate.git');
  const remote = path.join(root, 'remote.git');
  await build(root, ['init', '-q', '--bare', alternate]);
  await build(repo, ['push', '-q', alternate, 'main']);
  await build(root, ['clone', '-q', '--bare', '--shared', alternate, remote]);
  await build(repo, ['push', '-q', remote, 'feature']);
  fs.appendFileSync(
    path.join(remote, 'config'),
    `[core]\n\thooksPath = ${remoteHooks}\n\talternateRefsCommand = ${program(bin, 'alternate-refs', markers)}\n\tfsmonitor = ${program(bin, 'remote-fsmonitor', markers)}\n`,
  );
  for (const hook of REMOTE_HOOKS) fs.copyFileSync(path.join(remoteHooks, hook), path.join(remote, 'hooks', hook));

  const included = path.join(root, 'included.gitconfig');
  fs.writeFileSync(included, `[filter "proc"]\n\tprocess = ${program(bin, 'filter-process', markers)}\n\trequired = true\n`);
  const config =
    `[core]\n\tfsmonitor = ${program(bin, 'fsmonitor', markers)}\n\thooksPath = ${hooks}\n` +
    `\tsshCommand = ${program(bin, 'ssh-command', markers)}\n\tgitProxy = ${program(bin, 'git-proxy', markers)}\n` +
    `\tpager = ${program(bin, 'pager', markers, { passInput: true })}\n\taskPass = ${program(bin, 'askpass', markers)}\n` +
    `[credential]\n\thelper = ${program(bin, 'credential-helper', markers)}\n` +
    `[credential "https://example.com"]\n\thelper = ${program(bin, 'credential-helper-for-url', markers)}\n` +
    `[diff]\n\texternal = ${program(bin, 'diff-external', markers)}\n` +
    `[diff "evil"]\n\ttextconv = ${program(bin, 'textconv', markers, { passInput: true })}\n` +
    `[filter "evil"]\n\tclean = ${program(bin, 'filter-clean', markers, { passInput: true })}\n` +
    `\tsmudge = ${program(bin, 'filter-smudge', markers, { passInput: true })}\n\trequired = true\n` +
    `[merge "evil"]\n\tdriver = ${program(bin, 'merge-driver', markers)} %O %A %B\n` +
    `[include]\n\tpath = ${included}\n`;
  const poison = (gitDir: string) => {
    fs.appendFileSync(path.join(gitDir, 'config'), config);
    fs.mkdirSync(path.join(gitDir, 'hooks'), { recursive: true });
    for (const hook of LOCAL_HOOKS) fs.copyFileSync(path.join(hooks, hook), path.join(gitDir, 'hooks', hook));
  };
  poison(path.join(repo, '.git'));
  return { root, markers, repo, base, head, remoteUrl: `file://${remote}`, poison };
}

function markersOf(h: Hostile): string[] {
  return fs.readdirSync(h.markers).sort();
}

/** The fix's diff: a.txt from the head's text to `to`. */
function diffOfA(from: string, to: string): string {
  const lines = (t: string) => t.trimEnd().split('\n');
  return [
    'diff --git a/a.txt b/a.txt',
    '--- a/a.txt',
    '+++ b/a.txt',
    `@@ -1,${lines(from).length} +1,${lines(to).length} @@`,
    ...lines(from).map((l) => `-${l}`),
    ...lines(to).map((l) => `+${l}`),
    '',
  ].join('\n');
}

/** a.txt from base to head with the blob ids, so that `git apply --3way` can merge it (through the merge driver). */
async function threeWayPatch(h: Hostile): Promise<string> {
  const blob = async (rev: string) => (await runGit('read', h.repo, ['rev-parse', `${rev}:a.txt`])).stdout.trim();
  return diffOfA(BASE_TXT, HEAD_TXT).replace(
    'diff --git a/a.txt b/a.txt',
    `diff --git a/a.txt b/a.txt\nindex ${await blob(h.base)}..${await blob(h.head)} 100644`,
  );
}

// git with nothing but the machine's own configuration kept out: what the repository says, goes
function plainEnv(h: Hostile): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: h.root,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
  } as unknown as NodeJS.ProcessEnv;
}

function plain(h: Hostile, cwd: string, args: string[], input = ''): void {
  try {
    execFileSync('git', args, { cwd, env: plainEnv(h), input, stdio: ['pipe', 'ignore', 'ignore'], timeout: 30_000 });
  } catch {
    // many of these fail once the program has run (a filter that speaks no protocol, an unreachable host): the marker is the point
  }
}

/** Runs a command under a pseudo-terminal (script(1)): git starts a pager only for a terminal. */
function underTerminal(command: GitCommand): GitCommand {
  const quoted = command.argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return { ...command, argv: ['script', '-qec', quoted, '/dev/null'] };
}

const EVERY_PROGRAM = [
  'alternate-refs',
  'askpass',
  'credential-helper',
  'credential-helper-for-url',
  'diff-external',
  'filter-clean',
  'filter-process',
  'filter-smudge',
  'fsmonitor',
  'git-proxy',
  'merge-driver',
  'pager',
  'post-checkout',
  'post-commit',
  'pre-commit',
  'reference-transaction',
  'remote-post-receive',
  'remote-pre-receive',
  'remote-update',
  'ssh-command',
  'textconv',
];

describe('a repository whose config names programs', () => {
  it('runs every one of them under plain git (the hostile fixture is real)', async () => {
    const h = await buildHostile();
    const { repo } = h;
    plain(h, repo, ['status']);
    // a racily clean b.md would go through the process filter, fail, and stop these before their hooks
    const noProcessFilter = ['-c', 'filter.proc.process=', '-c', 'filter.proc.required=false'];
    plain(h, repo, [...noProcessFilter, 'commit', '--allow-empty', '-q', '-m', 'c']);
    plain(h, repo, [...noProcessFilter, 'checkout', '-q', 'feature']);
    plain(h, repo, [...noProcessFilter, 'reset', '-q', '--hard', h.base]);
    fs.writeFileSync(path.join(repo, 'a.txt'), 'changed\n');
    fs.writeFileSync(path.join(repo, 'b.md'), '# changed\n');
    plain(h, repo, ['add', 'a.txt']);
    plain(h, repo, ['add', 'b.md']);
    plain(h, repo, ['diff', h.base, h.head]);
    plain(h, repo, ['diff', '--no-ext-diff', h.base, h.head]);
    plain(h, repo, ['credential', 'fill'], 'protocol=https\nhost=example.com\n\n');
    plain(h, repo, ['ls-remote', 'ssh://127.0.0.1:9/nothing']);
    plain(h, repo, ['ls-remote', 'git://127.0.0.1:9/nothing']);
    plain(h, repo, [...noProcessFilter, 'reset', '-q', '--hard', h.base]);
    fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo locally\nthree\n');
    plain(h, repo, [...noProcessFilter, 'add', 'a.txt']);
    fs.writeFileSync(path.join(h.root, 'fix.patch'), await threeWayPatch(h));
    plain(h, repo, [...noProcessFilter, 'apply', '--3way', path.join(h.root, 'fix.patch')]);
    plain(h, repo, [...noProcessFilter, 'reset', '-q', '--hard', h.head]);
    plain(h, repo, ['push', h.remoteUrl, `${h.head}:refs/heads/control`]);
    execFileSync('script', ['-qec', 'git log -1', '/dev/null'], { cwd: repo, env: plainEnv(h), stdio: 'ignore' });

    const ran = markersOf(h);
    for (const name of EVERY_PROGRAM) assert.ok(ran.includes(name), `plain git did not run ${name} (it ran ${ran.join(', ')})`);
  });

  it('runs none of them through the runner, over every operation flowfix performs', async () => {
    const h = await buildHostile();
    const { repo, base, head } = h;

    // read: the diff viewer, the settings, diffs, logs, a remote that needs ssh or a proxy
    assert.equal(await readFileAtRevision({ repoPath: repo, rev: head, filePath: 'a.txt' }), HEAD_TXT);
    assert.match((await readFlowfixFileAtRevision({ repoPath: repo, rev: base })) ?? '', /testCommand/);
    assert.match((await runGit('read', repo, ['diff', base, head])).stdout, /\+two at head/);
    assert.match((await runGit('read', repo, ['show', head])).stdout, /\+two at head/);
    assert.match((await runGit('read', repo, ['log', '-p', '-1', head])).stdout, /\+two at head/);
    assert.equal((await runGit('read', repo, ['status', '--porcelain'])).stdout, '');
    await assert.rejects(runGit('read', repo, ['ls-remote', 'ssh://127.0.0.1:9/nothing']), GitError);
    await assert.rejects(runGit('read', repo, ['ls-remote', 'git://127.0.0.1:9/nothing']), GitError);
    // with a terminal, as a pager would want
    const terminal = createGitRunner({ launchers: { read: underTerminal } });
    assert.match((await terminal.run('read', repo, ['log', '-1', head])).stdout, /head/);

    // workspace: a run's clone whose config a repository command rewrote
    const ws = await Workspace.create({ source: repo, headRev: head, parentDir: h.root });
    h.poison(path.join(ws.root, '.git'));
    assert.deepEqual(
      (await ws.search('two at head')).map((m) => m.file),
      ['a.txt'],
    );
    await ws.writeFile('a.txt', 'one\ntwo fixed\nthree\n');
    await ws.writeFile('b.md', '# b fixed\n');
    assert.match(await ws.diff(), /\+two fixed/);
    assert.deepEqual(await ws.changedFiles(), ['a.txt', 'b.md']);
    await runGit('workspace', ws.root, ['add', '--all', '--', '.']);
    const tree = (await runGit('workspace', ws.root, ['write-tree'])).stdout.trim();
    await ws.reset();
    assert.equal(fs.readFileSync(path.join(ws.root, 'a.txt'), 'utf8'), HEAD_TXT);
    await runGit('workspace', ws.root, ['read-tree', '--reset', '-u', tree]);
    await runGit('workspace', ws.root, ['clean', '-fdq']);
    assert.equal(fs.readFileSync(path.join(ws.root, 'a.txt'), 'utf8'), 'one\ntwo fixed\nthree\n');
    await ws.reset();
    const fix = diffOfA(HEAD_TXT, 'one\ntwo fixed\nthree\n');
    await runGit('workspace', ws.root, ['apply', '--check', '-'], { input: fix });
    await ws.applyPatch(fix, ['--whitespace=nowarn']);
    await runGit('workspace', ws.root, ['commit', '-q', '-am', 'a commit in the workspace']);
    await runGit('workspace', ws.root, ['status', '--porcelain']);
    await ws.checkoutRevision(base);
    assert.equal(fs.readFileSync(path.join(ws.root, 'a.txt'), 'utf8'), BASE_TXT);
    // a merge through the repository's driver fails rather than run it
    fs.writeFileSync(path.join(ws.root, 'a.txt'), 'one\ntwo locally\nthree\n');
    await runGit('workspace', ws.root, ['add', 'a.txt']);
    await runGit('workspace', ws.root, ['apply', '--3way', '-'], { input: await threeWayPatch(h) }).catch((err: unknown) => assert.ok(err instanceof GitError));
    await ws.dispose();

    // push: an accepted fix written into the repository on disk, and pushed to its file:// remote
    const author = { name: 'Rev Iewer', email: 'rev@example.com' };
    const diff = diffOfA(HEAD_TXT, 'one\ntwo fixed\nthree\n');
    const local = await applyFixCommit({ gitUrl: repo, branch: 'feature', expectedHead: head, diff, author, message: 'fix\n\nFlowfix-Fix: f1\n', fixId: 'f1' });
    assert.equal(local.outcome, 'applied');
    assert.equal(await findFixCommit({ gitUrl: repo, branch: 'feature', since: head, fixId: 'f1' }), local.outcome === 'applied' ? local.commit : null);
    const remote = await applyFixCommit({
      gitUrl: h.remoteUrl,
      branch: 'feature',
      expectedHead: head,
      diff,
      author,
      message: 'fix\n\nFlowfix-Fix: f2\n',
      fixId: 'f2',
    });
    assert.equal(remote.outcome, 'applied');
    assert.equal(
      await findFixCommit({ gitUrl: h.remoteUrl, branch: 'feature', since: head, fixId: 'f2' }),
      remote.outcome === 'applied' ? remote.commit : null,
    );
    // the only credentials are the ones handed in
    const filled = await runGit('push', repo, ['credential', 'fill'], {
      input: 'protocol=https\nhost=example.com\n\n',
      credentials: { username: 'flowfix-bot', password: 's3cret' },
    });
    assert.match(filled.stdout, /^username=flowfix-bot$/m);
    assert.match(filled.stdout, /^password=s3cret$/m);
    await assert.rejects(runGit('push', repo, ['credential', 'fill'], { input: 'protocol=https\nhost=example.com\n\n' }), GitError);

    assert.deepEqual(markersOf(h), []);
  });
});
