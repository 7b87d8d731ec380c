import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { checkedEvents, processExited, seedWorld, spawnWorkerProcess, TERMINAL, waitFor, type RunWorld, type WorkerProcess } from './helpers';

// SIGTERM (a deploy, a scale-down): the worker stops taking work, and a run
// that does not finish within the grace period is aborted and handed back —
// QUEUED, lease cleared, the attempt not counted — so another worker picks it
// up at once instead of waiting for a lease to expire. Real processes on
// PostgreSQL.

let db: TestDb;
const workers: WorkerProcess[] = [];
const worlds: RunWorld[] = [];
before(async () => {
  db = await createTestDb({ kind: 'postgres' });
});
after(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
});

const worker = async (graceMs: number) => {
  const w = await spawnWorkerProcess({
    databaseUrl: db.target.location,
    // a long lease: only the hand-back can make the run available again quickly
    args: ['--concurrency', '1', '--lease-ms', '60000', '--heartbeat-ms', '250', '--poll-ms', '100', '--grace-ms', String(graceMs)],
  });
  workers.push(w);
  return w;
};

describe('a worker stopped with SIGTERM mid-run (real processes, PostgreSQL)', () => {
  test('hands the run back after the grace period; another worker finishes it without an attempt lost', async () => {
    const w = await seedWorld({ db: db.db, settings: (repo) => ({ test: `sleep 1 && ${repo.settings.test}` }) });
    worlds.push(w);
    const { runId } = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
    const first = await worker(500);
    await waitFor(async () => (await db.db.runEvent.findFirst({ where: { runId, type: 'phase', payload: { path: ['phase'], equals: 'red' } } })) ?? undefined, {
      what: 'the first worker to reach RED',
      timeoutMs: 90_000,
    });
    first.kill('SIGTERM');
    await processExited(first);
    assert.equal(first.exitCode, 0, first.log);
    const handedBack = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
    assert.deepEqual([handedBack.status, handedBack.leaseOwner, handedBack.attempt], ['QUEUED', null, 0]);

    const second = await worker(0);
    const run = await waitFor(
      async () => {
        const r = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
        return TERMINAL.includes(r.status) ? r : undefined;
      },
      { what: 'the run to end', timeoutMs: 180_000, everyMs: 250 },
    );
    second.kill('SIGTERM');
    await processExited(second);
    assert.equal(run.status, 'FIXED', `${run.exitReason}: ${run.exitDetail}`);
    assert.equal(run.attempt, 1);
    const events = await checkedEvents(db.db, runId);
    assert.ok(events.some((e) => e.type === 'status' && (e.payload as { status: string; reason?: string }).reason === 'worker_shutdown'));
    assert.equal(await db.db.fix.count({ where: { runId } }), 1);
  });
});
