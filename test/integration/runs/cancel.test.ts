import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { NextRequest } from 'next/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { generateToken } from '@/lib/tokens/auth';
import { cancelRun, requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { startWorker, type RunWorker } from '@/agent/worker/worker';
import { POST as postFailures } from '@/app/api/v1/failures/route';
import { checkedEvents, seedWorld, TARGET, TERMINAL, waitFor, type RunWorld } from './helpers';

// Cancellation reaches a command in flight: the worker sees the cancel on its
// heartbeat, aborts, and the command's whole process group is killed. And a
// newer revision of a change, ingested through the real route, cancels the
// stale run and queues a run for itself.

let db: TestDb;
let worker: RunWorker;
const worlds: RunWorld[] = [];

before(async () => {
  db = await createTestDb();
  worker = await startWorker({ concurrency: 2, leaseMs: 10_000, heartbeatMs: 200, pollMs: 100 });
});
after(async () => {
  await worker?.stop({ graceMs: 0 });
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
});

/**
 * A test command that hangs. It runs in the sandbox's PID namespace, so its
 * own idea of its process group means nothing here: it is found from outside
 * by its unique argv (`sleep <marker>`).
 */
function hangingTest(marker: string) {
  return () => ({ test: `exec sleep ${marker}` });
}

/** The process group (as this process sees it) of the running `sleep <marker>`, if any. */
function groupOf(marker: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') !== `sleep\0${marker}\0`) continue;
      return Number(
        readFileSync(`/proc/${entry}/stat`, 'utf8')
          .replace(/^.*\) /, '')
          .split(' ')[2],
      );
    } catch {
      // exited while we looked
    }
  }
  return undefined;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function runStatus(runId: string) {
  return db.db.run.findUniqueOrThrow({ where: { id: runId } });
}

describe(`cancellation (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  test('cancel during a tool call: the run is CANCELLED within seconds and the command’s process group is gone', async () => {
    const w = await seedWorld({ db: db.db, settings: hangingTest('600.1') });
    worlds.push(w);
    const { runId } = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
    const pgid = await waitFor(async () => groupOf('600.1'), { what: 'the test command to start' });
    assert.ok(groupAlive(pgid), 'the hanging command is running');
    assert.equal((await runStatus(runId)).status, 'RUNNING');

    const asked = Date.now();
    await cancelRun({ runId });
    const run = await waitFor(
      async () => {
        const r = await runStatus(runId);
        return TERMINAL.includes(r.status) ? r : undefined;
      },
      { what: 'the run to end', timeoutMs: 15_000 },
    );
    const tookMs = Date.now() - asked;
    assert.equal(run.status, 'CANCELLED', `${run.exitReason}: ${run.exitDetail}`);
    assert.equal(run.exitReason, 'cancelled');
    assert.ok(tookMs < 10_000, `cancelled in ${tookMs} ms`);
    await waitFor(async () => !groupAlive(pgid), { what: `process group ${pgid} to be gone`, timeoutMs: 5_000 });
    assert.equal(await db.db.fix.count({ where: { runId } }), 0);
    const change = await db.db.change.findUniqueOrThrow({ where: { id: w.changeId } });
    assert.deepEqual([change.status, change.statusReason], ['NO_FIX', 'cancelled']);
    await checkedEvents(db.db, runId);
  });

  test('ingestion: a new revision triggers an AUTO run; a newer one cancels it and queues its own; a bot’s change is skipped', async () => {
    const w = await seedWorld({ db: db.db, name: 'ingest-shop', settings: hangingTest('600.2') });
    worlds.push(w);
    const { token, prefix, tokenHash } = generateToken();
    await db.db.ciToken.create({ data: { name: 'ci', prefix, tokenHash, allRepositories: true } });
    const report = async (headRev: string, change: Record<string, unknown> = {}) => {
      const req = new NextRequest('http://localhost:3000/api/v1/failures', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          repository: 'ingest-shop',
          baseRev: w.repo.base,
          headRev,
          change: { externalId: 'PR-100', title: 'rework total', author: 'dev', branch: 'feature/total', ...change },
          tests: [{ id: TARGET, name: 'total multiplies price by quantity', classname: 'test', message: '11 !== 17' }],
        }),
      });
      const res = await postFailures(req, { params: Promise.resolve({}) });
      assert.equal(res.status, 201, await res.clone().text());
      return (await res.json()) as { changeId: string; revisionId: string };
    };

    const first = await report(w.repo.head);
    const run1 = await db.db.run.findFirstOrThrow({ where: { revisionId: first.revisionId } });
    assert.deepEqual([run1.trigger, run1.policy], ['AUTO', 'offline']);
    const pgid = await waitFor(async () => groupOf('600.2'), { what: 'the first run to reach its test command' });

    // the developer pushes again
    w.repo.write('README.md', '# shop\n\nsecond try\n');
    const head2 = w.repo.commit('second revision');
    const second = await report(head2);
    assert.equal(second.changeId, first.changeId);
    const ended = await waitFor(
      async () => {
        const r = await runStatus(run1.id);
        return TERMINAL.includes(r.status) ? r : undefined;
      },
      { what: 'the stale run to end', timeoutMs: 15_000 },
    );
    assert.equal(ended.status, 'CANCELLED');
    await waitFor(async () => !groupAlive(pgid), { what: 'the stale run’s command to be killed', timeoutMs: 5_000 });
    const run2 = await db.db.run.findFirstOrThrow({ where: { revisionId: second.revisionId } });
    assert.equal(run2.trigger, 'AUTO');
    assert.ok(['QUEUED', 'RUNNING'].includes(run2.status));
    const change = await db.db.change.findUniqueOrThrow({ where: { id: first.changeId } });
    assert.ok(['QUEUED', 'RUNNING'].includes(change.status), change.status);
    await checkedEvents(db.db, run1.id);
    await cancelRun({ runId: run2.id });
    await waitFor(async () => TERMINAL.includes((await runStatus(run2.id)).status), { what: 'the second run to end', timeoutMs: 15_000 });

    // a bot's change never reaches the queue
    const bot = await report(w.repo.head, { externalId: 'PR-101', author: 'dependabot[bot]' });
    const botChange = await db.db.change.findUniqueOrThrow({ where: { id: bot.changeId } });
    assert.deepEqual([botChange.status, botChange.statusReason], ['SKIPPED', 'bot_author']);
    assert.equal(await db.db.run.count({ where: { changeId: bot.changeId } }), 0);
  });
});
