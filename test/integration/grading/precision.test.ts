import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { precision, reviewersVsGraders } from '../../../lib/insights/precision';
import { createFix, createRepo, createUser, reject, settle } from './helpers';
import { rebuildInsightsRollups } from '../../../lib/insights/rollup';

// A small history computed by hand:
//   alpha (offline, Nov): CORRECT ×3 (one applied, one rejected as NOT_HOW_I_WOULD), OVERFITTING ×1 (applied)
//   beta  (llm, model m1, Dec): CORRECT (rejected, no reason), INCORRECT (applied)
//   plus a graded fix that is not settled, which nothing counts.
// Wilson 95% for 3/4: 0.3006 to 0.9544; for 1/2: 0.0945 to 0.9055.

describe('precision over settled fixes', () => {
  let db: TestDb;
  let alpha: string;
  let beta: string;
  before(async () => {
    db = await createTestDb();
    const d = db.db;
    const manager = await createUser(d, 'Mona Manager', ['MANAGER']);
    alpha = (await createRepo(d, 'alpha')).id;
    beta = (await createRepo(d, 'beta')).id;
    const nov = new Date('2026-11-10T12:00:00Z');
    const dec = new Date('2026-12-01T08:00:00Z');
    const a1 = await createFix(d, { repositoryId: alpha, createdAt: nov, status: 'APPLIED' });
    const a2 = await createFix(d, { repositoryId: alpha, createdAt: nov, status: 'REJECTED' });
    const a3 = await createFix(d, { repositoryId: alpha, createdAt: nov });
    const a4 = await createFix(d, { repositoryId: alpha, createdAt: nov, status: 'APPLIED' });
    const b1 = await createFix(d, { repositoryId: beta, policy: 'llm', model: 'm1', createdAt: dec, status: 'REJECTED' });
    const b2 = await createFix(d, { repositoryId: beta, policy: 'llm', model: 'm1', createdAt: dec, status: 'APPLIED' });
    const unsettled = await createFix(d, { repositoryId: beta, createdAt: dec, status: 'APPLIED' });
    await settle(d, a1.id, 'CORRECT', manager.id);
    await settle(d, a2.id, 'CORRECT', manager.id);
    await settle(d, a3.id, 'CORRECT', manager.id);
    await settle(d, a4.id, 'OVERFITTING', manager.id);
    await settle(d, b1.id, 'CORRECT', manager.id);
    await settle(d, b2.id, 'INCORRECT', manager.id);
    await d.grade.create({ data: { fixId: unsettled.id, graderId: manager.id, label: 'INCORRECT', rationale: 'x' } });
    await reject(d, a2.id, manager.id, 'WRONG_FIX');
    await reject(d, a2.id, manager.id, 'NOT_HOW_I_WOULD'); // the latest counts
    await reject(d, b1.id, manager.id, null);
    // written straight into the tables, past the writers: the rollups precision reads are built from them
    await rebuildInsightsRollups({ db: d });
  });
  after(() => db.drop());

  test('ungrouped: one row over all six settled fixes', async () => {
    const [row, ...rest] = await precision({});
    assert.equal(rest.length, 0);
    assert.equal(row.key, null);
    assert.equal(row.settled, 6);
    assert.equal(row.correct.count, 4);
    assert.equal(row.correct.share, 4 / 6);
    assert.equal(row.overfitting.count, 1);
    assert.equal(row.incorrect.count, 1);
    assert.deepEqual(row.irrelevant, { count: 0, share: 0, low: 0, high: row.irrelevant.high });
    assert.ok(row.irrelevant.high! > 0.39 && row.irrelevant.high! < 0.4, String(row.irrelevant.high)); // 0/6 → 0 to 0.390
  });

  test('by repository, with Wilson intervals', async () => {
    const rows = await precision({}, 'repository');
    assert.deepEqual(rows.map((r) => r.label).sort(), ['alpha', 'beta']);
    const a = rows.find((r) => r.label === 'alpha')!;
    assert.equal(a.key, alpha);
    assert.equal(a.settled, 4);
    assert.equal(a.correct.count, 3);
    assert.equal(a.correct.low!.toFixed(4), '0.3006');
    assert.equal(a.correct.high!.toFixed(4), '0.9544');
    const b = rows.find((r) => r.label === 'beta')!;
    assert.equal(b.correct.low!.toFixed(4), '0.0945');
    assert.equal(b.correct.high!.toFixed(4), '0.9055');
  });

  test('by policy, model and month; filters', async () => {
    assert.deepEqual(
      (await precision({}, 'policy')).map((r) => [r.key, r.settled]),
      [
        ['llm', 2],
        ['offline', 4],
      ],
    );
    assert.deepEqual(
      (await precision({}, 'model')).map((r) => [r.key, r.label, r.settled]),
      [
        ['m1', 'm1', 2],
        [null, 'no model', 4],
      ],
    );
    assert.deepEqual(
      (await precision({}, 'month')).map((r) => [r.key, r.settled]),
      [
        ['2026-11', 4],
        ['2026-12', 2],
      ],
    );
    assert.equal((await precision({ repositoryId: beta }))[0].settled, 2);
    assert.equal((await precision({ model: 'm1' }))[0].settled, 2);
    assert.equal((await precision({ policy: 'offline' }))[0].settled, 4);
    assert.equal((await precision({ from: new Date('2026-11-20T00:00:00Z') }))[0].settled, 2);
    assert.equal((await precision({ to: new Date('2026-11-20T00:00:00Z') }))[0].settled, 4);
  });

  test('nothing settled: one row of zeros, shares null (shown n/a)', async () => {
    const [row] = await precision({ repositoryId: 'no-such-repository' });
    assert.equal(row.settled, 0);
    assert.deepEqual(row.correct, { count: 0, share: null, low: null, high: null });
    assert.deepEqual(await precision({ repositoryId: 'no-such-repository' }, 'repository'), []);
  });

  test('reviewers beside graders', async () => {
    assert.deepEqual(await reviewersVsGraders({}), {
      acceptedSettled: 3,
      acceptedJudgedBad: 2,
      rejectedSettled: 2,
      rejectedJudgedCorrect: 2,
      rejectedCorrectByReason: [
        { reason: 'NOT_HOW_I_WOULD', count: 1 },
        { reason: 'UNSPECIFIED', count: 1 },
      ],
    });
    const onlyAlpha = await reviewersVsGraders({ repositoryId: alpha });
    assert.equal(onlyAlpha.acceptedSettled, 2);
    assert.equal(onlyAlpha.acceptedJudgedBad, 1);
  });
});
