import './hosts-env';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import * as hostsRoute from '../../../app/api/admin/hosts/route';
import * as hostReposRoute from '../../../app/api/admin/hosts/[id]/repositories/route';
import * as manifestRoute from '../../../app/api/admin/hosts/github-manifest/route';
import * as webhookRoute from '../../../app/api/hosts/github/webhook/route';
import { startGitHubApiDouble, type GitHubApiDouble } from '../../doubles/github-api-double';
import { setClientDefaults } from '../../../lib/hosts/clients';
import { startDeliveryWorker, type DeliveryWorker } from '../../../lib/code-review/process';
import { githubDelivery, JUNIT_FAILING, makeGitFixture, waitFor, zipOf, type GitFixture, waitForSettledDelivery } from './helpers';

// The GitHub App connection end to end, in-process routes with the real
// @octokit/rest client over real HTTP to a GitHub API test double: register
// the App (secrets encrypted, never returned), link a repository from the
// App's own list, signed deliveries in, and a failed workflow run's JUnit
// artifact and job logs ingested by the background job.

const WEBHOOK_SECRET = 'wh-secret-for-the-github-app';
const ctx = { params: Promise.resolve({}) };

describe('GitHub App: registration, webhooks and failed runs (hosts)', () => {
  let db: TestDb;
  let gh: GitHubApiDouble;
  let repo: GitFixture;
  let cookie: string;
  let hostId = '';
  let repositoryId = '';
  let worker: DeliveryWorker | undefined;

  const post = (req: Request) => webhookRoute.POST(req as never, ctx);
  const delivery = (id: string) => db.db.webhookDelivery.findFirst({ where: { deliveryId: id } });
  const settled = (id: string) => waitForSettledDelivery(db.db, id);

  function workflowRun({ runId, pull = 12, installation = 55, repoId = 101 }: { runId: number; pull?: number; installation?: number; repoId?: number }) {
    return {
      action: 'completed',
      workflow_run: {
        id: runId,
        head_sha: repo.head,
        head_branch: 'feature',
        conclusion: 'failure',
        status: 'completed',
        html_url: `${gh.url}/acme/shop/actions/runs/${runId}`,
        pull_requests: [{ number: pull }],
      },
      repository: { id: repoId, full_name: 'acme/shop' },
      installation: { id: installation },
    };
  }

  before(async () => {
    db = await createTestDb();
    gh = await startGitHubApiDouble();
    repo = makeGitFixture();
    setClientDefaults({ retries: 1, retryAfterBaseMs: 5 });
    const admin = await db.db.user.create({ data: { email: 'admin@hosts.test', name: 'Admin', roles: ['ADMIN'] } });
    cookie = await sessionCookie(admin);
    repositoryId = (await db.db.repository.create({ data: { name: 'acme/shop', gitUrl: repo.dir } })).id;
    gh.repositories.push({ id: 101, owner: 'acme', name: 'shop', installationId: 55 }, { id: 102, owner: 'acme', name: 'other', installationId: 55 });
    gh.pulls.set('acme/shop#12', {
      number: 12,
      title: 'Make sum subtract',
      body: 'why not',
      user: { login: 'dev' },
      head: { ref: 'feature', sha: repo.head },
      base: { ref: 'main', sha: repo.base },
      additions: 1,
      deletions: 1,
      changedFiles: 1,
    });
  });
  after(async () => {
    await worker?.stop();
    setClientDefaults({});
    await gh.close();
    repo.cleanup();
    await db.drop();
  });

  test('the manifest asks for exactly checks, contents and pull requests write, actions and metadata read', async () => {
    const res = await callRoute({ handler: manifestRoute.GET, url: '/api/admin/hosts/github-manifest', cookie });
    assert.equal(res.status, 200);
    const { manifest } = res.json as { manifest: { default_permissions: Record<string, string>; hook_attributes: { url: string } } };
    assert.deepEqual(manifest.default_permissions, { checks: 'write', contents: 'write', pull_requests: 'write', actions: 'read', metadata: 'read' });
    assert.equal(manifest.hook_attributes.url, 'http://localhost:3000/api/hosts/github/webhook');
  });

  test('registering the App stores its secrets encrypted and never returns or audits them', async () => {
    const body = { kind: 'GITHUB', name: 'github.com', apiBaseUrl: gh.url, appId: gh.appId, privateKey: gh.privateKey, webhookSecret: WEBHOOK_SECRET };
    const res = await callRoute({ handler: hostsRoute.POST, url: '/api/admin/hosts', method: 'POST', cookie, body });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    hostId = (res.json as { host: { id: string } }).host.id;
    const list = await callRoute({ handler: hostsRoute.GET, url: '/api/admin/hosts', cookie });
    const row = await db.db.codeHost.findUniqueOrThrow({ where: { id: hostId } });
    const audit = (await db.db.auditLog.findMany({ where: { action: 'host.register' } })).map((a) => a.data);
    assert.equal(audit.length, 1);
    const pemBody = gh.privateKey.split('\n')[1];
    for (const [what, text] of [
      ['POST answer', JSON.stringify(res.json)],
      ['GET answer', JSON.stringify(list.json)],
      ['audit', JSON.stringify(audit)],
    ] as const) {
      assert.ok(!text.includes(pemBody) && !text.includes(WEBHOOK_SECRET) && !text.includes('ffs1:'), `${what} leaks a secret or a ciphertext`);
    }
    assert.match(row.privateKeyCipher ?? '', /^ffs1:test1:/);
    assert.match(row.webhookSecretCipher, /^ffs1:test1:/);
    assert.ok(!row.privateKeyCipher!.includes(pemBody) && !row.webhookSecretCipher.includes(WEBHOOK_SECRET));
    const bad = await callRoute({
      handler: hostsRoute.POST,
      url: '/api/admin/hosts',
      method: 'POST',
      cookie,
      body: { ...body, name: 'x', privateKey: 'not a key at all' },
    });
    assert.equal(bad.status, 422);
  });

  test('repositories are linked from the App installations’ own list, as the App then as the installation', async () => {
    const res = await callRoute({ handler: hostReposRoute.GET, url: `/api/admin/hosts/${hostId}/repositories`, cookie, params: { id: hostId } });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const repos = (res.json as { repositories: Array<{ externalId: string; fullName: string; installationId: string }> }).repositories;
    assert.deepEqual(
      repos.map((r) => [r.fullName, r.externalId, r.installationId]),
      [
        ['acme/other', '102', '55'],
        ['acme/shop', '101', '55'],
      ],
    );
    assert.ok(
      gh.requests.some((r) => r.path === '/app/installations' && r.auth === 'app'),
      'listed installations with the App JWT',
    );
    assert.ok(
      gh.requests.some((r) => r.path === '/installation/repositories' && r.auth === 'installation'),
      'listed repositories with an installation token',
    );

    const link = await callRoute({
      handler: hostReposRoute.POST,
      url: `/api/admin/hosts/${hostId}/repositories`,
      method: 'POST',
      cookie,
      params: { id: hostId },
      body: { externalId: '101', repositoryId, artifactName: 'junit*', junitGlob: 'reports/**/*.xml' },
    });
    assert.equal(link.status, 201, JSON.stringify(link.json));
    const stored = await db.db.codeHostRepository.findUniqueOrThrow({ where: { repositoryId } });
    assert.deepEqual([stored.fullName, stored.installationId], ['acme/shop', '55']);
    const typed = await callRoute({
      handler: hostReposRoute.POST,
      url: `/api/admin/hosts/${hostId}/repositories`,
      method: 'POST',
      cookie,
      params: { id: hostId },
      body: { externalId: '999', repositoryId },
    });
    assert.equal(typed.status, 404, 'a project the host does not list cannot be linked');
  });

  test('deliveries: a bad or missing signature → 401, a replay → 409, an unknown installation or repository → 404', async () => {
    const payload = { action: 'opened', pull_request: { number: 12, head: { sha: repo.head } }, repository: { id: 101 }, installation: { id: 55 } };
    assert.equal((await post(githubDelivery({ secret: 'some-other-secret', event: 'pull_request', payload }))).status, 401);
    assert.equal((await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'pull_request', payload, signature: 'sha256=' + '0'.repeat(64) }))).status, 401);
    const unsigned = githubDelivery({ secret: WEBHOOK_SECRET, event: 'pull_request', payload });
    unsigned.headers.delete('x-hub-signature-256');
    assert.equal((await post(unsigned)).status, 401);

    const first = await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'pull_request', payload, deliveryId: 'dup-1' }));
    assert.equal(first.status, 202);
    const replay = await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'pull_request', payload, deliveryId: 'dup-1' }));
    assert.equal(replay.status, 409);
    assert.match(((await replay.json()) as { error: { message: string } }).error.message, /already received/);
    assert.equal(await db.db.webhookDelivery.count({ where: { deliveryId: 'dup-1' } }), 1);

    const strangerInstallation = await post(
      githubDelivery({ secret: WEBHOOK_SECRET, event: 'pull_request', payload: { ...payload, installation: { id: 77 } } }),
    );
    assert.equal(strangerInstallation.status, 404);
    assert.match(((await strangerInstallation.json()) as { error: { message: string } }).error.message, /Installation 77 is unknown/);
    const unlinked = await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'pull_request', payload: { ...payload, repository: { id: 102 } } }));
    assert.equal(unlinked.status, 404);
    const other = await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'push', payload }));
    assert.equal(other.status, 200, 'an event flowfix does not act on is acknowledged, not recorded');
  });

  test('a failed workflow run: acknowledged at once, then its JUnit artifact and failed job log are ingested in the background', async () => {
    gh.runs.set(9001, {
      id: 9001,
      repositoryId: 101,
      headSha: repo.head,
      artifacts: [
        { id: 1, name: 'junit-node-20', zip: zipOf({ 'reports/junit.xml': JUNIT_FAILING, 'reports/notes.txt': 'not a report' }) },
        { id: 2, name: 'coverage', zip: zipOf({ 'reports/cov.xml': '<coverage/>' }) },
      ],
      jobs: [
        { id: 31, name: 'test (node 20)', conclusion: 'failure', log: '2026-01-01T00:00:00Z npm test\nFAIL test/sum.test.js\n  adds two numbers' },
        { id: 32, name: 'lint', conclusion: 'success', log: 'all good' },
      ],
    });
    worker = await startDeliveryWorker({ pollMs: 50 });
    const started = performance.now();
    const res = await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'workflow_run', payload: workflowRun({ runId: 9001 }), deliveryId: 'run-9001' }));
    const ackMs = performance.now() - started;
    assert.equal(res.status, 202);
    assert.ok(ackMs < 2000, `acknowledged in ${ackMs.toFixed(0)} ms`);

    const row = await settled('run-9001');
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    const change = await db.db.change.findUniqueOrThrow({
      where: { repositoryId_externalId: { repositoryId, externalId: '12' } },
      include: { failures: true, revisions: true },
    });
    assert.equal(change.title, 'Make sum subtract');
    assert.equal(change.headRev, repo.head);
    assert.equal(change.baseRev, repo.base);
    assert.deepEqual(
      change.failures.map((f) => f.testName),
      ['adds two numbers'],
    );
    assert.match(change.revisions[0].ciLog, /FAIL test\/sum\.test\.js/);
    assert.ok(!change.revisions[0].ciLog.includes('all good'), 'only the failed jobs’ logs');
    assert.equal(change.revisions[0].ciUrl, `${gh.url}/acme/shop/actions/runs/9001`);
    assert.ok(!gh.requests.some((r) => r.path.endsWith('/artifacts/2/zip')), 'an artifact whose name does not match is not downloaded');
    const audit = await db.db.auditLog.findFirstOrThrow({ where: { action: 'failure.ingest', targetId: change.id } });
    assert.equal(audit.actorKind, 'system');
    assert.equal((audit.data as { hostId?: string }).hostId, hostId);
  });

  test('a run without a JUnit artifact, or with a 50 MB one, is recorded as ignored with the reason, and the big one is never downloaded', async () => {
    gh.runs.set(9002, { id: 9002, repositoryId: 101, headSha: repo.head, artifacts: [], jobs: [] });
    gh.runs.set(9003, {
      id: 9003,
      repositoryId: 101,
      headSha: repo.head,
      artifacts: [{ id: 5, name: 'junit', zip: zipOf({ 'reports/junit.xml': JUNIT_FAILING }), declaredSize: 50 * 1024 * 1024 }],
      jobs: [],
    });
    await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'workflow_run', payload: workflowRun({ runId: 9002 }), deliveryId: 'run-9002' }));
    await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'workflow_run', payload: workflowRun({ runId: 9003 }), deliveryId: 'run-9003' }));
    const missing = await settled('run-9002');
    assert.equal(missing.status, 'IGNORED');
    assert.match(missing.detail ?? '', /no JUnit report found \(artifacts named junit\*, files reports\/\*\*\/\*\.xml\)/);
    const big = await settled('run-9003');
    assert.equal(big.status, 'IGNORED');
    assert.match(big.detail ?? '', /52428800 bytes is over the \d+-byte limit/);
    assert.ok(!gh.requests.some((r) => r.path.endsWith('/artifacts/5/zip')));
  });

  test('the host answering 502 and 429: retried with backoff, by the client then by the queue, and nothing is lost', async () => {
    gh.runs.set(9004, {
      id: 9004,
      repositoryId: 101,
      headSha: repo.head,
      artifacts: [{ id: 6, name: 'junit', zip: zipOf({ 'reports/junit.xml': JUNIT_FAILING.replace('adds two numbers', 'adds big numbers') }) }],
      jobs: [],
    });
    // the client retries once: three 502s fail the first attempt (two requests) and the first request of the next
    gh.faults.push({ path: /\/actions\/runs\/9004\/artifacts$/, status: 502, times: 3 });
    gh.faults.push({ path: /\/pulls\/12$/, status: 429, times: 1, headers: { 'retry-after': '0' } });
    await post(githubDelivery({ secret: WEBHOOK_SECRET, event: 'workflow_run', payload: workflowRun({ runId: 9004 }), deliveryId: 'run-9004' }));
    const firstFailure = await waitFor(
      async () => {
        const row = await delivery('run-9004');
        return row && row.attempts >= 1 && row.detail?.includes('502') ? row : null;
      },
      { what: 'the first attempt to fail' },
    );
    assert.ok(
      firstFailure.status === 'RECEIVED' || firstFailure.status === 'PROCESSING',
      `a failed attempt leaves the delivery to be retried (${firstFailure.status})`,
    );
    const row = await settled('run-9004');
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    assert.ok(row.attempts >= 2);
    const failures = await db.db.failure.findMany({ where: { change: { externalId: '12' } }, select: { testName: true } });
    assert.ok(failures.some((f) => f.testName === 'adds big numbers'));
    const hits = gh.requests.filter((r) => r.path.endsWith('/actions/runs/9004/artifacts')).map((r) => r.status);
    assert.deepEqual(hits, [502, 502, 502, 200]);
    assert.ok(gh.requests.some((r) => r.path.endsWith('/pulls/12') && r.status === 429));
  });

  test('a failed check suite finds its Actions runs and ingests them', async () => {
    gh.runs.set(9005, {
      id: 9005,
      repositoryId: 101,
      headSha: repo.head,
      checkSuiteId: 700,
      pullNumber: 12,
      artifacts: [{ id: 7, name: 'junit', zip: zipOf({ 'reports/suite.xml': JUNIT_FAILING.replace('adds two numbers', 'adds from the suite') }) }],
      jobs: [],
    });
    await post(
      githubDelivery({
        secret: WEBHOOK_SECRET,
        event: 'check_suite',
        payload: {
          action: 'completed',
          check_suite: { id: 700, conclusion: 'failure', head_sha: repo.head },
          repository: { id: 101 },
          installation: { id: 55 },
        },
        deliveryId: 'suite-700',
      }),
    );
    const row = await settled('suite-700');
    assert.equal(row.status, 'PROCESSED', row.detail ?? '');
    assert.ok(await db.db.failure.findFirst({ where: { testName: 'adds from the suite' } }));
  });

  test('pull request: a new push makes the pending fix stale; closing ends pending work', async () => {
    const change = await db.db.change.findUniqueOrThrow({
      where: { repositoryId_externalId: { repositoryId, externalId: '12' } },
      include: { revisions: true },
    });
    const revision = change.revisions[0];
    const run = await db.db.run.create({ data: { changeId: change.id, revisionId: revision.id, policy: 'offline', status: 'FIXED', finishedAt: new Date() } });
    const fix = await db.db.fix.create({ data: { runId: run.id, changeId: change.id, revisionId: revision.id, diff: 'diff', files: ['sum.js'] } });
    await db.db.change.update({ where: { id: change.id }, data: { status: 'FIX_READY' } });

    // the same head again is not a new push
    await post(
      githubDelivery({
        secret: WEBHOOK_SECRET,
        event: 'pull_request',
        payload: { action: 'synchronize', pull_request: { number: 12, head: { sha: repo.head } }, repository: { id: 101 }, installation: { id: 55 } },
        deliveryId: 'sync-same',
      }),
    );
    await settled('sync-same');
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'READY');

    await post(
      githubDelivery({
        secret: WEBHOOK_SECRET,
        event: 'pull_request',
        payload: { action: 'synchronize', pull_request: { number: 12, head: { sha: 'f'.repeat(40) } }, repository: { id: 101 }, installation: { id: 55 } },
        deliveryId: 'sync-new',
      }),
    );
    const row = await settled('sync-new');
    assert.match(row.detail ?? '', /1 pending fix\(es\) made stale/);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'STALE');
    const after = await db.db.change.findUniqueOrThrow({ where: { id: change.id } });
    assert.equal(after.status, 'STALE');
    assert.match(after.statusReason ?? '', /new commits pushed/);

    const queued = await db.db.run.create({ data: { changeId: change.id, revisionId: revision.id, policy: 'offline', status: 'QUEUED' } });
    await post(
      githubDelivery({
        secret: WEBHOOK_SECRET,
        event: 'pull_request',
        payload: {
          action: 'closed',
          pull_request: { number: 12, merged: true, head: { sha: 'f'.repeat(40) } },
          repository: { id: 101 },
          installation: { id: 55 },
        },
        deliveryId: 'closed',
      }),
    );
    assert.match((await settled('closed')).detail ?? '', /merged/);
    assert.ok((await db.db.run.findUniqueOrThrow({ where: { id: queued.id } })).cancelRequestedAt, 'the waiting run is asked to stop');
  });
});
