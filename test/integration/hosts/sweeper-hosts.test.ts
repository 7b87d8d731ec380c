import './hosts-env';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { startGitHubApiDouble, type GitHubApiDouble } from '../../doubles/github-api-double';
import { registerHost, linkRepository } from '../../../lib/hosts/service';
import { setClientDefaults } from '../../../lib/hosts/clients';
import { recordDelivery } from '../../../lib/hosts/webhooks';
import { DELIVERY_SWEEP, startDeliveryWorker, sweepStuckDeliveries, type DeliveryWorker } from '../../../lib/code-review/process';
import { getRunQueue, HOST_EVENT_QUEUE } from '../../../lib/queue';
import type { CodeHost } from '../../../lib/generated/prisma/client';
import { JUNIT_FAILING, makeGitFixture, waitFor, zipOf, type GitFixture, waitForSettledDelivery } from './helpers';

// The sweeper: a webhook delivery recorded as RECEIVED whose job was lost
// (the server died between recording and queueing it), or left PROCESSING by
// a worker that was killed, is queued again by a periodic sweep once it is
// older than the sweep's age and no live job carries it; exactly one job,
// however many sweeps run, and one processing. A delivery lost again and
// again ends FAILED after a bounded number of re-queues, its last error kept.
// The recording is the webhook route's own first half (recordDelivery); the
// queue is the real pg-boss; GitHub is the API test double.

const MINUTE = 60_000;

