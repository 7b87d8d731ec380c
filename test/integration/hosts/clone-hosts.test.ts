import './hosts-env';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { startGitHubApiDouble, type GitHubApiDouble } from '../../doubles/github-api-double';
import { startGitLabApiDouble, type GitLabApiDouble } from '../../doubles/gitlab-api-double';
import { startGitHttpServer, type GitHttpServer } from '../../doubles/git-http-server';
import { registerHost, linkRepository } from '../../../lib/hosts/service';
import { setClientDefaults } from '../../../lib/hosts/clients';
import { getRunWorkContext } from '../../../lib/runs/service';
import { buildRepairInput } from '../../../agent/worker/execute';
import { setup } from '../../../agent/phases/setup';
import { createRunState, RunExit, type RunState } from '../../../agent/phases/state';
import { ArraySink } from '../../../agent/report/sinks';
import { HostAccessError } from '../../../lib/hosts/clone-access';
import { git } from './helpers';

// A run's workspace clone of a repository linked to a code host. The
// repositories are served by `git http-backend` behind a server that refuses
// anonymous reads: only the GitHub double's installation tokens (user
// x-access-token) or the GitLab connection's token (user oauth2) get in, as
// for a private repository. The worker builds the run's input (which asks
// the host for the token), and the setup phase clones and checks out the
// head, including a fork's head that only the host's pull/merge request ref
// holds. The token must end up nowhere the repository's commands or the
// run's events can see it.

const INSTALL_OUTPUT = 'seen-by-install.txt';

