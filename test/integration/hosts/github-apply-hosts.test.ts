import './hosts-env';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import * as webhookRoute from '../../../app/api/hosts/github/webhook/route';
import * as acceptRoute from '../../../app/api/fixes/[id]/accept/route';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { startGitHubApiDouble, type GitHubApiDouble } from '../../doubles/github-api-double';
import { startGitHttpServer, type GitHttpServer } from '../../doubles/git-http-server';
import { registerHost, linkRepository } from '../../../lib/hosts/service';
import { setClientDefaults } from '../../../lib/hosts/clients';
import { startDeliveryWorker, type DeliveryWorker } from '../../../lib/code-review/process';
import { claimRun, finishRun } from '../../../lib/runs/service';
import { notifyCodeHostOfRun } from '../../../lib/code-review/sync';
import { acceptFix } from '../../../lib/fixes/apply';
import { git, githubDelivery, JUNIT_FAILING, waitFor, zipOf, waitForSettledDelivery } from './helpers';

// Applying from the pull request. The repositories are real, served over
// HTTP by `git http-backend` behind a server that accepts only the
// installation tokens the GitHub API double issued, so every push here goes
// through the short-lived token path. Commands come as signed issue_comment
// deliveries; write permission is asked of the API for the commenter.

const SECRET = 'apply-webhook-secret';
const ctx = { params: Promise.resolve({}) };
const DIFF =
  'diff --git a/sum.js b/sum.js\n--- a/sum.js\n+++ b/sum.js\n@@ -1 +1 @@\n-export const sum = (a, b) => a - b;\n+export const sum = (a, b) => a + b;\n';

