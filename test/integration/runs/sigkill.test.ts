import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { checkedEvents, processExited, seedWorld, spawnWorkerProcess, TERMINAL, waitFor, type RunWorld, type WorkerProcess } from './helpers';

// Real worker processes (`agent/worker/main.ts`, as `npm run worker` starts
// them) against a real PostgreSQL database. One is killed with SIGKILL in the
// middle of a run: no goodbye, no hand-back. Its lease runs out, a second
// worker's reaper re-queues the run and finishes it — or fails it with
// 'worker_lost' when no attempts are left. Either way the trajectory has no
// duplicate or missing seq and the run has at most one fix. Always on
// PostgreSQL: PGlite cannot be shared by several processes.

const LEASE_MS = 2000;

let db: TestDb;
let url: string;
const workers: WorkerProcess[] = [];
const worlds: RunWorld[] = [];

before(async () => {
  db = await createTestDb({ kind: 'postgres' });
  url = db.target.location;
});
after(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
});

const spawnWorker = () =>
  spawnWorkerProcess({
    databaseUrl: url,
    args: ['--concurrency', '1', '--lease-ms', String(LEASE_MS), '--heartbeat-ms', '250', '--poll-ms', '100', '--grace-ms', '0'],
  }).then((w) => {
    workers.push(w);
    return w;
  });
const logOf = (c: WorkerProcess) => c.log;
const exited = processExited;

/** A slow test command (each run of the tests takes over a second) so the kill lands mid-run. */
const slowTests = (repo: RunWorld['repo']) => ({ test: `sleep 1 && ${repo.settings.test}` });

async function killMidRun({ maxAttempts }: { maxAttempts?: number }) {
  const w = await seedWorld({ db: db.db, settings: slowTests });
  worlds.push(w);
  const { runId } = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
  if (maxAttempts) await db.db.run.update({ where: { id: runId }, data: { maxAttempts } });

  const first = await spawnWorker();
  // mid-run: RED has started (the workspace exists, a test command is running)
  await waitFor(async () => (await db.db.runEvent.findFirst({ where: { runId, type: 'phase', payload: { path: ['phase'], equals: 'red' } } })) ?? undefined, {
    what: `the first worker to reach RED\n${logOf(first)}`,
    timeoutMs: 90_000,
  });
  const before = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(before.status, 'RUNNING');
  first.kill('SIGKILL');
  await exited(first);
  assert.equal(first.signalCode, 'SIGKILL');

  const second = await spawnWorker();
  const run = await waitFor(
    async () => {
      const r = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
      return TERMINAL.includes(r.status) ? r : undefined;
    },
    { what: 'the run to end', timeoutMs: 180_000, everyMs: 250 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- second worker ---\n${logOf(second)}`);
  });
  second.kill('SIGTERM');
  await exited(second);
  return { runId, run, before, second };
}

describe('a worker killed with SIGKILL mid-run (real processes, PostgreSQL)', () => {
  test('another worker takes the run over after the lease expires and finishes it: one fix, no duplicate events', async () => {
    const { runId, run, before, second } = await killMidRun({});
    assert.equal(run.status, 'FIXED', `${run.exitReason}: ${run.exitDetail}\n${logOf(second)}`);
    assert.equal(run.attempt, 2);
    assert.notEqual(before.leaseOwner, null);
    const events = await checkedEvents(db.db, runId);
    const statuses = events.filter((e) => e.type === 'status').map((e) => e.payload as { status: string; reason?: string });
    assert.deepEqual(
      statuses.map((s) => [s.status, s.reason]),
      [
        ['queued', undefined],
        ['running', undefined],
        ['requeued', 'worker_lost'],
        ['running', undefined],
      ],
    );
    // the first attempt's events stay, the second attempt starts over from setup
    assert.equal(
      events.filter(
        (e) =>
          e.type === 'phase' && (e.payload as { phase: string; status: string }).phase === 'setup' && (e.payload as { status: string }).status === 'started',
      ).length,
      2,
    );
    assert.equal(await db.db.fix.count({ where: { runId } }), 1);
    assert.equal(second.exitCode, 0, 'the second worker stopped cleanly on SIGTERM');
  });

  test('with no attempts left, the run fails with worker_lost instead', async () => {
    const { runId, run } = await killMidRun({ maxAttempts: 1 });
    assert.deepEqual([run.status, run.exitReason], ['FAILED', 'worker_lost']);
    await checkedEvents(db.db, runId);
    assert.equal(await db.db.fix.count({ where: { runId } }), 0);
    const change = await db.db.change.findUniqueOrThrow({ where: { id: run.changeId } });
    assert.deepEqual([change.status, change.statusReason], ['NO_FIX', 'worker_lost']);
  });
});
