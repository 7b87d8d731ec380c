import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { NextRequest } from 'next/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { generateToken } from '@/lib/tokens/auth';
import { stopRunQueue } from '@/lib/queue';
import { startServerServices } from '@/agent/worker/embedded';
import type { RunWorker } from '@/agent/worker/worker';
import { POST as postFailures } from '@/app/api/v1/failures/route';
import { checkedEvents, seedWorld, TARGET, TERMINAL, waitFor, type RunWorld } from './helpers';

// What instrumentation.ts register() starts in the web server: in embedded
// mode (PGlite) the worker in the same process. A failure reported through the real ingestion route is
// triaged, queued and — embedded — repaired without any other process.

const KIND = process.env.FLOWFIX_TEST_DB === 'postgres' ? 'postgres' : 'pglite';
let db: TestDb;
let worker: RunWorker | undefined;
const worlds: RunWorld[] = [];

before(async () => {
  db = await createTestDb();
  worker = await startServerServices();
});
after(async () => {
  await worker?.stop({ graceMs: 0 });
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
});

describe(`server start-up services (${KIND})`, () => {
  test(
    KIND === 'pglite'
      ? 'embedded: a reported failure is repaired by the in-process worker'
      : 'server mode: the failure is queued for worker processes; none runs in the web process',
    async () => {
      assert.equal(worker !== undefined, KIND === 'pglite', 'an in-process worker exactly in embedded mode');
      const w = await seedWorld({ db: db.db, name: 'embedded-shop' });
      worlds.push(w);
      const { token, prefix, tokenHash } = generateToken();
      await db.db.ciToken.create({ data: { name: 'ci', prefix, tokenHash, allRepositories: true } });
      const res = await postFailures(
        new NextRequest('http://localhost:3000/api/v1/failures', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({
            repository: 'embedded-shop',
            baseRev: w.repo.base,
            headRev: w.repo.head,
            change: { externalId: 'PR-9', title: 'rework total', author: 'dev', branch: 'feature/total' },
            tests: [{ id: TARGET, name: 'total multiplies price by quantity', classname: 'test', message: '11 !== 17' }],
          }),
        }),
        { params: Promise.resolve({}) },
      );
      assert.equal(res.status, 201);
      const { changeId } = (await res.json()) as { changeId: string };
      const run = await db.db.run.findFirstOrThrow({ where: { changeId } });
      assert.equal(run.trigger, 'AUTO');
      if (KIND === 'postgres') {
        assert.equal(run.status, 'QUEUED');
        assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: changeId } })).status, 'QUEUED');
        return;
      }
      const done = await waitFor(
        async () => {
          const r = await db.db.run.findUniqueOrThrow({ where: { id: run.id } });
          return TERMINAL.includes(r.status) ? r : undefined;
        },
        { what: 'the in-process worker to finish the run', timeoutMs: 120_000 },
      );
      assert.equal(done.status, 'FIXED', `${done.exitReason}: ${done.exitDetail}`);
      assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: changeId } })).status, 'FIX_READY');
      await checkedEvents(db.db, run.id);
    },
  );
});