describe('GitHub: applying from the pull request with the App’s token (hosts)', () => {
  let db: TestDb;
  let gh: GitHubApiDouble;
  let gitServer: GitHttpServer;
  let worker: DeliveryWorker;
  let root = '';
  let work = '';
  let base = '';
  let admin: { id: string };
  let nextRun = 100;
  const post = (req: Request) => webhookRoute.POST(req as never, ctx);
  const bare = (name: string) => path.join(root, `${name}.git`);
  const settled = (id: string) => waitForSettledDelivery(db.db, id);

  /** A pull request whose branch breaks sum, failed in CI, with a READY fix from a finished run. */
  async function failingPull(number: number, opts: { fork?: { name: string; maintainerCanModify: boolean } } = {}) {
    const branch = `feature-${number}`;
    const remote = opts.fork ? bare(opts.fork.name) : bare('acme/shop');
    git(work, ['checkout', '-q', '-B', branch, base]);
    fs.writeFileSync(path.join(work, 'sum.js'), 'export const sum = (a, b) => a - b;\n');
    fs.writeFileSync(path.join(work, 'pr.txt'), `${number}\n`);
    git(work, ['add', '.']);
    git(work, ['commit', '-q', '-m', `break sum in #${number}`]);
    const head = git(work, ['rev-parse', 'HEAD']);
    git(work, ['push', '-q', remote, `${branch}:${branch}`]);
    gh.pulls.set(`acme/shop#${number}`, {
      number,
      title: `PR ${number}`,
      user: { login: 'dev' },
      head: { ref: branch, sha: head, ...(opts.fork ? { repoFullName: opts.fork.name, cloneUrl: `${gitServer.url}/${opts.fork.name}.git` } : {}) },
      base: { ref: 'main', sha: base },
      maintainerCanModify: opts.fork?.maintainerCanModify ?? false,
    });
    const runId = nextRun++;
    gh.runs.set(runId, {
      id: runId,
      repositoryId: 101,
      headSha: head,
      artifacts: [{ id: runId, name: 'junit', zip: zipOf({ 'junit.xml': JUNIT_FAILING }) }],
      jobs: [],
    });
    const deliveryId = `run-${runId}`;
    await post(
      githubDelivery({
        secret: SECRET,
        event: 'workflow_run',
        deliveryId,
        payload: {
          action: 'completed',
          workflow_run: { id: runId, head_sha: head, conclusion: 'failure', html_url: `${gh.url}/r/${runId}`, pull_requests: [{ number }] },
          repository: { id: 101 },
          installation: { id: 55 },
        },
      }),
    );
    assert.equal((await settled(deliveryId)).status, 'PROCESSED');
    const change = await db.db.change.findFirstOrThrow({ where: { externalId: String(number) } });
    const run = await db.db.run.findFirstOrThrow({ where: { changeId: change.id } });
    assert.ok((await claimRun({ runId: run.id, workerId: 'w' })).claimed);
    await finishRun({
      runId: run.id,
      workerId: 'w',
      result: { status: 'fixed', exitReason: 'fixed', diff: DIFF.replace('a + b;\n', `a + b;\n`), files: ['sum.js'], summaryHtml: '<p>Subtraction.</p>' },
    });
    // as the worker does once a run ends
    await notifyCodeHostOfRun(run.id);
    const fix = await db.db.fix.findFirstOrThrow({ where: { changeId: change.id } });
    return { branch, head, remote, changeId: change.id, fixId: fix.id };
  }

  async function command(number: number, login: string, body: string) {
    const deliveryId = `comment-${number}-${login}-${Math.random()}`;
    const res = await post(
      githubDelivery({
        secret: SECRET,
        event: 'issue_comment',
        deliveryId,
        payload: {
          action: 'created',
          issue: { number, pull_request: { url: 'x' } },
          comment: { body, user: { login, type: 'User' }, author_association: 'OWNER' },
          repository: { id: 101 },
          installation: { id: 55 },
        },
      }),
    );
    assert.equal(res.status, 202);
    return settled(deliveryId);
  }
  const lastReply = () => gh.comments.filter((c) => c.body.startsWith('@')).at(-1)?.body ?? '';

  before(async () => {
    db = await createTestDb();
    gh = await startGitHubApiDouble();
    setClientDefaults({ retries: 1, retryAfterBaseMs: 5 });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-git-http-'));
    work = path.join(root, 'work');
    fs.mkdirSync(work);
    git(work, ['init', '-q', '-b', 'main']);
    fs.writeFileSync(path.join(work, 'sum.js'), 'export const sum = (a, b) => a + b;\n');
    git(work, ['add', '.']);
    git(work, ['commit', '-q', '-m', 'base']);
    base = git(work, ['rev-parse', 'HEAD']);
    for (const name of ['acme/shop', 'dev/shop', 'kind/shop']) {
      fs.mkdirSync(path.dirname(bare(name)), { recursive: true });
      git(root, ['clone', '-q', '--bare', work, bare(name)]);
    }
    // only the installation tokens the API double issued may touch the repositories
    gitServer = await startGitHttpServer({
      root,
      authorize: ({ user, password }) => user === 'x-access-token' && gh.issuedTokens.some((t) => t.token === password),
    });
    admin = await db.db.user.create({ data: { email: 'admin@apply.test', name: 'Admin', roles: ['ADMIN', 'REVIEWER'] } });
    const repository = await db.db.repository.create({ data: { name: 'acme/shop', gitUrl: `${gitServer.url}/acme/shop.git` } });
    gh.repositories.push({ id: 101, owner: 'acme', name: 'shop', installationId: 55, cloneUrl: `${gitServer.url}/acme/shop.git` });
    gh.permissions.set('maintainer', 'maintain').set('visitor', 'read').set('triager', 'triage');
    const host = await registerHost({
      actorId: admin.id,
      input: { kind: 'GITHUB', name: 'gh', apiBaseUrl: gh.url, appId: gh.appId, privateKey: gh.privateKey, webhookSecret: SECRET },
    });
    await linkRepository({ actorId: admin.id, hostId: host.id, input: { externalId: '101', repositoryId: repository.id } });
    worker = await startDeliveryWorker({ pollMs: 50 });
  });
  after(async () => {
    await worker.stop();
    setClientDefaults({});
    await gitServer.close();
    await gh.close();
    fs.rmSync(root, { recursive: true, force: true });
    await db.drop();
  });

  test('without a token the git server refuses: the token path is what makes pushes work', async () => {
    // asynchronously: the git server runs in this process
    const run = promisify(execFile);
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: '/nonexistent',
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      NODE_ENV: 'test' as const,
    };
    await assert.rejects(
      run('git', ['ls-remote', `${gitServer.url}/acme/shop.git`], { env, timeout: 20_000 }),
      /Authentication failed|could not read Username|terminal prompts disabled|401/,
    );
    const made = `http://x-access-token:ghs_made_up@${gitServer.url.slice('http://'.length)}/acme/shop.git`;
    await assert.rejects(run('git', ['ls-remote', made], { env, timeout: 20_000 }), /Authentication failed|401/);
  });

  test('a comment command from a user without write permission is refused in the thread; permission asked of the API', async () => {
    const pr = await failingPull(20);
    const row = await command(20, 'visitor', 'LGTM\n/flowfix apply');
    assert.match(row.detail ?? '', /refused: visitor has read/);
    assert.match(lastReply(), /^@visitor `\/flowfix apply` needs write permission on acme\/shop; yours is read/);
    assert.ok(gh.requests.some((r) => r.path === '/repos/acme/shop/collaborators/visitor/permission'));
    await command(20, 'triager', '/flowfix reject nope');
    assert.match(lastReply(), /^@triager .*needs write permission/);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: pr.fixId } })).status, 'READY');
    assert.equal(git(root, ['--git-dir', pr.remote, 'rev-parse', pr.branch]), pr.head, 'the branch did not move');
  });

  test('/flowfix apply by a maintainer: the commit is on the branch, pushed with an installation token; the decision is CODE_REVIEW', async () => {
    const pr = await failingPull(21);
    const tokensBefore = gh.issuedTokens.length;
    const row = await command(21, 'maintainer', '/flowfix apply');
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    const tip = git(root, ['--git-dir', pr.remote, 'rev-parse', pr.branch]);
    assert.notEqual(tip, pr.head);
    assert.equal(git(root, ['--git-dir', pr.remote, 'rev-parse', `${tip}^`]), pr.head);
    assert.match(git(root, ['--git-dir', pr.remote, 'log', '-1', '--format=%B', tip]), new RegExp(`Flowfix-Fix: ${pr.fixId}`));
    assert.match(git(root, ['--git-dir', pr.remote, 'show', `${tip}:sum.js`]), /a \+ b/);
    assert.ok(gh.issuedTokens.length > tokensBefore, 'a fresh installation token was issued for the push');
    assert.ok(gitServer.requests.some((r) => r.service === 'git-receive-pack' && r.allowed && r.user === 'x-access-token'));
    const decision = await db.db.decision.findFirstOrThrow({ where: { fixId: pr.fixId, kind: 'ACCEPT' }, include: { user: true } });
    assert.equal(decision.surface, 'CODE_REVIEW');
    assert.equal(decision.user.name, 'maintainer (GitHub)');
    assert.deepEqual(decision.user.roles, [], 'the host’s user gets no flowfix role');
    assert.match(lastReply(), new RegExp(`^@maintainer applied the fix as ${tip.slice(0, 12)} on \`${pr.branch}\``));
  });

  test('the branch moved between the run and /flowfix apply: refused (stale), nothing written, answered in the thread', async () => {
    const pr = await failingPull(22);
    // someone pushes to the branch after flowfix ran
    git(work, ['checkout', '-q', pr.branch]);
    fs.appendFileSync(path.join(work, 'pr.txt'), 'another push\n');
    git(work, ['commit', '-q', '-am', 'another push']);
    const moved = git(work, ['rev-parse', 'HEAD']);
    git(work, ['push', '-q', pr.remote, `${pr.branch}:${pr.branch}`]);
    const row = await command(22, 'maintainer', '/flowfix apply');
    assert.match(row.detail ?? '', /refused: The branch feature-22 moved/);
    assert.match(lastReply(), /^@maintainer The branch feature-22 moved from/);
    assert.equal(git(root, ['--git-dir', pr.remote, 'rev-parse', pr.branch]), moved, 'the other push was not overwritten');
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: pr.fixId } })).status, 'STALE');
  });

  test('a fork whose author does not allow maintainer edits is never written (409 from the dashboard, refused in the thread, the comment says how to apply by hand); one that does is pushed to', async () => {
    const closed = await failingPull(23, { fork: { name: 'dev/shop', maintainerCanModify: false } });
    const comment = await waitFor(async () => gh.comments.find((c) => c.issueNumber === 23 && c.body.includes('Apply it by hand')), {
      what: 'the comment with the by-hand instructions',
    });
    assert.match(comment.body, /flowfix cannot push this fix: the branch `feature-23` lives in the fork dev\/shop/);
    assert.match(comment.body, /git apply/);
    assert.ok(comment.body.includes(`http://localhost:3000/api/fixes/${closed.fixId}/patch`), 'a link to the patch');
    assert.ok(comment.body.includes('+export const sum = (a, b) => a + b;'), 'the diff itself, to save as a file');

    const res = await callRoute({
      handler: acceptRoute.POST,
      url: `/api/fixes/${closed.fixId}/accept`,
      method: 'POST',
      cookie: await sessionCookie(admin),
      params: { id: closed.fixId },
      body: {},
    });
    assert.equal(res.status, 409, JSON.stringify(res.json));
    assert.match(
      (res.json as { error: { message: string } }).error.message,
      /fork dev\/shop, whose author does not allow maintainers to edit it.*Apply it by hand/s,
    );

    const refused = await command(23, 'maintainer', '/flowfix apply');
    assert.match(refused.detail ?? '', /fork dev\/shop, whose author does not allow maintainers to edit it/);
    assert.match(lastReply(), /Apply it by hand/);
    assert.equal(git(root, ['--git-dir', closed.remote, 'rev-parse', closed.branch]), closed.head);
    assert.ok(!gitServer.requests.some((r) => r.repo === 'dev/shop.git' && r.service === 'git-receive-pack'), 'no push was even tried');
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: closed.fixId } })).status, 'READY', 'the claim was released');

    // from the dashboard this time: the same token path, to the fork that allows edits
    const open = await failingPull(24, { fork: { name: 'kind/shop', maintainerCanModify: true } });
    const result = await acceptFix({ fixId: open.fixId, userId: admin.id, surface: 'DASHBOARD' });
    assert.equal(git(root, ['--git-dir', open.remote, 'rev-parse', open.branch]), result.commit);
    assert.ok(gitServer.requests.some((r) => r.repo === 'kind/shop.git' && r.service === 'git-receive-pack' && r.allowed));
  });

  test('/flowfix reject <reason> records a CODE_REVIEW rejection with the reason and answers', async () => {
    const pr = await failingPull(25);
    const row = await command(25, 'maintainer', '/flowfix reject the test expects subtraction');
    assert.equal(row.status, 'PROCESSED');
    const decision = await db.db.decision.findFirstOrThrow({ where: { fixId: pr.fixId, kind: 'REJECT' } });
    assert.deepEqual([decision.surface, decision.reason, decision.reasonText], ['CODE_REVIEW', 'OTHER', 'the test expects subtraction']);
    assert.match(lastReply(), /^@maintainer rejected the fix/);
  });
});
