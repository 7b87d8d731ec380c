import './hosts-env';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import * as webhookRoute from '../../../app/api/hosts/gitlab/webhook/route';
import { startGitLabApiDouble, type GitLabApiDouble } from '../../doubles/gitlab-api-double';
import { registerHost, linkRepository } from '../../../lib/hosts/service';
import { startDeliveryWorker, type DeliveryWorker } from '../../../lib/code-review/process';
import { gitlabDelivery, makeGitFixture, waitFor, type GitFixture, waitForSettledDelivery } from './helpers';

// Drafts and bots follow the repository's filter policy on GitLab: a failed
// pipeline of a draft merge request (draft, or work_in_progress on older
// GitLab) or of a bot's is recorded and skipped; the commit status says
// "Skipped: …" and never "running", and no note is written. Marked ready, the
// draft's last failure is repaired like a new one. Against the GitLab API test
// double over real HTTP.

const HOOK_TOKEN = 'gitlab-draft-hook-token';
const ctx = { params: Promise.resolve({}) };
const sha = (c: string) => c.repeat(40);

describe('GitLab: draft and bot merge requests follow the filter policy (hosts)', () => {
  let db: TestDb;
  let gl: GitLabApiDouble;
  let repo: GitFixture;
  let worker: DeliveryWorker;
  let repositoryId = '';
  let nextPipeline = 500;

  const post = (req: Request) => webhookRoute.POST(req as never, ctx);
  const settled = (id: string) => waitForSettledDelivery(db.db, id);
  const changeOf = (iid: number) => db.db.change.findFirstOrThrow({ where: { repositoryId, externalId: String(iid) }, include: { runs: true } });
  const statusesOf = (head: string) => gl.statuses.filter((s) => s.sha === head);

  function mergeRequest(iid: number, head: string, opts: { draft?: boolean; author?: string } = {}) {
    gl.mergeRequests = gl.mergeRequests.filter((m) => m.iid !== iid);
    gl.mergeRequests.push({
      projectId: 501,
      iid,
      title: `MR ${iid}`,
      author: opts.author ?? 'dev',
      sourceBranch: `feature-${iid}`,
      baseSha: repo.base,
      headSha: head,
      draft: opts.draft ?? false,
    });
  }

  async function failedPipeline(iid: number, head: string) {
    const id = nextPipeline++;
    gl.pipelines.set(id, {
      id,
      projectId: 501,
      sha: head,
      status: 'failed',
      testCases: [{ status: 'failed', name: 'adds', classname: 'sum', system_output: 'expected 3, got -1' }],
      jobs: [],
    });
    const deliveryId = `pipeline-${id}`;
    const payload = {
      object_kind: 'pipeline',
      object_attributes: { id, status: 'failed', sha: head, ref: `feature-${iid}` },
      merge_request: { iid },
      project: { id: 501 },
    };
    assert.equal((await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Pipeline Hook', payload, deliveryId }))).status, 202);
    return settled(deliveryId);
  }

  async function mergeRequestHook(iid: number, attrs: Record<string, unknown>, changes: Record<string, unknown>) {
    const deliveryId = `mr-${iid}-${Math.random()}`;
    const payload = { object_kind: 'merge_request', object_attributes: { iid, action: 'update', ...attrs }, changes, project: { id: 501 } };
    assert.equal((await post(gitlabDelivery({ token: HOOK_TOKEN, event: 'Merge Request Hook', payload, deliveryId }))).status, 202);
    return settled(deliveryId);
  }

  /** One commit status, "Skipped: …", never running or pending; no note. */
  async function assertSkippedOutputs(iid: number, head: string, description: RegExp) {
    const status = await waitFor(async () => statusesOf(head)[0], { what: `the commit status of !${iid}` });
    assert.match(status.description ?? '', description);
    // a commit status has no "skipped" on every GitLab version flowfix supports: success, which never fails the pipeline
    assert.equal(status.state, 'success');
    assert.deepEqual(
      statusesOf(head).map((s) => s.state),
      ['success'],
      'never pending or running',
    );
    assert.equal(gl.notes.filter((n) => n.iid === iid).length, 0, 'no note for a skipped change');
  }

  before(async () => {
    db = await createTestDb();
    gl = await startGitLabApiDouble();
    repo = makeGitFixture();
    const admin = await db.db.user.create({ data: { email: 'admin@gl-draft.test', name: 'Admin', roles: ['ADMIN'] } });
    repositoryId = (await db.db.repository.create({ data: { name: 'acme/shop', gitUrl: repo.dir } })).id;
    gl.projects.push({ id: 501, path: 'acme/shop' });
    const host = await registerHost({
      actorId: admin.id,
      input: { kind: 'GITLAB', name: 'gl', apiBaseUrl: gl.url, token: gl.token, webhookSecret: HOOK_TOKEN },
    });
    await linkRepository({ actorId: admin.id, hostId: host.id, input: { externalId: '501', repositoryId } });
    worker = await startDeliveryWorker({ pollMs: 50 });
  });
  after(async () => {
    await worker.stop();
    await gl.close();
    repo.cleanup();
    await db.drop();
  });

  test('a draft merge request’s failed pipeline is skipped by the draft filter: "Skipped" status, never running, no note', async () => {
    mergeRequest(7, sha('a'), { draft: true });
    const row = await failedPipeline(7, sha('a'));
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    const change = await changeOf(7);
    assert.deepEqual([change.draft, change.status, change.statusReason, change.runs.length], [true, 'SKIPPED', 'draft', 0]);
    await assertSkippedOutputs(7, sha('a'), /^Skipped: draft merge request$/);
  });

  test('marked ready (changes.draft): the last failure is repaired like a new one, the status runs', async () => {
    mergeRequest(7, sha('a'), { draft: false });
    const row = await mergeRequestHook(
      7,
      { draft: false, work_in_progress: false, last_commit: { id: sha('a') } },
      { draft: { previous: true, current: false } },
    );
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    assert.match(row.detail ?? '', /ready for review: the failure of .* queued for repair/);
    const change = await changeOf(7);
    assert.deepEqual([change.draft, change.runs.length, change.runs[0]?.status], [false, 1, 'QUEUED']);
    const running = await waitFor(async () => statusesOf(sha('a')).find((s) => s.state === 'running'), { what: 'a running status' });
    assert.match(running.description ?? '', /^Working on it/);
  });

  test('older GitLab (work_in_progress only): a WIP merge request is a draft too, and leaving WIP is noticed', async () => {
    mergeRequest(8, sha('b'), { draft: true });
    await failedPipeline(8, sha('b'));
    assert.equal((await changeOf(8)).statusReason, 'draft');
    mergeRequest(8, sha('b'), { draft: false });
    const row = await mergeRequestHook(8, { work_in_progress: false, last_commit: { id: sha('b') } }, { title: { previous: 'Draft: MR 8', current: 'MR 8' } });
    assert.match(row.detail ?? '', /queued for repair/);
    assert.equal((await changeOf(8)).runs.length, 1);
  });

  test('marked as draft: recorded, and the next failure is skipped', async () => {
    mergeRequest(7, sha('c'), { draft: true });
    const row = await mergeRequestHook(
      7,
      { draft: true, work_in_progress: true, last_commit: { id: sha('a') } },
      { draft: { previous: false, current: true } },
    );
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    assert.equal((await changeOf(7)).draft, true);
    await failedPipeline(7, sha('c'));
    const change = await changeOf(7);
    assert.deepEqual([change.headRev, change.status, change.statusReason], [sha('c'), 'SKIPPED', 'draft']);
    await assertSkippedOutputs(7, sha('c'), /draft/);
  });

  test('a bot’s merge request (a project access token’s bot user) is skipped by the bot filter', async () => {
    mergeRequest(9, sha('d'), { author: 'project_501_bot_3f2a9c1d' });
    await failedPipeline(9, sha('d'));
    const change = await changeOf(9);
    assert.deepEqual([change.authorKind, change.status, change.statusReason, change.runs.length], ['BOT', 'SKIPPED', 'bot_author', 0]);
    await assertSkippedOutputs(9, sha('d'), /^Skipped: the author is a bot$/);
  });
});
