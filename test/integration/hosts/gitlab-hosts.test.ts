import './hosts-env';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import * as hostsRoute from '../../../app/api/admin/hosts/route';
import * as hostReposRoute from '../../../app/api/admin/hosts/[id]/repositories/route';
import * as webhookRoute from '../../../app/api/hosts/gitlab/webhook/route';
import { startGitLabApiDouble, type GitLabApiDouble } from '../../doubles/gitlab-api-double';
import { startDeliveryWorker, type DeliveryWorker } from '../../../lib/code-review/process';
import { gitlabDelivery, makeGitFixture, waitFor, type GitFixture, waitForSettledDelivery } from './helpers';
import { notifyCodeHostOfRun } from '../../../lib/code-review/sync';
import { claimRun, finishRun } from '../../../lib/runs/service';

// A GitLab connection end to end: the real @gitbeaker/rest client over real
// HTTP to a GitLab API test double; hooks authenticated by their secret token;
// a failed merge-request pipeline's test report and failed jobs' logs
// ingested by the background job; merge-request events stale pending work.

const HOOK_TOKEN = 'gitlab-hook-secret-token';
const ctx = { params: Promise.resolve({}) };

describe('GitLab: registration, hooks and failed pipelines (hosts)', () => {
  let db: TestDb;
  let gl: GitLabApiDouble;
  let repo: GitFixture;
  let cookie: string;
  let hostId = '';
  let repositoryId = '';
  let worker: DeliveryWorker;

  const post = (req: Request) => webhookRoute.POST(req as never, ctx);
  const settled = (id: string) => waitForSettledDelivery(db.db, id);
  const pipelineHook = (pipelineId: number, status = 'failed', mr: { iid: number } | null = { iid: 3 }) => ({
    object_kind: 'pipeline',
    object_attributes: { id: pipelineId, status, sha: repo.head, ref: 'feature' },
    merge_request: mr,
    project: { id: 501, path_with_namespace: 'acme/shop' },
  });

  before(async () => {
    db = await createTestDb();
    gl = await startGitLabApiDouble();
    repo = makeGitFixture();
    const admin = await db.db.user.create({ data: { email: 'admin@gitlab.test', name: 'Admin', roles: ['ADMIN'] } });
    cookie = await sessionCookie(admin);
    repositoryId = (await db.db.repository.create({ data: { name: 'acme/shop', gitUrl: repo.dir } })).id;
    gl.projects.push({ id: 501, path: 'acme/shop' }, { id: 502, path: 'acme/docs' });
    gl.mergeRequests.push({
      projectId: 501,
      iid: 3,
      title: 'Subtract instead',
      author: 'dev',
      sourceBranch: 'feature',
      baseSha: repo.base,
      headSha: repo.head,
    });
    worker = await startDeliveryWorker({ pollMs: 50 });
  });
  after(async () => {
    await worker.stop();
    await gl.close();
    repo.cleanup();
    await db.drop();
  });

  test('register with a token, link a project from the token’s own list; the token is never returned', async () => {
    const res = await callRoute({
      handler: hostsRoute.POST,
      url: '/api/admin/hosts',
      method: 'POST',
      cookie,
      body: { kind: 'GITLAB', name: 'gitlab.example', apiBaseUrl: gl.url, token: gl.token, webhookSecret: HOOK_TOKEN },
    });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    assert.ok(!JSON.stringify(res.json).includes(gl.token) && !JSON.stringify(res.json).includes(HOOK_TOKEN));
    hostId = (res.json as { host: { id: string } }).host.id;
    const row = await db.db.codeHost.findUniqueOrThrow({ where: { id: hostId } });
    assert.match(row.tokenCipher ?? '', /^ffs1:/);
    assert.ok(!row.tokenCipher!.includes(gl.token));

    const list = await callRoute({ handler: hostReposRoute.GET, url: `/api/admin/hosts/${hostId}/repositories`, cookie, params: { id: hostId } });
    assert.equal(list.status, 200, JSON.stringify(list.json));
    assert.deepEqual(
      (list.json as { repositories: Array<{ fullName: string }> }).repositories.map((r) => r.fullName),
      ['acme/docs', 'acme/shop'],
    );
    const link = await callRoute({
      handler: hostReposRoute.POST,
      url: `/api/admin/hosts/${hostId}/repositories`,
      method: 'POST',
      cookie,
      params: { id: hostId },
      body: { externalId: '501', repositoryId },
    });
    assert.equal(link.status, 201, JSON.stringify(link.json));
  });

  test('hooks: a wrong or missing secret token → 401, a replay → 409, an unlinked project → 404', async () => {
    assert.equal((await post(gitlabDelivery({ token: 'not-the-token', event: 'Pipeline Hook', payload: pipelineHook(1, 'running') }))).status, 401);
    const missing = gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload: pipelineHook(1, 'running') });
    missing.headers.delete('x-gitlab-token');
    assert.equal((await post(missing)).status, 401);
    assert.equal(
      (await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload: pipelineHook(1, 'running'), deliveryId: 'gl-dup' }))).status,
      202,
    );
    assert.equal(
      (await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload: pipelineHook(1, 'running'), deliveryId: 'gl-dup' }))).status,
      409,
    );
    const unlinked = await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload: { ...pipelineHook(1), project: { id: 502 } } }));
    assert.equal(unlinked.status, 404);
    assert.equal((await settled('gl-dup')).status, 'IGNORED');
  });

  test('a failed merge-request pipeline: its test report and failed job logs are ingested', async () => {
    gl.pipelines.set(77, {
      id: 77,
      projectId: 501,
      sha: repo.head,
      status: 'failed',
      testCases: [
        {
          status: 'failed',
          name: 'adds two numbers',
          classname: 'sum',
          file: 'test/sum.test.js',
          system_output: 'expected 3, got -1\n    at test/sum.test.js:4',
        },
        { status: 'success', name: 'adds zero', classname: 'sum' },
      ],
      jobs: [
        { id: 900, name: 'unit', status: 'failed', trace: '$ npm test\nFAIL test/sum.test.js' },
        { id: 901, name: 'lint', status: 'success', trace: 'clean' },
      ],
    });
    assert.equal((await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload: pipelineHook(77), deliveryId: 'gl-77' }))).status, 202);
    const row = await settled('gl-77');
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    const change = await db.db.change.findUniqueOrThrow({
      where: { repositoryId_externalId: { repositoryId, externalId: '3' } },
      include: { failures: true, revisions: true },
    });
    assert.equal(change.title, 'Subtract instead');
    assert.deepEqual([change.baseRev, change.headRev, change.branch], [repo.base, repo.head, 'feature']);
    assert.deepEqual(
      change.failures.map((f) => [f.testName, f.message]),
      [['adds two numbers', 'expected 3, got -1']],
    );
    assert.match(change.revisions[0].ciLog, /FAIL test\/sum\.test\.js/);
    assert.ok(!change.revisions[0].ciLog.includes('clean'));
    assert.equal(change.revisions[0].ciUrl, `${gl.url}/acme/shop/-/pipelines/77`);
  });

  test('out: the commit status runs while flowfix works and succeeds with a fix; one merge-request note carries it', async () => {
    const running = await waitFor(async () => gl.statuses.find((st) => st.sha === repo.head && st.state === 'running'), { what: 'a running commit status' });
    assert.equal(running.name, 'flowfix');
    assert.match(running.description ?? '', /^Working on it/);
    const change = await db.db.change.findUniqueOrThrow({ where: { repositoryId_externalId: { repositoryId, externalId: '3' } } });
    assert.equal(running.targetUrl, `http://localhost:3000/changes/${change.id}`);
    const run = await db.db.run.findFirstOrThrow({ where: { changeId: change.id } });
    assert.ok((await claimRun({ runId: run.id, workerId: 'w' })).claimed);
    await finishRun({
      runId: run.id,
      workerId: 'w',
      result: {
        status: 'fixed',
        exitReason: 'fixed',
        diff: 'diff --git a/sum.js b/sum.js\n--- a/sum.js\n+++ b/sum.js\n@@ -1 +1 @@\n-a - b\n+a + b\n',
        summaryHtml: '<p>Subtraction instead of addition.</p>',
      },
    });
    await notifyCodeHostOfRun(run.id);
    const done = await waitFor(async () => gl.statuses.find((st) => st.sha === repo.head && st.state === 'success'), { what: 'a successful commit status' });
    assert.equal(done.description, 'A fix is ready');
    const note = await waitFor(async () => gl.notes[0], { what: 'the note' });
    assert.equal(note.iid, 3);
    assert.ok(note.body.indexOf('Subtraction instead of addition.') < note.body.indexOf('+a + b'));
    assert.equal(gl.notes.length, 1);
  });

  test('a failed job is followed to its finished pipeline; a pipeline without failed tests or outside a merge request is ignored with the reason', async () => {
    gl.pipelines.set(78, { id: 78, projectId: 501, sha: repo.head, status: 'running', testCases: [], jobs: [] });
    await post(
      gitlabDelivery({
        token: HOOK_TOKEN,
        event: 'Job Hook',
        payload: { object_kind: 'build', build_id: 1, build_status: 'failed', pipeline_id: 78, project_id: 501 },
        deliveryId: 'job-78',
      }),
    );
    assert.match((await settled('job-78')).detail ?? '', /pipeline 78 is running/);
    gl.pipelines.set(79, {
      id: 79,
      projectId: 501,
      sha: repo.head,
      status: 'failed',
      testCases: [{ status: 'error', name: 'boots', classname: 'app', stack_trace: 'Error: boom' }],
      jobs: [],
    });
    await post(
      gitlabDelivery({
        token: HOOK_TOKEN,
        event: 'Job Hook',
        payload: { object_kind: 'build', build_id: 2, build_status: 'failed', pipeline_id: 79, project_id: 501 },
        deliveryId: 'job-79',
      }),
    );
    assert.equal((await settled('job-79')).status, 'PROCESSED');
    assert.ok(await db.db.failure.findFirst({ where: { testName: 'boots', kind: 'error' } }));

    gl.pipelines.set(80, {
      id: 80,
      projectId: 501,
      sha: repo.head,
      status: 'failed',
      testCases: [{ status: 'success', name: 'ok', classname: 'x' }],
      jobs: [],
    });
    await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload: pipelineHook(80), deliveryId: 'gl-80' }));
    assert.match((await settled('gl-80')).detail ?? '', /lists no failed test \(is artifacts:reports:junit set\?\)/);
    await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload: pipelineHook(81, 'failed', null), deliveryId: 'gl-81' }));
    assert.match((await settled('gl-81')).detail ?? '', /not a merge request's pipeline/);
  });

  test('merge request: an update with new commits stales the pending fix; a merge ends pending work', async () => {
    const change = await db.db.change.findUniqueOrThrow({
      where: { repositoryId_externalId: { repositoryId, externalId: '3' } },
      include: { revisions: true },
    });
    // the fix the run of the earlier test left READY
    const fix = await db.db.fix.findFirstOrThrow({ where: { changeId: change.id, revisionId: change.revisions[0].id, status: 'READY' } });
    const mrHook = (action: string, last: string) => ({
      object_kind: 'merge_request',
      object_attributes: { iid: 3, action, oldrev: repo.head, last_commit: { id: last } },
      project: { id: 501 },
    });
    await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Merge Request Hook', payload: mrHook('update', 'e'.repeat(40)), deliveryId: 'mr-update' }));
    assert.match((await settled('mr-update')).detail ?? '', /1 pending fix\(es\) made stale/);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'STALE');
    await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Merge Request Hook', payload: mrHook('merge', 'e'.repeat(40)), deliveryId: 'mr-merge' }));
    assert.match((await settled('mr-merge')).detail ?? '', /merged/);
    const note = await waitFor(async () => (gl.notes[0]?.body.includes('**Stale**') ? gl.notes[0] : null), { what: 'the note to say stale' });
    assert.ok(note.edits >= 1 && gl.notes.length === 1, 'the same note, edited');
  });

  test('merge-request notes: /flowfix apply needs the Developer role (asked of the members API); a developer applies with the CODE_REVIEW surface', async () => {
    gl.mergeRequests.push({ projectId: 501, iid: 4, title: 'Another', author: 'dev', sourceBranch: 'feature', baseSha: repo.base, headSha: repo.head });
    gl.pipelines.set(90, {
      id: 90,
      projectId: 501,
      sha: repo.head,
      status: 'failed',
      testCases: [{ status: 'failed', name: 'adds', classname: 'sum', system_output: 'expected 3' }],
      jobs: [],
    });
    await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload: pipelineHook(90, 'failed', { iid: 4 }), deliveryId: 'gl-90' }));
    assert.equal((await settled('gl-90')).status, 'PROCESSED');
    const change = await db.db.change.findUniqueOrThrow({ where: { repositoryId_externalId: { repositoryId, externalId: '4' } } });
    const run = await db.db.run.findFirstOrThrow({ where: { changeId: change.id } });
    assert.ok((await claimRun({ runId: run.id, workerId: 'w' })).claimed);
    const diff =
      'diff --git a/sum.js b/sum.js\n--- a/sum.js\n+++ b/sum.js\n@@ -1 +1 @@\n-export const sum = (a, b) => a - b;\n+export const sum = (a, b) => a + b;\n';
    await finishRun({
      runId: run.id,
      workerId: 'w',
      result: { status: 'fixed', exitReason: 'fixed', diff, files: ['sum.js'], summaryHtml: '<p>Subtraction.</p>' },
    });
    const fix = await db.db.fix.findFirstOrThrow({ where: { changeId: change.id } });
    gl.members.set(41, { username: 'guest', accessLevel: 20 }).set(42, { username: 'developer', accessLevel: 30 });
    const note = (userId: number, username: string, body: string) => ({
      object_kind: 'note',
      object_attributes: { noteable_type: 'MergeRequest', note: body },
      merge_request: { iid: 4 },
      user: { id: userId, username },
      project: { id: 501 },
    });

    await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Note Hook', payload: note(41, 'guest', '/flowfix apply'), deliveryId: 'note-guest' }));
    assert.match((await settled('note-guest')).detail ?? '', /refused: guest has access level 20/);
    assert.match(gl.notes.at(-1)!.body, /^@guest `\/flowfix apply` needs the Developer role/);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'READY');
    await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Note Hook', payload: note(43, 'stranger', '/flowfix apply'), deliveryId: 'note-stranger' }));
    assert.match((await settled('note-stranger')).detail ?? '', /access level 0/);

    await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Note Hook', payload: note(42, 'developer', 'ok\n/flowfix apply'), deliveryId: 'note-dev' }));
    const row = await settled('note-dev');
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    const decision = await db.db.decision.findFirstOrThrow({ where: { fixId: fix.id, kind: 'ACCEPT' }, include: { user: true } });
    assert.deepEqual([decision.surface, decision.user.name], ['CODE_REVIEW', 'developer (GitLab)']);
    // the change's own note may be edited after the answer (a sync job runs beside it): find the answer by its addressee
    assert.match(gl.notes.filter((n) => n.body.startsWith('@developer')).at(-1)?.body ?? '', /^@developer applied the fix as [0-9a-f]{12} on `feature`/);
    assert.ok(gl.requests.some((r) => r.path === '/api/v4/projects/501/members/all/42'));
  });
});
