import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { stopRunQueue } from '@/lib/queue';
import * as startRoute from '../../../app/api/changes/[id]/runs/route';
import * as cancelRoute from '../../../app/api/runs/[id]/cancel/route';
import { seedWorld, type RunWorld } from './helpers';

// "Run agent" and "Cancel" through the real route handlers: roles, the
// policies a repository's model settings allow, join semantics, status codes.
// No worker runs here: the runs stay QUEUED.

let db: TestDb;
let reviewer: string;
let grader: string;
const worlds: RunWorld[] = [];

before(async () => {
  db = await createTestDb();
  reviewer = await sessionCookie(await db.db.user.create({ data: { email: 'rev@runs.test', name: 'Rev', roles: ['REVIEWER'] } }));
  grader = await sessionCookie(await db.db.user.create({ data: { email: 'grader@runs.test', name: 'Grader', roles: ['GRADER'] } }));
});
after(async () => {
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
});

async function world(modelSettings: Record<string, unknown> = {}) {
  const w = await seedWorld({ db: db.db, modelSettings });
  worlds.push(w);
  return w;
}

const start = (changeId: string, cookie: string | undefined, body?: unknown, rawBody?: string) =>
  callRoute({ handler: startRoute.POST, url: `/api/changes/${changeId}/runs`, method: 'POST', cookie, body, rawBody, params: { id: changeId } });
const cancel = (runId: string, cookie: string | undefined) =>
  callRoute({ handler: cancelRoute.POST, url: `/api/runs/${runId}/cancel`, method: 'POST', cookie, params: { id: runId } });

describe('run routes', () => {
  test('POST /api/changes/:id/runs: 202 queues a run, a second press joins it (200), roles enforced', async () => {
    const w = await world();
    assert.equal((await start(w.changeId, undefined)).status, 401);
    assert.equal((await start(w.changeId, grader)).status, 403);

    const first = await start(w.changeId, reviewer, undefined, '');
    assert.equal(first.status, 202, JSON.stringify(first.json));
    const body = first.json as { runId: string; joined: boolean; policy: string };
    assert.equal(body.joined, false);
    assert.equal(body.policy, 'offline');
    const run = await db.db.run.findUniqueOrThrow({ where: { id: body.runId } });
    assert.deepEqual([run.trigger, run.status, run.policy], ['MANUAL', 'QUEUED', 'offline']);
    assert.ok(run.requestedById);

    const again = await start(w.changeId, reviewer, {});
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, { runId: body.runId, joined: true, policy: 'offline' });

    assert.equal((await start('no-such-change', reviewer, {})).status, 404);
    assert.equal((await start(w.changeId, reviewer, undefined, '{nope')).status, 400);
    assert.equal((await start(w.changeId, reviewer, { policy: 'magic' })).status, 422);
    assert.equal((await start(w.changeId, reviewer, { policy: 'offline', extra: 1 })).status, 422);
  });

  test('the policy is limited to what the repository allows: no model → offline only; tiered allows offline and tiered', async () => {
    const offlineOnly = await world({ policy: 'llm' });
    // no model configured anywhere (no baseUrl/model in settings, none in the test env)
    const refused = await start(offlineOnly.changeId, reviewer, { policy: 'llm' });
    assert.equal(refused.status, 403, JSON.stringify(refused.json));
    assert.match((refused.json as { error: { message: string } }).error.message, /allowed: offline/);

    const tiered = await world({ policy: 'tiered', model: 'scripted', baseUrl: 'http://127.0.0.1:9/v1' });
    assert.equal((await start(tiered.changeId, reviewer, { policy: 'llm' })).status, 403);
    const ok = await start(tiered.changeId, reviewer, { policy: 'tiered' });
    assert.equal(ok.status, 202, JSON.stringify(ok.json));
    const run = await db.db.run.findUniqueOrThrow({ where: { id: (ok.json as { runId: string }).runId } });
    assert.deepEqual([run.policy, run.model], ['tiered', 'scripted']);
  });

  test('POST /api/runs/:id/cancel: cancels a queued run at once, is idempotent, roles enforced', async () => {
    const w = await world();
    const { runId } = (await start(w.changeId, reviewer, {})).json as { runId: string };
    assert.equal((await cancel(runId, undefined)).status, 401);
    assert.equal((await cancel(runId, grader)).status, 403);
    const res = await cancel(runId, reviewer);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { runId, status: 'CANCELLED', alreadyFinished: false });
    assert.deepEqual((await cancel(runId, reviewer)).json, { runId, status: 'CANCELLED', alreadyFinished: true });
    assert.equal((await cancel('no-such-run', reviewer)).status, 404);
    const audit = await db.db.auditLog.findFirst({ where: { action: 'run.cancel', targetId: runId } });
    assert.ok(audit);
  });
});
