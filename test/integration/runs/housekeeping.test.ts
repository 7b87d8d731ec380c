import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { requestRun } from '@/lib/runs/service';
import { getRunQueue, stopRunQueue } from '@/lib/queue';
import { HOUSEKEEPING_JOBS, runHousekeeping, type HousekeepingJob } from '@/agent/worker/housekeeping';
import { seedWorld, type RunWorld } from './helpers';

// The worker's housekeeping as a registry of named jobs, on a real database
// and the real queue: a run whose job was lost is re-sent, and a job that
// fails is logged by name without keeping the others from running.

let db: TestDb;
const worlds: RunWorld[] = [];

before(async () => {
  db = await createTestDb();
});
after(async () => {
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
});

describe(`worker housekeeping (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  test('every job has its own name', () => {
    const names = HOUSEKEEPING_JOBS.map((j) => j.name);
    assert.deepEqual(names, [...new Set(names)]);
    assert.ok(names.includes('reaped') && names.includes('resent'), names.join(', '));
  });

  test('a queued run whose job was lost is re-sent, and logged under the job that did it', async () => {
    const world = await seedWorld({ db: db.db });
    worlds.push(world);
    const { runId } = await requestRun({ changeId: world.changeId, trigger: 'MANUAL', policy: 'offline' });
    const queue = await getRunQueue();
    // the job is taken and dropped: the run stays QUEUED with nothing in the queue
    const taken = await queue.fetch(10);
    assert.deepEqual(
      taken.map((j) => j.runId),
      [runId],
    );
    await queue.complete(taken.map((j) => j.jobId));
    assert.deepEqual(await queue.fetch(10), []);

    const logged: Array<Record<string, unknown>> = [];
    await runHousekeeping({ queue, resendAfterMs: 0 }, (e) => logged.push(e));
    assert.deepEqual(
      logged.find((e) => e.event === 'resent'),
      { event: 'resent', runs: [runId] },
    );
    assert.ok(!logged.some((e) => e.event === 'housekeeping_error'), JSON.stringify(logged));
    const again = await queue.fetch(10);
    assert.deepEqual(
      again.map((j) => j.runId),
      [runId],
    );
    await queue.complete(again.map((j) => j.jobId));
  });

  test('a job that fails is logged with its name, and the jobs after it still run', async () => {
    const ran: string[] = [];
    const jobs: HousekeepingJob[] = [
      { name: 'first', run: async () => (ran.push('first'), null) },
      {
        name: 'broken',
        run: async () => {
          throw new Error('database went away');
        },
      },
      { name: 'last', run: async () => (ran.push('last'), { did: 1 }) },
    ];
    const logged: Array<Record<string, unknown>> = [];
    await runHousekeeping({ queue: await getRunQueue(), resendAfterMs: 60_000 }, (e) => logged.push(e), jobs);
    assert.deepEqual(ran, ['first', 'last']);
    assert.deepEqual(logged, [
      { event: 'housekeeping_error', job: 'broken', error: 'database went away' },
      { event: 'last', did: 1 },
    ]);
  });
});