describe('webhook deliveries: the sweeper for stuck deliveries (hosts)', () => {
  let db: TestDb;
  let gh: GitHubApiDouble;
  let repo: GitFixture;
  let host: CodeHost;
  let worker: DeliveryWorker | undefined;
  let clock = 0;
  /** a moment past the sweep's age since the last one (never backwards) */
  const later = () => new Date((clock = Math.max(clock, Date.now()) + DELIVERY_SWEEP.olderThanMs + MINUTE));
  /** a sweep as a worker runs it, that much later */
  const sweep = () => sweepStuckDeliveries({ now: later() });
  const row = (deliveryId: string) => db.db.webhookDelivery.findFirstOrThrow({ where: { deliveryId } });
  const settled = (deliveryId: string) => waitForSettledDelivery(db.db, deliveryId);
  const artifactReads = (runId: number) => gh.requests.filter((r) => r.path === `/repos/acme/shop/actions/runs/${runId}/artifacts`).length;

  /** A failed run of pull request #number, recorded as the webhook route records it, and not queued. */
  async function recordedNotQueued(number: number, runId: number): Promise<string> {
    const head = String(number).padStart(2, '0').repeat(20);
    gh.pulls.set(`acme/shop#${number}`, {
      number,
      title: `PR ${number}`,
      user: { login: 'dev' },
      head: { ref: `f-${number}`, sha: head },
      base: { ref: 'main', sha: repo.base },
    });
    gh.runs.set(runId, {
      id: runId,
      repositoryId: 101,
      headSha: head,
      artifacts: [{ id: runId, name: 'junit', zip: zipOf({ 'junit.xml': JUNIT_FAILING }) }],
      jobs: [],
    });
    const deliveryId = `lost-${runId}`;
    const payload = {
      action: 'completed',
      workflow_run: { id: runId, head_sha: head, conclusion: 'failure', html_url: `${gh.url}/r/${runId}`, pull_requests: [{ number }] },
      repository: { id: 101 },
      installation: { id: 55 },
    };
    const recorded = await recordDelivery('github', { host, deliveryId, event: 'workflow_run', payload });
    assert.equal(recorded.status, 'recorded');
    return deliveryId;
  }

  /** The job ids waiting or active for a delivery row, taken off the queue without processing (a lost job). */
  async function drainQueue(): Promise<string[]> {
    const queue = await getRunQueue();
    const jobs = await queue.fetchHostJobs(HOST_EVENT_QUEUE, 50);
    for (const job of jobs) await queue.completeHostJob(HOST_EVENT_QUEUE, job.jobId);
    return jobs.map((j) => j.id);
  }

  before(async () => {
    db = await createTestDb();
    gh = await startGitHubApiDouble();
    repo = makeGitFixture();
    setClientDefaults({ retries: 1, retryAfterBaseMs: 5 });
    const admin = await db.db.user.create({ data: { email: 'admin@sweep.test', name: 'Admin', roles: ['ADMIN'] } });
    const repository = await db.db.repository.create({ data: { name: 'acme/shop', gitUrl: repo.dir } });
    gh.repositories.push({ id: 101, owner: 'acme', name: 'shop', installationId: 55 });
    const view = await registerHost({
      actorId: admin.id,
      input: { kind: 'GITHUB', name: 'gh', apiBaseUrl: gh.url, appId: gh.appId, privateKey: gh.privateKey, webhookSecret: 'sweep-webhook-secret' },
    });
    await linkRepository({ actorId: admin.id, hostId: view.id, input: { externalId: '101', repositoryId: repository.id } });
    host = await db.db.codeHost.findUniqueOrThrow({ where: { id: view.id } });
  });
  after(async () => {
    await worker?.stop();
    setClientDefaults({});
    await gh.close();
    repo.cleanup();
    await db.drop();
  });

  test('a delivery lost again and again ends FAILED after the bounded re-queues, its last error kept', async () => {
    const deliveryId = await recordedNotQueued(10, 710);
    // two attempts failed before (the host answered 502), then its job was lost
    await db.db.webhookDelivery.update({ where: { id: (await row(deliveryId)).id }, data: { attempts: 2, detail: 'attempt failed: HTTP 502: Server Error' } });
    const requeues: string[] = [];
    for (let i = 0; i < DELIVERY_SWEEP.maxRequeues; i++) {
      const result = await sweep();
      assert.deepEqual(result.failed, []);
      requeues.push(...result.requeued);
      assert.deepEqual(await drainQueue(), [(await row(deliveryId)).id], 'exactly one job per re-queue');
    }
    assert.equal(requeues.length, DELIVERY_SWEEP.maxRequeues);
    const last = await sweep();
    assert.deepEqual([last.requeued, last.failed], [[], [(await row(deliveryId)).id]]);
    const failed = await row(deliveryId);
    assert.equal(failed.status, 'FAILED');
    assert.match(failed.detail ?? '', /attempt failed: HTTP 502: Server Error/);
    assert.match(failed.detail ?? '', new RegExp(`given up after 2 attempt\\(s\\) and ${DELIVERY_SWEEP.maxRequeues} re-queue\\(s\\)`));
    assert.ok(failed.processedAt);
    assert.deepEqual(await drainQueue(), [], 'nothing queued for a failed delivery');
    assert.equal(artifactReads(710), 0);
  });

  test('recorded but never queued (the server died in between): queued again by the sweep, one job however many sweeps, processed exactly once', async () => {
    const deliveryId = await recordedNotQueued(11, 711);
    const id = (await row(deliveryId)).id;
    const young = await sweepStuckDeliveries({ now: new Date() });
    assert.deepEqual(young.requeued, [], 'a delivery younger than the sweep’s age is left alone');

    // two workers sweeping at the same moment
    const now = later();
    const [a, b] = await Promise.all([sweepStuckDeliveries({ now }), sweepStuckDeliveries({ now })]);
    assert.deepEqual([...a.requeued, ...b.requeued], [id], 'two sweeps at once queue it once');
    const again = await sweep();
    assert.deepEqual(again.requeued, [], 'a live job carries it: not queued twice');
    assert.equal((await row(deliveryId)).sweeps, 1);

    worker = await startDeliveryWorker({ pollMs: 50 });
    const done = await settled(deliveryId);
    assert.equal(done.status, 'PROCESSED', done.detail ?? '');
    assert.equal(done.attempts, 1);
    assert.equal(artifactReads(711), 1, 'the run was read once');
    const head = '11'.repeat(20);
    await waitFor(async () => gh.checkRuns.find((c) => c.head_sha === head), { what: 'the check run' });
    assert.deepEqual((await sweep()).requeued, []);
    assert.equal(gh.checkRuns.filter((c) => c.head_sha === head).length, 1, 'one check run');
    assert.equal(await db.db.auditLog.count({ where: { action: 'failure.ingest', data: { path: ['deliveryId'], equals: deliveryId } } }), 1, 'ingested once');
    await worker.stop();
    worker = undefined;
  });

  test('left PROCESSING by a killed worker (its job gone): handed back by the sweep and processed once more, to the end', async () => {
    const deliveryId = await recordedNotQueued(12, 712);
    const id = (await row(deliveryId)).id;
    // a worker claimed it, read nothing yet, and was killed; the queue has since given its job up
    await db.db.webhookDelivery.update({ where: { id }, data: { status: 'PROCESSING', attempts: 1, startedAt: new Date() } });
    assert.deepEqual((await sweepStuckDeliveries({ now: new Date() })).requeued, [], 'a young claim is a worker still at it');
    assert.deepEqual((await sweep()).requeued, [id]);
    assert.equal((await row(deliveryId)).status, 'RECEIVED');

    worker = await startDeliveryWorker({ pollMs: 50 });
    const done = await settled(deliveryId);
    assert.equal(done.status, 'PROCESSED', done.detail ?? '');
    assert.equal(done.attempts, 2);
    assert.equal(artifactReads(712), 1);
    await worker.stop();
    worker = undefined;
  });

  test('the worker sweeps on its own schedule', async () => {
    const deliveryId = await recordedNotQueued(13, 713);
    worker = await startDeliveryWorker({ pollMs: 50, sweepEveryMs: 100, sweepOlderThanMs: 0 });
    const done = await settled(deliveryId);
    assert.equal(done.status, 'PROCESSED', done.detail ?? '');
    assert.deepEqual([done.attempts, done.sweeps], [1, 1]);
  });
});
