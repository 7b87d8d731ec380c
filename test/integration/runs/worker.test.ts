import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { startWorker, type RunWorker } from '@/agent/worker/worker';
import { checkedEvents, seedWorld, TERMINAL, waitFor, type RunWorld } from './helpers';

// A run requested through the service, queued through pg-boss, claimed and
// executed by the worker loop in this process (embedded mode's shape, or a
// worker against PostgreSQL), on a real repository with the offline policy.

let db: TestDb;
let worker: RunWorker;
const worlds: RunWorld[] = [];

before(async () => {
  db = await createTestDb();
  worker = await startWorker({ concurrency: 2, leaseMs: 5000, heartbeatMs: 250, pollMs: 100 });
});
after(async () => {
  await worker?.stop({ graceMs: 0 });
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
});

describe(`runs end to end (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  test('a requested run is claimed, repaired offline and finished: one READY fix, the change FIX_READY, a gap-free trajectory', async () => {
    const world = await seedWorld({ db: db.db });
    worlds.push(world);
    const { runId, joined } = await requestRun({ changeId: world.changeId, trigger: 'MANUAL', policy: 'offline' });
    assert.equal(joined, false);
    // the in-process worker is woken by the enqueue and may already hold it
    assert.ok(['QUEUED', 'RUNNING'].includes((await db.db.change.findUniqueOrThrow({ where: { id: world.changeId } })).status));

    const run = await waitFor(
      async () => {
        const r = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
        return TERMINAL.includes(r.status) ? r : undefined;
      },
      { what: 'the run to finish', timeoutMs: 120_000 },
    );
    assert.equal(run.status, 'FIXED', `${run.exitReason}: ${run.exitDetail}`);
    assert.equal(run.exitReason, 'fixed');
    assert.equal(run.attempt, 1);
    assert.equal(run.activeKey, null);
    assert.equal(run.leaseOwner, null);
    assert.ok(run.finishedAt && run.startedAt);
    assert.ok(Object.keys(run.phaseTimings as object).includes('verify'), JSON.stringify(run.phaseTimings));

    const fixes = await db.db.fix.findMany({ where: { runId } });
    assert.equal(fixes.length, 1);
    assert.equal(fixes[0].status, 'READY');
    assert.match(fixes[0].diff, /item\.price \* item\.qty/);
    assert.deepEqual(fixes[0].files, ['src/cart.ts']);
    const change = await db.db.change.findUniqueOrThrow({ where: { id: world.changeId } });
    assert.equal(change.status, 'FIX_READY');

    const events = await checkedEvents(db.db, runId);
    assert.deepEqual(
      events.slice(0, 2).map((e) => [e.type, (e.payload as { status?: string }).status]),
      [
        ['status', 'queued'],
        ['status', 'running'],
      ],
    );
    const types = new Set(events.map((e) => e.type));
    for (const t of ['phase', 'gate', 'suspects', 'final']) assert.ok(types.has(t), `a ${t} event was stored`);
    // the agent's phase is kept in the stored payload
    const suspects = events.find((e) => e.type === 'suspects')!;
    assert.equal((suspects.payload as { phase?: string }).phase, 'localise');
    const final = events.at(-1)!.payload as Record<string, unknown>;
    assert.equal(final.runStatus, 'FIXED');
    assert.equal(final.fixId, fixes[0].id);
    assert.equal(final.fixStatus, 'READY');
  });

  test('a second request for the same revision after the run finished starts a new run', async () => {
    const world = worlds[0];
    const { runId, joined } = await requestRun({ changeId: world.changeId, trigger: 'MANUAL', policy: 'offline' });
    assert.equal(joined, false);
    const runs = await db.db.run.findMany({ where: { changeId: world.changeId } });
    assert.equal(runs.length, 2);
    await waitFor(async () => TERMINAL.includes((await db.db.run.findUniqueOrThrow({ where: { id: runId } })).status), {
      what: 'the second run to finish',
      timeoutMs: 120_000,
    });
    await checkedEvents(db.db, runId);
  });
});
