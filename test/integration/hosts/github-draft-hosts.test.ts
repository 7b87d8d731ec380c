import './hosts-env';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import * as webhookRoute from '../../../app/api/hosts/github/webhook/route';
import * as repositoryRoute from '../../../app/api/admin/repositories/[id]/route';
import { startGitHubApiDouble, type GitHubApiDouble } from '../../doubles/github-api-double';
import { registerHost, linkRepository } from '../../../lib/hosts/service';
import { setClientDefaults } from '../../../lib/hosts/clients';
import { startDeliveryWorker, type DeliveryWorker } from '../../../lib/code-review/process';
import { notifyCodeHostOfRun } from '../../../lib/code-review/sync';
import { claimRun, finishRun } from '../../../lib/runs/service';
import { githubDelivery, JUNIT_FAILING, makeGitFixture, waitFor, zipOf, type GitFixture, waitForSettledDelivery } from './helpers';

// Drafts and bots follow the repository's filter policy on GitHub: a failed
// run of a draft (or a bot's) pull request is recorded and skipped by the
// pre-execution filters, and the pull request then shows exactly that — one
// completed "flowfix" check with the conclusion "skipped" and the reason,
// never "in progress", and no comment. Marked ready for review, the draft's
// last failure (when it is the failure of the current head) is repaired like a
// new one. All against the GitHub API test double over real HTTP.

const SECRET = 'draft-webhook-secret';
const ctx = { params: Promise.resolve({}) };
const DIFF =
  'diff --git a/sum.js b/sum.js\n--- a/sum.js\n+++ b/sum.js\n@@ -1 +1 @@\n-export const sum = (a, b) => a - b;\n+export const sum = (a, b) => a + b;\n';
const sha = (c: string) => c.repeat(40);

