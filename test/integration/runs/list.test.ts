import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { NextRequest } from 'next/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { listRuns, RunListQuerySchema } from '@/lib/runs/list';
import { claimRun } from '@/lib/runs/lease';
import { finishRun, requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { seedWorld, type RunWorld } from './helpers';

// The Runs page's list: every run, newest first, filtered, keyset-paged,
// against the real database (FLOWFIX_TEST_DB=pglite|postgres).

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

const query = (q: Record<string, string>) => RunListQuerySchema.parse(q);

describe(`the runs list (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  test('filters by status, repository and policy; pages without gaps or repeats', async () => {
    const a = await seedWorld({ db: db.db, name: 'runs-a' });
    const b = await seedWorld({ db: db.db, name: 'runs-b' });
    worlds.push(a, b);
    const ids: string[] = [];
    for (const w of [a, b, a]) {
      const { runId } = await requestRun({ changeId: w.changeId, trigger: 'MANUAL', policy: 'offline' });
      await claimRun({ runId, workerId: 'w', leaseMs: 60_000 });
      await finishRun({ runId, workerId: 'w', result: { status: 'no_fix', exitReason: 'no_candidate' } });
      ids.push(runId);
    }
    const queued = await requestRun({ changeId: b.changeId, trigger: 'MANUAL', policy: 'offline' });

    const all = await listRuns({ query: query({}) });
    // newest first: the queued one, then the three finished ones from the last
    assert.deepEqual(
      all.items.map((r) => r.id),
      [queued.runId, ids[2], ids[1], ids[0]],
    );
    assert.ok(all.repositories.includes('runs-a') && all.repositories.includes('runs-b'));
    assert.deepEqual(all.policies, ['offline']);

    const noFix = await listRuns({ query: query({ status: 'NO_FIX' }) });
    assert.deepEqual(new Set(noFix.items.map((r) => r.id)), new Set(ids));
    assert.ok(noFix.items.every((r) => r.exitReason === 'no_candidate' && r.durationMs !== null));

    const inA = await listRuns({ query: query({ repository: 'runs-a' }) });
    assert.deepEqual(
      inA.items.map((r) => r.id),
      [ids[2], ids[0]],
    );
    assert.equal((await listRuns({ query: query({ policy: 'llm' }) })).items.length, 0);

    // one row a page: four pages, in order, then the end
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listRuns({ query: query({ limit: '1', ...(cursor ? { cursor } : {}) }) });
      seen.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(
      seen,
      all.items.map((r) => r.id),
    );
  });

  test('a bad status or cursor is a 422 at the route', async () => {
    const { GET } = await import('@/app/api/runs/route');
    const { getDb } = await import('@/lib/db');
    const user = await getDb().user.create({ data: { email: 'runs-reader@x.test', name: 'Reader', roles: ['MANAGER'] } });
    const { sessionCookie } = await import('../routes/http-helpers');
    const cookie = await sessionCookie(user);
    for (const qs of ['status=DONE', 'cursor=not-a-cursor']) {
      const res = await GET(new NextRequest(`http://localhost:3000/api/runs?${qs}`, { headers: { cookie } }), { params: Promise.resolve({}) });
      assert.equal(res.status, 422, qs);
    }
  });
});
