import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { appendRunEvents, LeaseLostError } from '@/lib/runs/events';
import { claimRun, heartbeat, reapRuns, releaseRun } from '@/lib/runs/lease';
import { cancelRun, finishRun, requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { checkedEvents, seedWorld, type RunWorld } from './helpers';
import { logEvent } from '@/common/run-events';

// Claims, leases and the trajectory's integrity, against the real database
// (FLOWFIX_TEST_DB=pglite|postgres), with no worker loop: the test plays the
// workers.

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

async function world() {
  const w = await seedWorld({ db: db.db });
  worlds.push(w);
  return w;
}

const ev = (text: string) => logEvent(text, {}, 'setup');

/** Makes the run's lease expire now (instead of waiting for it). */
async function expireLease(runId: string) {
  await db.db.$executeRaw`UPDATE "Run" SET "leaseExpiresAt" = now() - interval '1 second' WHERE id = ${runId}`;
}

describe(`leases (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  test('ten simultaneous triggers on one revision: one run, every caller gets its id', async () => {
    const w = await world();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => requestRun({ changeId: w.changeId, trigger: i % 2 ? 'AUTO' : 'MANUAL', policy: 'offline' })),
    );
    const ids = new Set(answers.map((a) => a.runId));
    assert.equal(ids.size, 1);
    assert.equal(answers.filter((a) => !a.joined).length, 1, 'exactly one caller created the run');
    assert.equal(await db.db.run.count({ where: { changeId: w.changeId } }), 1);
    // a revalidation of a fix on the same revision is a run of its own
    const reval = await requestRun({ changeId: w.changeId, trigger: 'REVALIDATE', policy: 'offline', sourceFixId: 'fix-1', inputDiff: 'x' });
    assert.notEqual(reval.runId, answers[0].runId);
    assert.equal(reval.joined, false);
  });

  test('a claim is exclusive; a zombie worker cannot append, beat or finish after its lease was taken over', async () => {
    const w = await world();
    const { runId } = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
    const a = await claimRun({ runId, workerId: 'worker-a', leaseMs: 60_000 });
    assert.equal(a.claimed, true);
    const refused = await claimRun({ runId, workerId: 'worker-b', leaseMs: 60_000 });
    assert.deepEqual(refused, { claimed: false, runId, reason: 'held' });
    await appendRunEvents({ runId, workerId: 'worker-a', events: [ev('a1'), ev('a2')] });

    // worker-a stalls; its lease runs out and worker-b takes the run over
    await expireLease(runId);
    const b = await claimRun({ runId, workerId: 'worker-b', leaseMs: 60_000 });
    assert.equal(b.claimed, true);
    assert.equal(b.claimed && b.attempt, 2);

    await assert.rejects(appendRunEvents({ runId, workerId: 'worker-a', events: [ev('zombie')] }), LeaseLostError);
    assert.deepEqual(await heartbeat({ runId, workerId: 'worker-a' }), { owned: false, cancelRequested: false });
    await assert.rejects(
      finishRun({ runId, workerId: 'worker-a', result: { status: 'fixed', exitReason: 'fixed', diff: 'diff --git a/x b/x\n', files: ['x'] } }),
      LeaseLostError,
    );
    await appendRunEvents({ runId, workerId: 'worker-b', events: [ev('b1')] });
    const done = await finishRun({ runId, workerId: 'worker-b', result: { status: 'no_fix', exitReason: 'no_candidate' } });
    assert.equal(done.status, 'NO_FIX');
    assert.equal(done.fixId, null);
    // once finished, even the last owner cannot write
    await assert.rejects(appendRunEvents({ runId, workerId: 'worker-b', events: [ev('late')] }), LeaseLostError);

    const events = await checkedEvents(db.db, runId);
    const texts = events.filter((e) => e.type === 'log').map((e) => (e.payload as { text: string }).text);
    assert.deepEqual(texts, ['a1', 'a2', 'b1']);
    assert.equal(await db.db.fix.count({ where: { runId } }), 0);
  });

  test('concurrent appends by the owner, a cancel and the finish get distinct, contiguous seqs', async () => {
    const w = await world();
    const { runId } = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
    await claimRun({ runId, workerId: 'w', leaseMs: 60_000 });
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => appendRunEvents({ runId, workerId: 'w', events: [ev(`e${i}`), ev(`f${i}`)] })),
      cancelRun({ runId }),
    ]);
    assert.deepEqual(await heartbeat({ runId, workerId: 'w' }), { owned: true, cancelRequested: true });
    const diff = 'diff --git a/src/cart.ts b/src/cart.ts\n--- a/src/cart.ts\n+++ b/src/cart.ts\n@@ -1 +1 @@\n-a\n+b\n';
    const out = await finishRun({
      runId,
      workerId: 'w',
      result: { status: 'fixed', exitReason: 'fixed', diff, files: ['src/cart.ts'], summaryHtml: '<p>ok</p><script>alert(1)</script>' },
    });
    assert.equal(out.fixStatus, 'READY');
    const fix = await db.db.fix.findUniqueOrThrow({ where: { runId } });
    assert.doesNotMatch(fix.summaryHtml, /script/);
    const events = await checkedEvents(db.db, runId);
    assert.equal(events.filter((e) => e.type === 'log').length, 40);
    // a second finish cannot create a second fix
    await assert.rejects(finishRun({ runId, workerId: 'w', result: { status: 'fixed', exitReason: 'fixed', diff, files: [] } }), LeaseLostError);
    assert.equal(await db.db.fix.count({ where: { runId } }), 1);
  });

  test('the reaper re-queues a run whose worker went silent, then fails it with worker_lost when attempts run out', async () => {
    const w = await world();
    const { runId } = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
    await db.db.run.update({ where: { id: runId }, data: { maxAttempts: 2 } });
    for (let attempt = 1; attempt <= 2; attempt++) {
      const c = await claimRun({ runId, workerId: `dead-${attempt}`, leaseMs: 60_000 });
      assert.equal(c.claimed && c.attempt, attempt);
      await expireLease(runId);
      const reaped = await reapRuns();
      if (attempt < 2) {
        assert.deepEqual(reaped.requeued, [runId]);
        const run = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
        assert.deepEqual([run.status, run.leaseOwner], ['QUEUED', null]);
        assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: w.changeId } })).status, 'QUEUED');
      } else {
        assert.deepEqual(reaped.failed, [runId]);
      }
    }
    const run = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
    assert.deepEqual([run.status, run.exitReason, run.activeKey], ['FAILED', 'worker_lost', null]);
    assert.match(run.exitDetail ?? '', /stopped responding 2 time/);
    const change = await db.db.change.findUniqueOrThrow({ where: { id: w.changeId } });
    assert.deepEqual([change.status, change.statusReason], ['NO_FIX', 'worker_lost']);
    const events = await checkedEvents(db.db, runId);
    assert.ok(events.some((e) => e.type === 'status' && (e.payload as { status: string }).status === 'requeued'));
  });

  test('a run handed back on shutdown is QUEUED again, its attempt not counted, and any worker can claim it', async () => {
    const w = await world();
    const { runId } = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
    await claimRun({ runId, workerId: 'leaving', leaseMs: 60_000 });
    assert.equal(await releaseRun({ runId, workerId: 'someone-else', reason: 'worker_shutdown' }), false);
    assert.equal(await releaseRun({ runId, workerId: 'leaving', reason: 'worker_shutdown' }), true);
    const run = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
    assert.deepEqual([run.status, run.leaseOwner, run.attempt], ['QUEUED', null, 0]);
    const next = await claimRun({ runId, workerId: 'next', leaseMs: 60_000 });
    assert.equal(next.claimed && next.attempt, 1);
  });

  test('cancelling a queued run ends it at once; a run cancelled while nobody held it is not claimed', async () => {
    const w = await world();
    const first = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
    const c = await cancelRun({ runId: first.runId });
    assert.deepEqual(c, { runId: first.runId, status: 'CANCELLED', alreadyFinished: false });
    assert.deepEqual(await claimRun({ runId: first.runId, workerId: 'w' }), { claimed: false, runId: first.runId, reason: 'finished' });
    assert.equal((await cancelRun({ runId: first.runId })).alreadyFinished, true);
    await checkedEvents(db.db, first.runId);

    // RUNNING, asked to cancel, then its worker died: the next claim ends it instead of running it
    const second = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
    assert.notEqual(second.runId, first.runId);
    await claimRun({ runId: second.runId, workerId: 'w1', leaseMs: 60_000 });
    await cancelRun({ runId: second.runId });
    await expireLease(second.runId);
    assert.deepEqual(await claimRun({ runId: second.runId, workerId: 'w2' }), { claimed: false, runId: second.runId, reason: 'cancelled' });
    const run = await db.db.run.findUniqueOrThrow({ where: { id: second.runId } });
    assert.equal(run.status, 'CANCELLED');
    await checkedEvents(db.db, second.runId);
  });
});

describe(`one fix waits per change (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  const diff = 'diff --git a/src/cart.ts b/src/cart.ts\n--- a/src/cart.ts\n+++ b/src/cart.ts\n@@ -1 +1 @@\n-a\n+b\n';
  async function runToEnd(changeId: string, result: Parameters<typeof finishRun>[0]['result']) {
    const { runId } = await requestRun({ changeId, trigger: 'MANUAL', policy: 'offline' });
    await claimRun({ runId, workerId: 'w', leaseMs: 60_000 });
    return { runId, out: await finishRun({ runId, workerId: 'w', result }) };
  }

  test('a second run on the revision replaces the ready fix; the queue lists the change once', async () => {
    const w = await world();
    const first = await runToEnd(w.changeId, { status: 'fixed', exitReason: 'fixed', diff, files: ['src/cart.ts'] });
    const second = await runToEnd(w.changeId, { status: 'fixed', exitReason: 'fixed', diff, files: ['src/cart.ts'] });
    assert.equal(second.out.fixStatus, 'READY');
    const older = await db.db.fix.findUniqueOrThrow({ where: { runId: first.runId } });
    assert.equal(older.status, 'STALE');
    assert.equal(older.dropReason, 'superseded');
    const { listReviewQueue } = await import('@/lib/fixes/queries');
    const queue = await listReviewQueue({ limit: 200 });
    assert.equal(queue.items.filter((i) => i.changeId === w.changeId).length, 1);
    assert.equal(queue.items.find((i) => i.changeId === w.changeId)?.fixId, second.out.fixId);
    const { rejectFix } = await import('@/lib/fixes/decisions');
    const reviewer = await db.db.user.create({ data: { email: `rev-${w.changeId}@x.test`, name: 'Rev', roles: ['REVIEWER'] } });
    await assert.rejects(rejectFix({ fixId: older.id, userId: reviewer.id, reason: 'WRONG_FIX' }), /replaced by a newer run/);
  });

  test('a later run that finds nothing leaves the ready fix, and the change still says a fix is ready', async () => {
    const w = await world();
    const first = await runToEnd(w.changeId, { status: 'fixed', exitReason: 'fixed', diff, files: ['src/cart.ts'] });
    await runToEnd(w.changeId, { status: 'no_fix', exitReason: 'no_candidate' });
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { runId: first.runId } })).status, 'READY');
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: w.changeId } })).status, 'FIX_READY');
  });

  test('a demo history fix is not in the queue by default and cannot be decided on', async () => {
    const w = await world();
    await db.db.change.update({ where: { id: w.changeId }, data: { origin: 'DEMO_HISTORY' } });
    const { out } = await runToEnd(w.changeId, { status: 'fixed', exitReason: 'fixed', diff, files: ['src/cart.ts'] });
    const { listReviewQueue } = await import('@/lib/fixes/queries');
    assert.equal(
      (await listReviewQueue({ limit: 200 })).items.some((i) => i.fixId === out.fixId),
      false,
    );
    assert.equal(
      (await listReviewQueue({ limit: 200, history: 'include' })).items.some((i) => i.fixId === out.fixId),
      true,
    );
    const { rejectFix } = await import('@/lib/fixes/decisions');
    const { acceptFix } = await import('@/lib/fixes/apply');
    const reviewer = await db.db.user.create({ data: { email: `hist-${w.changeId}@x.test`, name: 'Hist', roles: ['REVIEWER'] } });
    await assert.rejects(rejectFix({ fixId: out.fixId!, userId: reviewer.id, reason: 'WRONG_FIX' }), /demo history/);
    await assert.rejects(acceptFix({ fixId: out.fixId!, userId: reviewer.id, surface: 'DASHBOARD' }), /demo history/);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: out.fixId! } })).status, 'READY');
  });
});