describe('GitHub: draft and bot pull requests follow the filter policy (hosts)', () => {
  let db: TestDb;
  let gh: GitHubApiDouble;
  let repo: GitFixture;
  let worker: DeliveryWorker;
  let repositoryId = '';
  let cookie = '';
  let nextRun = 300;

  const post = (req: Request) => webhookRoute.POST(req as never, ctx);
  const settled = (id: string) => waitForSettledDelivery(db.db, id);
  const changeOf = (number: number) => db.db.change.findFirstOrThrow({ where: { repositoryId, externalId: String(number) }, include: { runs: true } });
  const checksOf = (head: string) => gh.checkRuns.filter((c) => c.head_sha === head);
  const commentsOn = (number: number) => gh.comments.filter((c) => c.issueNumber === number);

  function pull(number: number, head: string, opts: { draft?: boolean; bot?: boolean } = {}) {
    gh.pulls.set(`acme/shop#${number}`, {
      number,
      title: `PR ${number}`,
      user: opts.bot ? { login: 'renovate[bot]', type: 'Bot' } : { login: 'dev' },
      head: { ref: `feature-${number}`, sha: head },
      base: { ref: 'main', sha: repo.base },
      draft: opts.draft ?? false,
    });
  }

  /** A failed workflow run of the pull request's head, delivered and settled. */
  async function failedRun(number: number, head: string) {
    const runId = nextRun++;
    gh.runs.set(runId, {
      id: runId,
      repositoryId: 101,
      headSha: head,
      artifacts: [{ id: runId, name: 'junit', zip: zipOf({ 'junit.xml': JUNIT_FAILING }) }],
      jobs: [],
    });
    const deliveryId = `run-${runId}`;
    const payload = {
      action: 'completed',
      workflow_run: { id: runId, head_sha: head, conclusion: 'failure', html_url: `${gh.url}/acme/shop/actions/runs/${runId}`, pull_requests: [{ number }] },
      repository: { id: 101 },
      installation: { id: 55 },
    };
    assert.equal((await post(githubDelivery({ secret: SECRET, event: 'workflow_run', payload, deliveryId }))).status, 202);
    return settled(deliveryId);
  }

  async function pullRequestEvent(action: string, number: number, head: string, draft: boolean) {
    const deliveryId = `pr-${action}-${number}-${Math.random()}`;
    const payload = { action, pull_request: { number, draft, head: { sha: head } }, repository: { id: 101 }, installation: { id: 55 } };
    assert.equal((await post(githubDelivery({ secret: SECRET, event: 'pull_request', payload, deliveryId }))).status, 202);
    return settled(deliveryId);
  }

  /** Skipped outputs: one completed "skipped" check on the head that never went through "in progress", and no new comment. */
  async function assertSkippedOutputs(number: number, head: string, title: RegExp, { commentsBefore = 0 } = {}) {
    const check = await waitFor(async () => checksOf(head).find((c) => c.status === 'completed'), { what: `the check of #${number}` });
    assert.equal(check.conclusion, 'skipped');
    assert.match(check.output.title ?? '', title);
    assert.deepEqual(
      check.history.map((h) => h.status),
      ['completed'],
      'never queued or in progress',
    );
    assert.equal(checksOf(head).length, 1);
    assert.equal(commentsOn(number).length, commentsBefore, 'no comment for a skipped change');
    return check;
  }

  before(async () => {
    db = await createTestDb();
    gh = await startGitHubApiDouble();
    repo = makeGitFixture();
    setClientDefaults({ retries: 1, retryAfterBaseMs: 5 });
    const admin = await db.db.user.create({ data: { email: 'admin@draft.test', name: 'Admin', roles: ['ADMIN', 'REVIEWER'] } });
    cookie = await sessionCookie(admin);
    repositoryId = (await db.db.repository.create({ data: { name: 'acme/shop', gitUrl: repo.dir } })).id;
    gh.repositories.push({ id: 101, owner: 'acme', name: 'shop', installationId: 55 });
    const host = await registerHost({
      actorId: admin.id,
      input: { kind: 'GITHUB', name: 'gh', apiBaseUrl: gh.url, appId: gh.appId, privateKey: gh.privateKey, webhookSecret: SECRET },
    });
    await linkRepository({ actorId: admin.id, hostId: host.id, input: { externalId: '101', repositoryId } });
    worker = await startDeliveryWorker({ pollMs: 50 });
  });
  after(async () => {
    await worker.stop();
    setClientDefaults({});
    await gh.close();
    repo.cleanup();
    await db.drop();
  });

  test('a draft’s failed run is recorded and skipped by the draft filter: a completed "skipped" check with the reason, never in progress, no comment', async () => {
    pull(40, sha('4'), { draft: true });
    const row = await failedRun(40, sha('4'));
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    const change = await changeOf(40);
    assert.deepEqual([change.draft, change.status, change.statusReason, change.runs.length], [true, 'SKIPPED', 'draft', 0]);
    const check = await assertSkippedOutputs(40, sha('4'), /^Skipped: draft pull request$/);
    assert.match(check.output.summary ?? '', /ready for review/);
  });

  test('ready for review: the draft’s last failure is repaired like a new one — a new check run in progress, then the fix and one comment', async () => {
    pull(40, sha('4'), { draft: false });
    const row = await pullRequestEvent('ready_for_review', 40, sha('4'), false);
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    assert.match(row.detail ?? '', /ready for review: the failure of .* queued for repair/);
    const change = await changeOf(40);
    assert.equal(change.draft, false);
    assert.equal(change.runs.length, 1);
    assert.deepEqual([change.runs[0].status, change.runs[0].trigger], ['QUEUED', 'AUTO']);

    // a completed check run cannot go back to in progress on GitHub: a new one is created beside it
    const running = await waitFor(async () => checksOf(sha('4')).find((c) => c.status === 'in_progress'), { what: 'a check in progress' });
    assert.match(running.output.title ?? '', /^Working on it/);
    assert.equal(checksOf(sha('4')).length, 2);
    assert.deepEqual(
      checksOf(sha('4'))[0].history.map((h) => h.status),
      ['completed'],
      'the skipped check was left as it was',
    );
    assert.ok(!gh.requests.some((r) => r.method === 'PATCH' && r.status === 422), 'no attempt to reopen a completed check run');

    const run = change.runs[0];
    assert.ok((await claimRun({ runId: run.id, workerId: 'w' })).claimed);
    await finishRun({
      runId: run.id,
      workerId: 'w',
      result: { status: 'fixed', exitReason: 'fixed', diff: DIFF, files: ['sum.js'], summaryHtml: '<p>Subtraction.</p>' },
    });
    await notifyCodeHostOfRun(run.id);
    const done = await waitFor(async () => (running.status === 'completed' ? running : null), { what: 'the new check to complete' });
    assert.equal(done.output.title, 'A fix is ready');
    await waitFor(async () => commentsOn(40)[0], { what: 'the comment' });
    assert.equal(commentsOn(40).length, 1);
  });

  test('converted to draft: recorded, and the next failure is skipped; ready for review on a head whose run did not fail waits for the next failure', async () => {
    pull(40, sha('5'), { draft: true });
    const converted = await pullRequestEvent('converted_to_draft', 40, sha('5'), true);
    assert.equal(converted.status, 'PROCESSED', converted.detail ?? '');
    assert.equal((await changeOf(40)).draft, true);
    await failedRun(40, sha('5'));
    const change = await changeOf(40);
    assert.deepEqual([change.headRev, change.status, change.statusReason], [sha('5'), 'SKIPPED', 'draft']);
    // the comment of the earlier fix stays the only one (it says that fix is stale)
    await assertSkippedOutputs(40, sha('5'), /draft/, { commentsBefore: 1 });
    const runsBefore = change.runs.length;

    // new commits since the failure (their run has not failed): nothing to repair yet
    pull(40, sha('6'), { draft: false });
    const ready = await pullRequestEvent('ready_for_review', 40, sha('6'), false);
    assert.match(ready.detail ?? '', /the next failed run/);
    const after = await changeOf(40);
    assert.equal(after.draft, false);
    assert.equal(after.runs.length, runsBefore, 'no run for an older head');
  });

  test('a bot’s pull request: skipped by the bot filter, with the same outputs', async () => {
    pull(42, sha('7'), { bot: true });
    await failedRun(42, sha('7'));
    const change = await changeOf(42);
    assert.deepEqual([change.authorKind, change.status, change.statusReason, change.runs.length], ['BOT', 'SKIPPED', 'bot_author', 0]);
    await assertSkippedOutputs(42, sha('7'), /^Skipped: the author is a bot$/);
  });

  test('the draft filter is part of the filter policy an admin edits: switched off, a draft’s failure is repaired', async () => {
    const bad = await callRoute({
      handler: repositoryRoute.PATCH,
      url: `/api/admin/repositories/${repositoryId}`,
      method: 'PATCH',
      cookie,
      params: { id: repositoryId },
      body: { filterPolicy: { pre: { draft: 'no' } } },
    });
    assert.equal(bad.status, 422, JSON.stringify(bad.json));
    assert.match(JSON.stringify(bad.json), /draft/);
    const res = await callRoute({
      handler: repositoryRoute.PATCH,
      url: `/api/admin/repositories/${repositoryId}`,
      method: 'PATCH',
      cookie,
      params: { id: repositoryId },
      body: { filterPolicy: { pre: { draft: false } } },
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal((res.json as { repository: { effective: { filterPolicy: { pre: { draft: boolean } } } } }).repository.effective.filterPolicy.pre.draft, false);

    pull(43, sha('8'), { draft: true });
    await failedRun(43, sha('8'));
    const change = await changeOf(43);
    assert.equal(change.draft, true);
    assert.deepEqual([change.status, change.runs.length], ['QUEUED', 1]);
    const check = await waitFor(async () => checksOf(sha('8'))[0], { what: 'the check' });
    assert.equal(check.history[0].status, 'in_progress');
  });
});