describe('a run’s clone of a private repository on a code host, with the host’s token (hosts)', () => {
  let db: TestDb;
  let gh: GitHubApiDouble;
  let gl: GitLabApiDouble;
  let gitServer: GitHttpServer;
  let root = '';
  let work = '';
  let base = '';
  /** tokens the git server treats as expired or revoked */
  const refused = new Set<string>();
  const repositories: Record<string, string> = {};
  const states: RunState[] = [];
  let nextChange = 1;

  const bare = (name: string) => path.join(root, `${name}.git`);

  /** A commit on top of base, in the work repository, not on any of its branches. */
  function commitOnBase(file: string): string {
    git(work, ['checkout', '-q', '--detach', base]);
    fs.writeFileSync(path.join(work, file), `${file}\n`);
    git(work, ['add', '.']);
    git(work, ['commit', '-q', '-m', `add ${file}`]);
    return git(work, ['rev-parse', 'HEAD']);
  }

  /** Pushes `commit` to `ref` of a served repository (refs/pull/… as the host keeps a fork's head). */
  function publish(repository: string, ref: string, commit: string): void {
    git(work, ['push', '-q', bare(repository), `${commit}:${ref}`]);
  }

  /** The clone's remote as its config says (read from the file: the sandbox's user owns the checkout after the install). */
  const remoteUrl = (checkout: string) => git(root, ['config', '--file', path.join(checkout, '.git', 'config'), 'remote.origin.url']);

  /** The run a worker would execute for a change of `repository` at `head`, and its input as the worker builds it. */
  async function runInput({ repository, externalId, head }: { repository: string; externalId: string; head: string }) {
    const sink = new ArraySink();
    const change = await db.db.change.create({
      data: {
        repositoryId: repositories[repository],
        externalId,
        title: `change ${externalId}`,
        author: 'dev',
        branch: 'b',
        baseRev: base,
        headRev: head,
        failingTestCount: 1,
        filesChanged: 1,
      },
    });
    const revision = await db.db.changeRevision.create({ data: { changeId: change.id, number: nextChange++, baseRev: base, headRev: head, branch: 'b' } });
    const run = await db.db.run.create({ data: { changeId: change.id, revisionId: revision.id, policy: 'offline' } });
    const input = await buildRepairInput({ run: await getRunWorkContext({ runId: run.id }), sink, signal: new AbortController().signal });
    return { input, sink };
  }

  async function setUp(input: Awaited<ReturnType<typeof runInput>>['input']) {
    const state = createRunState(input);
    states.push(state);
    return setup(state);
  }

  /** Every file under the clone's .git folder and the run's tmp/ (the install's output), and the run's events: none may hold `token`. */
  function assertTokenNowhere(state: RunState & { workspace: NonNullable<RunState['workspace']> }, sink: ArraySink, token: string) {
    const files = [
      ...fs.readdirSync(path.join(state.workspace.root, '.git'), { recursive: true }).map((f) => path.join(state.workspace.root, '.git', String(f))),
      path.join(state.workspace.tmpDir, INSTALL_OUTPUT),
    ];
    for (const file of files) {
      if (!fs.statSync(file).isFile()) continue;
      assert.ok(!fs.readFileSync(file).includes(token), `${path.relative(state.workspace.runDir, file)} holds the token`);
    }
    assert.ok(!JSON.stringify(sink.events).includes(token), 'a run event holds the token');
  }

  before(async () => {
    db = await createTestDb();
    gh = await startGitHubApiDouble();
    gl = await startGitLabApiDouble();
    setClientDefaults({ retries: 1, retryAfterBaseMs: 5 });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-clone-http-'));
    work = path.join(root, 'work');
    fs.mkdirSync(work);
    git(work, ['init', '-q', '-b', 'main']);
    fs.writeFileSync(path.join(work, 'sum.js'), 'export const sum = (a, b) => a + b;\n');
    git(work, ['add', '.']);
    git(work, ['commit', '-q', '-m', 'base']);
    base = git(work, ['rev-parse', 'HEAD']);
    for (const name of ['acme/shop', 'group/shop', 'public/shop']) {
      fs.mkdirSync(path.dirname(bare(name)), { recursive: true });
      git(root, ['clone', '-q', '--bare', work, bare(name)]);
    }
    gitServer = await startGitHttpServer({
      root,
      authorize: ({ user, password, repo }) => {
        if (repo.startsWith('public/')) return true;
        if (password === null || refused.has(password)) return false;
        if (repo.startsWith('acme/')) return user === 'x-access-token' && gh.issuedTokens.some((t) => t.token === password);
        if (repo.startsWith('group/')) return user === 'oauth2' && password === gl.token;
        return false;
      },
    });
    const admin = await db.db.user.create({ data: { email: 'admin@clone.test', name: 'Admin', roles: ['ADMIN'] } });
    // install writes what the repository's commands can see: their environment and the clone's config
    const settings = { test: 'true', install: `env > "$TMPDIR/${INSTALL_OUTPUT}"; cat .git/config >> "$TMPDIR/${INSTALL_OUTPUT}"`, installNetwork: false };
    for (const name of ['acme/shop', 'group/shop', 'public/shop']) {
      repositories[name] = (await db.db.repository.create({ data: { name, gitUrl: `${gitServer.url}/${name}.git`, settings } })).id;
    }
    gh.repositories.push({ id: 301, owner: 'acme', name: 'shop', installationId: 77, cloneUrl: `${gitServer.url}/acme/shop.git` });
    const github = await registerHost({
      actorId: admin.id,
      input: { kind: 'GITHUB', name: 'gh', apiBaseUrl: gh.url, appId: gh.appId, privateKey: gh.privateKey, webhookSecret: 'clone-secret' },
    });
    await linkRepository({ actorId: admin.id, hostId: github.id, input: { externalId: '301', repositoryId: repositories['acme/shop'] } });
    gl.projects.push({ id: 701, path: 'group/shop', httpUrlToRepo: `${gitServer.url}/group/shop.git` });
    const gitlab = await registerHost({
      actorId: admin.id,
      input: { kind: 'GITLAB', name: 'gl', apiBaseUrl: gl.url, token: gl.token, webhookSecret: 'clone-hook-token' },
    });
    await linkRepository({ actorId: admin.id, hostId: gitlab.id, input: { externalId: '701', repositoryId: repositories['group/shop'] } });
  });
  after(async () => {
    for (const s of states) await s.workspace?.dispose();
    setClientDefaults({});
    await gitServer.close();
    await gh.close();
    await gl.close();
    fs.rmSync(root, { recursive: true, force: true });
    await db.drop();
  });

  test('GitHub: a pull request’s head on a branch, and a fork’s head only under refs/pull/<n>/head, both cloned with an installation token that is nowhere in the clone', async () => {
    const branchHead = commitOnBase('branch.txt');
    publish('acme/shop', 'refs/heads/feature', branchHead);
    const forkHead = commitOnBase('fork.txt');
    publish('acme/shop', 'refs/pull/12/head', forkHead);

    for (const [externalId, head] of [
      ['11', branchHead],
      ['12', forkHead],
    ] as const) {
      const { input, sink } = await runInput({ repository: 'acme/shop', externalId, head });
      const token = gh.issuedTokens.at(-1)?.token ?? '';
      assert.ok(token, 'an installation token was issued for the clone');
      const ready = await setUp(input);
      assert.equal(ready.workspace.headRev, head);
      assert.equal(ready.baseCommit, base);
      const remote = remoteUrl(ready.workspace.root);
      assert.equal(remote, `${gitServer.url}/acme/shop.git`, 'the remote URL carries no user or token');
      assert.ok(!fs.readFileSync(path.join(ready.workspace.root, '.git', 'config'), 'utf8').includes(token), '.git/config holds no token');
      assertTokenNowhere(ready, sink, token);
      assert.match(fs.readFileSync(path.join(ready.workspace.tmpDir, INSTALL_OUTPUT), 'utf8'), /^HOME=/m, 'the install ran and wrote its environment');
    }
    assert.ok(
      gitServer.requests.some((r) => r.repo === 'acme/shop.git' && r.user === null && !r.allowed),
      'anonymous reads were refused',
    );
    assert.ok(gitServer.requests.some((r) => r.repo === 'acme/shop.git' && r.user === 'x-access-token' && r.allowed));
  });

  test('GitLab: a merge request’s head only under refs/merge-requests/<iid>/head, cloned with the connection’s token (oauth2)', async () => {
    const forkHead = commitOnBase('mr.txt');
    publish('group/shop', 'refs/merge-requests/5/head', forkHead);
    const { input, sink } = await runInput({ repository: 'group/shop', externalId: '5', head: forkHead });
    const ready = await setUp(input);
    assert.equal(ready.workspace.headRev, forkHead);
    assert.equal(remoteUrl(ready.workspace.root), `${gitServer.url}/group/shop.git`);
    assert.ok(!fs.readFileSync(path.join(ready.workspace.root, '.git', 'config'), 'utf8').includes(gl.token), '.git/config holds no token');
    assertTokenNowhere(ready, sink, gl.token);
    assert.ok(gitServer.requests.some((r) => r.repo === 'group/shop.git' && r.user === 'oauth2' && r.allowed));
  });

  test('a repository linked to no host is cloned as before: no credentials asked for or sent', async () => {
    const head = commitOnBase('public.txt');
    publish('public/shop', 'refs/heads/feature', head);
    const before = gitServer.requests.length;
    const { input } = await runInput({ repository: 'public/shop', externalId: '1', head });
    assert.equal(input.hostAccess, undefined);
    const ready = await setUp(input);
    assert.equal(ready.workspace.headRev, head);
    const requests = gitServer.requests.slice(before);
    assert.ok(requests.length > 0 && requests.every((r) => r.repo === 'public/shop.git' && r.user === null));
  });

  test('a token the host refuses (expired, revoked): a setup error naming the repository and the host, without the token', async () => {
    const head = commitOnBase('refused.txt');
    publish('acme/shop', 'refs/heads/refused', head);
    const github = await runInput({ repository: 'acme/shop', externalId: '13', head });
    const githubToken = gh.issuedTokens.at(-1)!.token;
    refused.add(githubToken);
    const gitlab = await runInput({ repository: 'group/shop', externalId: '6', head: base });
    refused.add(gl.token);
    try {
      for (const [{ input }, token, repository, host] of [
        [github, githubToken, 'acme/shop', /GitHub \(gh\)/],
        [gitlab, gl.token, 'group/shop', /GitLab \(gl\)/],
      ] as const) {
        const err = await setUp(input).then(
          () => assert.fail('the clone was expected to fail'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof RunExit, String(err));
        assert.equal(err.exitReason, 'setup_failed');
        assert.ok(err.detail.includes(repository), err.detail);
        assert.match(err.detail, host);
        assert.match(err.detail, /refused/);
        assert.ok(!err.detail.includes(token), 'the message holds no token');
      }
    } finally {
      refused.clear();
    }
  });

  test('a repository the host says is not there for the token (the App not given access to it, a wrong gitUrl): a setup error naming the repository and the host', async () => {
    const id = repositories['acme/shop']!;
    const { gitUrl } = await db.db.repository.findUniqueOrThrow({ where: { id } });
    // the token is good, the path is not: git http-backend answers 404, as GitHub does for a private repository the token cannot see
    await db.db.repository.update({ where: { id }, data: { gitUrl: `${gitServer.url}/acme/gone.git` } });
    try {
      const { input } = await runInput({ repository: 'acme/shop', externalId: '15', head: base });
      const token = gh.issuedTokens.at(-1)!.token;
      const err = await setUp(input).then(
        () => assert.fail('the clone was expected to fail'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof RunExit, String(err));
      assert.equal(err.exitReason, 'setup_failed');
      assert.match(err.detail, /acme\/shop on GitHub \(gh\) has no repository at this URL for the credentials flowfix got from the host/);
      assert.ok(!err.detail.includes(token), 'the message holds no token');
    } finally {
      await db.db.repository.update({ where: { id }, data: { gitUrl } });
    }
  });

  test('no token from the host (the App no longer installed on the repository): the worker’s error names the repository and the host', async () => {
    gh.faults.push({ path: /\/access_tokens$/, status: 404, times: 3 });
    try {
      await assert.rejects(runInput({ repository: 'acme/shop', externalId: '14', head: base }), (err: unknown) => {
        assert.ok(err instanceof HostAccessError, String(err));
        assert.match(err.message, /^acme\/shop on GitHub \(gh\): the host gave no token to clone the repository with \(HTTP 404\)/);
        return true;
      });
    } finally {
      gh.faults.length = 0;
    }
  });
});
