import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { jsonRequest, metadata, seed, send, type Seeded } from '../ingest/helpers';
import { createUser } from '../fixes/helpers';
import { claimRun, finishRun } from '../../../lib/runs/service';
import { rejectFix } from '../../../lib/fixes/decisions';
import { verifyInsightsRollups } from '../../../lib/insights/rollup';
import { subscribeToWrites, writeTx, type WriteKind } from '../../../lib/writes';

// The write hook (lib/writes.ts): what a transaction wrote reaches the
// subscribers in the transaction and after the commit, a transaction that
// throws reaches nobody, a subscriber that fails after the commit does not
// fail the writer, and the lifecycle's real writers (ingestion, a run
// claimed and finished, a reject) go through it.

let db: TestDb;
let seeded: Seeded;
let stop: Array<() => void> = [];

before(async () => {
  db = await createTestDb();
  seeded = await seed(db.db);
});
after(() => db?.drop());
afterEach(() => {
  for (const s of stop) s();
  stop = [];
});

interface Heard {
  when: 'transaction' | 'commit';
  kinds: WriteKind[];
  changeIds: string[];
}

function listen(): Heard[] {
  const heard: Heard[] = [];
  stop.push(
    subscribeToWrites({
      name: 'test listener',
      inTransaction: async (_tx, written) => {
        heard.push({ when: 'transaction', kinds: [...written.kinds].sort(), changeIds: [...written.changeIds].sort() });
      },
      afterCommit: async (written) => {
        heard.push({ when: 'commit', kinds: [...written.kinds].sort(), changeIds: [...written.changeIds].sort() });
      },
    }),
  );
  return heard;
}

async function postFailure(externalId: string): Promise<string> {
  const res = await send(
    jsonRequest({
      token: seeded.tokens.all,
      body: metadata({ tests: [{ name: 'total', classname: 'cart', message: 'expected 3, got 4' }], change: { externalId, author: 'Ada Lovelace' } }),
    }),
  );
  assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
  return res.body.changeId as string;
}

let madeId: string | undefined;
/** One change to write to, made by a real ingestion before anyone listens, as it is now. */
async function aChange(): Promise<{ id: string; title: string }> {
  madeId ??= await postFailure('hook-0');
  return db.db.change.findUniqueOrThrow({ where: { id: madeId }, select: { id: true, title: true } });
}

describe('writeTx', () => {
  test('subscribers hear what was written, in the transaction after the writer and again after the commit', async () => {
    const change = await aChange();
    const heard = listen();
    const value = await writeTx(async (tx, written) => {
      await tx.change.update({ where: { id: change.id }, data: { title: `${change.title}.` } });
      written.wrote('change', { changeId: change.id }).wrote('change', { changeId: change.id });
      return 42;
    });
    assert.equal(value, 42);
    assert.deepEqual(heard, [
      { when: 'transaction', kinds: ['change'], changeIds: [change.id] },
      { when: 'commit', kinds: ['change'], changeIds: [change.id] },
    ]);
  });

  test('a writer that throws rolls back, and no subscriber hears of it', async () => {
    const change = await aChange();
    const heard = listen();
    await assert.rejects(
      writeTx(async (tx, written) => {
        await tx.change.update({ where: { id: change.id }, data: { title: 'never committed' } });
        written.wrote('change', { changeId: change.id });
        throw new Error('the writer changed its mind');
      }),
      /changed its mind/,
    );
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: change.id } })).title, change.title);
    assert.deepEqual(heard, []);
  });

  test('a subscriber that fails in the transaction rolls the write back', async () => {
    const change = await aChange();
    stop.push(
      subscribeToWrites({
        name: 'failing in the transaction',
        inTransaction: async () => {
          throw new Error('rollups unavailable');
        },
      }),
    );
    await assert.rejects(
      writeTx(async (tx, written) => {
        await tx.change.update({ where: { id: change.id }, data: { title: 'not without its rollups' } });
        written.wrote('change', { changeId: change.id });
      }),
      /rollups unavailable/,
    );
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: change.id } })).title, change.title);
  });

  test('a subscriber that fails after the commit does not fail the writer, and the others still hear', async () => {
    const change = await aChange();
    stop.push(
      subscribeToWrites({
        name: 'failing after the commit',
        afterCommit: async () => {
          throw new Error('code host unreachable');
        },
      }),
    );
    const heard = listen();
    const logged: unknown[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void logged.push(args[0]);
    try {
      await writeTx(async (_tx, written) => void written.wrote('change', { changeId: change.id }));
    } finally {
      console.error = error;
    }
    assert.deepEqual(
      heard.map((h) => h.when),
      ['transaction', 'commit'],
    );
    assert.match(String(logged[0]), /failing after the commit/);
  });

  test('a transaction that records nothing calls no subscriber', async () => {
    const heard = listen();
    assert.equal(await writeTx(async (tx) => (await tx.change.count()) >= 0), true);
    assert.deepEqual(heard, []);
  });
});

describe('the lifecycle writes through the hook', () => {
  test('ingestion, a run queued, claimed and finished with a fix, and a reject each reach the subscribers', async () => {
    const reviewer = await createUser(db.db, 'Rhea Reviewer', ['REVIEWER']);
    const heard = listen();
    const changeId = await postFailure('hook-1');
    const run = await db.db.run.findFirstOrThrow({ where: { changeId, status: 'QUEUED' } });
    assert.ok((await claimRun({ runId: run.id, workerId: 'w1' })).claimed);
    const { fixId } = await finishRun({
      runId: run.id,
      workerId: 'w1',
      result: {
        status: 'fixed',
        exitReason: 'fixed',
        diff: 'diff --git a/cart.js b/cart.js\n--- a/cart.js\n+++ b/cart.js\n@@ -1 +1 @@\n-a - b\n+a + b\n',
        files: ['cart.js'],
        summaryHtml: '<p>Addition.</p>',
      },
    });
    assert.ok(fixId);
    await rejectFix({ fixId, userId: reviewer.id, reason: 'WRONG_FIX' });

    const committed = heard.filter((h) => h.when === 'commit');
    assert.ok(
      committed.every((h) => h.changeIds.includes(changeId)),
      JSON.stringify(committed),
    );
    const kinds = committed.map((h) => h.kinds.join('+'));
    // ingestion (the change), its AUTO run queued, the claim (a lease), the finish (the run and its fix), the reject
    for (const expected of ['change', 'run', 'lease', 'fix+run', 'decision']) assert.ok(kinds.includes(expected), `${expected} in ${kinds.join(', ')}`);
    assert.equal(heard.filter((h) => h.when === 'transaction').length, committed.length);
    // and Insights, the hook's in-transaction subscriber, agrees with the raw rows
    assert.deepEqual((await verifyInsightsRollups({ db: db.db })).differences, []);
  });
});
