import './hosts-env';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import * as webhookRoute from '../../../app/api/hosts/gitlab/webhook/route';
import * as acceptRoute from '../../../app/api/fixes/[id]/accept/route';
import { startGitLabApiDouble, type GitLabApiDouble } from '../../doubles/gitlab-api-double';
import { startGitHttpServer, type GitHttpServer } from '../../doubles/git-http-server';
import { registerHost, linkRepository } from '../../../lib/hosts/service';
import { startDeliveryWorker, type DeliveryWorker } from '../../../lib/code-review/process';
import { claimRun, finishRun } from '../../../lib/runs/service';
import { notifyCodeHostOfRun } from '../../../lib/code-review/sync';
import { git, gitlabDelivery, waitFor, waitForSettledDelivery } from './helpers';

// Applying from a GitLab merge request. The repositories are real, served by
// `git http-backend` behind a server that lets only the connection's project
// access token in (user oauth2), so every push here goes over git's smart
// HTTP with that token. A merge request from a fork is written only when its
// author allows commits from members who can merge; otherwise the apply is
// refused (409) from every surface, nothing is written, and the merge
// request's note says how to apply the fix by hand.

const HOOK_TOKEN = 'gitlab-apply-hook-token';
const ctx = { params: Promise.resolve({}) };
const DIFF =
  'diff --git a/sum.js b/sum.js\n--- a/sum.js\n+++ b/sum.js\n@@ -1 +1 @@\n-export const sum = (a, b) => a - b;\n+export const sum = (a, b) => a + b;\n';

