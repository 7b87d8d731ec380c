import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { processExited, seedWorld, spawnWorkerProcess, waitFor, type RunWorld, type WorkerProcess } from './helpers';

// A worker process (`npm run worker`) on a machine where the sandbox does not
// work — here its bubblewrap binary does not exist — and the stored mode is
// not the admin's unsafe one: it takes no run from the shared queue (another
// worker that can sandbox will) and says why in one line, then exits. With
// the unsafe mode on it starts as before. Always on PostgreSQL, the only
// database separate workers share.

let db: TestDb;
let url: string;
let world: RunWorld;
const workers: WorkerProcess[] = [];
const NO_BWRAP = { FLOWFIX_SANDBOX_BWRAP: '/nonexistent/bwrap' };

before(async () => {
  db = await createTestDb({ kind: 'postgres' });
  url = db.target.location;
  world = await seedWorld({ db: db.db });
});
after(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await stopRunQueue();
  await db?.drop();
  world?.repo.cleanup();
});

const spawnWorker = (env: Record<string, string>) =>
  spawnWorkerProcess({ databaseUrl: url, args: ['--concurrency', '1', '--poll-ms', '100'], env }).then((w) => {
    workers.push(w);
    return w;
  });

describe('a worker that cannot sandbox', () => {
  test('refuses runs with one line, exits non-zero, and leaves the queued run to another worker', async () => {
    const { runId } = await requestRun({ changeId: world.changeId, trigger: 'MANUAL', policy: 'offline' });
    const queued = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
    const eventsBefore = await db.db.runEvent.count({ where: { runId } });
    const w = await spawnWorker(NO_BWRAP);
    await waitFor(async () => w.exitCode !== null, { what: `the worker to exit\n${w.log}`, timeoutMs: 60_000 });
    assert.equal(w.exitCode, 1, w.log);
    const lines = w.log.trim().split('\n');
    assert.equal(lines.length, 1, w.log);
    assert.match(
      lines[0]!,
      /^flowfix worker: refusing runs: no working sandbox on this machine \(bubblewrap \(bwrap\) could not start: spawnSync \/nonexistent\/bwrap ENOENT\) and the unsafe mode is off: /,
    );
    const run = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
    assert.equal(run.status, 'QUEUED');
    assert.equal(run.attempt, queued.attempt);
    assert.equal(run.leaseOwner, null);
    assert.equal(await db.db.runEvent.count({ where: { runId } }), eventsBefore);
  });

  test('starts when an admin chose the unsafe mode', async () => {
    await db.db.systemSetting.upsert({ where: { key: 'sandboxMode' }, create: { key: 'sandboxMode', value: 'unsafe' }, update: { value: 'unsafe' } });
    // a worker that would take the queued run: it is cancelled first so the unsafe worker runs nothing
    await db.db.run.updateMany({ where: { changeId: world.changeId }, data: { status: 'CANCELLED', activeKey: null } });
    const w = await spawnWorker(NO_BWRAP);
    await waitFor(async () => w.log.includes('"event":"worker_started"') || w.exitCode !== null, { what: `the worker to start\n${w.log}` });
    assert.equal(w.exitCode, null, w.log);
    assert.doesNotMatch(w.log, /refusing runs/);
    w.kill('SIGTERM');
    await processExited(w);
  });
});