describe('GitLab: applying over smart HTTP with the project access token, and forks (hosts)', () => {
  let db: TestDb;
  let gl: GitLabApiDouble;
  let gitServer: GitHttpServer;
  let worker: DeliveryWorker;
  let root = '';
  let work = '';
  let base = '';
  let reviewerCookie = '';
  let nextPipeline = 900;
  const post = (req: Request) => webhookRoute.POST(req as never, ctx);
  const bare = (name: string) => path.join(root, `${name}.git`);
  const settled = (id: string) => waitForSettledDelivery(db.db, id);
  const tipOf = (remote: string, branch: string) => git(root, ['--git-dir', remote, 'rev-parse', branch]);

  /** A merge request whose branch breaks sum, failed in its pipeline, with a READY fix from a finished run. */
  async function failingMergeRequest(iid: number, opts: { fork?: { projectId: number; name: string; allowCollaboration: boolean } } = {}) {
    const branch = `feature-${iid}`;
    const remote = bare(opts.fork?.name ?? 'acme/shop');
    git(work, ['checkout', '-q', '-B', branch, base]);
    fs.writeFileSync(path.join(work, 'sum.js'), 'export const sum = (a, b) => a - b;\n');
    fs.writeFileSync(path.join(work, 'mr.txt'), `${iid}\n`);
    git(work, ['add', '.']);
    git(work, ['commit', '-q', '-m', `break sum in !${iid}`]);
    const head = git(work, ['rev-parse', 'HEAD']);
    git(work, ['push', '-q', remote, `${branch}:${branch}`]);
    gl.mergeRequests.push({
      projectId: 501,
      iid,
      title: `MR ${iid}`,
      author: 'dev',
      sourceBranch: branch,
      baseSha: base,
      headSha: head,
      ...(opts.fork ? { sourceProjectId: opts.fork.projectId, allowCollaboration: opts.fork.allowCollaboration } : {}),
    });
    const pipelineId = nextPipeline++;
    gl.pipelines.set(pipelineId, {
      id: pipelineId,
      projectId: 501,
      sha: head,
      status: 'failed',
      testCases: [{ status: 'failed', name: 'adds', classname: 'sum', system_output: 'expected 3, got -1' }],
      jobs: [],
    });
    const deliveryId = `pipeline-${pipelineId}`;
    await post(
      gitlabDelivery({
        token: HOOK_TOKEN,
        event: 'Pipeline Hook',
        deliveryId,
        payload: { object_kind: 'pipeline', object_attributes: { id: pipelineId, status: 'failed', sha: head }, merge_request: { iid }, project: { id: 501 } },
      }),
    );
    assert.equal((await settled(deliveryId)).status, 'PROCESSED');
    const change = await db.db.change.findFirstOrThrow({ where: { externalId: String(iid) } });
    const run = await db.db.run.findFirstOrThrow({ where: { changeId: change.id } });
    assert.ok((await claimRun({ runId: run.id, workerId: 'w' })).claimed);
    await finishRun({
      runId: run.id,
      workerId: 'w',
      result: { status: 'fixed', exitReason: 'fixed', diff: DIFF, files: ['sum.js'], summaryHtml: '<p>Subtraction.</p>' },
    });
    // as the worker does once a run ends
    await notifyCodeHostOfRun(run.id);
    const fix = await db.db.fix.findFirstOrThrow({ where: { changeId: change.id } });
    return { branch, head, remote, changeId: change.id, fixId: fix.id };
  }

  async function command(iid: number, body: string) {
    const deliveryId = `note-${iid}-${Math.random()}`;
    const payload = {
      object_kind: 'note',
      object_attributes: { noteable_type: 'MergeRequest', note: body },
      merge_request: { iid },
      user: { id: 42, username: 'developer' },
      project: { id: 501 },
    };
    assert.equal((await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Note Hook', payload, deliveryId }))).status, 202);
    return settled(deliveryId);
  }
  const lastAnswer = (iid: number) => gl.notes.filter((n) => n.iid === iid && n.body.startsWith('@developer')).at(-1)?.body ?? '';

  before(async () => {
    db = await createTestDb();
    gl = await startGitLabApiDouble();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-gitlab-http-'));
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
    // only the connection's project access token may read or push, as GitLab's own git over HTTPS
    gitServer = await startGitHttpServer({ root, authorize: ({ user, password }) => user === 'oauth2' && password === gl.token });
    gl.projects.push(
      { id: 501, path: 'acme/shop', httpUrlToRepo: `${gitServer.url}/acme/shop.git` },
      { id: 601, path: 'dev/shop', httpUrlToRepo: `${gitServer.url}/dev/shop.git` },
      { id: 602, path: 'kind/shop', httpUrlToRepo: `${gitServer.url}/kind/shop.git` },
    );
    gl.members.set(42, { username: 'developer', accessLevel: 30 });
    const admin = await db.db.user.create({ data: { email: 'admin@gl-apply.test', name: 'Admin', roles: ['ADMIN'] } });
    const reviewer = await db.db.user.create({ data: { email: 'reviewer@gl-apply.test', name: 'Reviewer', roles: ['REVIEWER'] } });
    reviewerCookie = await sessionCookie(reviewer);
    const repository = await db.db.repository.create({ data: { name: 'acme/shop', gitUrl: `${gitServer.url}/acme/shop.git` } });
    const host = await registerHost({
      actorId: admin.id,
      input: { kind: 'GITLAB', name: 'gl', apiBaseUrl: gl.url, token: gl.token, webhookSecret: HOOK_TOKEN },
    });
    await linkRepository({ actorId: admin.id, hostId: host.id, input: { externalId: '501', repositoryId: repository.id } });
    worker = await startDeliveryWorker({ pollMs: 50 });
  });
  after(async () => {
    await worker.stop();
    await gitServer.close();
    await gl.close();
    fs.rmSync(root, { recursive: true, force: true });
    await db.drop();
  });

  test('without the token the git server refuses: the token is what lets flowfix in', async () => {
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
    const wrong = `http://oauth2:glpat-made-up@${gitServer.url.slice('http://'.length)}/acme/shop.git`;
    await assert.rejects(run('git', ['ls-remote', wrong], { env, timeout: 20_000 }), /Authentication failed|401/);
  });

  test('/flowfix apply by a developer: the commit reaches the branch over smart HTTP, pushed with the project access token', async () => {
    const mr = await failingMergeRequest(10);
    const row = await command(10, '/flowfix apply');
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    const tip = tipOf(mr.remote, mr.branch);
    assert.notEqual(tip, mr.head);
    assert.equal(git(root, ['--git-dir', mr.remote, 'rev-parse', `${tip}^`]), mr.head);
    assert.match(git(root, ['--git-dir', mr.remote, 'log', '-1', '--format=%B', tip]), new RegExp(`Flowfix-Fix: ${mr.fixId}`));
    assert.match(git(root, ['--git-dir', mr.remote, 'show', `${tip}:sum.js`]), /a \+ b/);
    // git asks without credentials first and answers the 401 with the token
    const pushes = gitServer.requests.filter((r) => r.service === 'git-receive-pack' && r.repo === 'acme/shop.git' && r.allowed);
    assert.ok(pushes.length > 0 && pushes.every((r) => r.user === 'oauth2'), JSON.stringify(gitServer.requests));
    assert.match(lastAnswer(10), new RegExp(`^@developer applied the fix as ${tip.slice(0, 12)} on \`${mr.branch}\``));
  });

  test('a fork whose author does not allow commits from members: refused with 409 from the dashboard and in the thread, nothing written, and the note says how to apply by hand', async () => {
    const mr = await failingMergeRequest(11, { fork: { projectId: 601, name: 'dev/shop', allowCollaboration: false } });
    const note = await waitFor(async () => gl.notes.find((n) => n.iid === 11 && n.body.includes('Apply it by hand')), {
      what: 'the merge request note with the by-hand instructions',
    });
    assert.match(note.body, /flowfix cannot push this fix: the branch `feature-11` lives in the fork dev\/shop/);
    assert.match(note.body, /git apply/);
    assert.ok(note.body.includes(`http://localhost:3000/api/fixes/${mr.fixId}/patch`), 'a link to the patch');
    assert.ok(note.body.includes('+export const sum = (a, b) => a + b;'), 'the diff itself, to save as a file');

    const res = await callRoute({
      handler: acceptRoute.POST,
      url: `/api/fixes/${mr.fixId}/accept`,
      method: 'POST',
      cookie: reviewerCookie,
      params: { id: mr.fixId },
      body: {},
    });
    assert.equal(res.status, 409, JSON.stringify(res.json));
    const message = (res.json as { error: { message: string } }).error.message;
    assert.match(message, /fork dev\/shop, whose author does not allow commits from members who can merge/);
    assert.match(message, /Apply it by hand/);
    assert.ok(message.includes(`/api/fixes/${mr.fixId}/patch`));

    const row = await command(11, '/flowfix apply');
    assert.match(row.detail ?? '', /refused: .*fork dev\/shop/);
    assert.match(lastAnswer(11), /Apply it by hand/);
    assert.equal(tipOf(mr.remote, mr.branch), mr.head, 'the fork’s branch did not move');
    assert.ok(!gitServer.requests.some((r) => r.repo === 'dev/shop.git' && r.service === 'git-receive-pack'), 'no push was even tried');
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: mr.fixId } })).status, 'READY', 'the claim was released');
  });

  test('a fork that allows commits from members is pushed to, over smart HTTP, with the same token', async () => {
    const mr = await failingMergeRequest(12, { fork: { projectId: 602, name: 'kind/shop', allowCollaboration: true } });
    const row = await command(12, '/flowfix apply');
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    const tip = tipOf(mr.remote, mr.branch);
    assert.equal(git(root, ['--git-dir', mr.remote, 'rev-parse', `${tip}^`]), mr.head);
    assert.ok(gitServer.requests.some((r) => r.repo === 'kind/shop.git' && r.service === 'git-receive-pack' && r.allowed && r.user === 'oauth2'));
  });
});
