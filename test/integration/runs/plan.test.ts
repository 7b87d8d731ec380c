import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { buildRepairInput } from '@/agent/worker/execute';
import { DbEventSink } from '@/agent/worker/db-sink';
import { planRevisionRepair } from '@/lib/triage/plan';
import { getRunWorkContext } from '@/lib/runs/service';
import { triageNewRevision } from '@/lib/triage/new-revision';
import { seedWorld, TARGET, type RunWorld } from './helpers';

// The plan of a revision is what triage filters on and what the worker runs:
// settings read from `.flowfix.json` at the base revision under the admin's,
// known-flaky tests left out of the targets, the pre-execution filters' verdict.

const KIND = process.env.FLOWFIX_TEST_DB === 'postgres' ? 'postgres' : 'pglite';
const FLAKY = 'test::cart > applyDiscount rounds';
let db: TestDb;
const worlds: RunWorld[] = [];

before(async () => {
  db = await createTestDb();
});
after(async () => {
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
});

/**
 * A world whose revision is rebased on a commit carrying `.flowfix.json`
 * (`atBase`); the head commit changes the file to `atHead`, which must not count.
 */
async function worldWithFlowfixFile({ name, atBase, atHead }: { name: string; atBase: unknown; atHead: unknown }) {
  const w = await seedWorld({ db: db.db, name });
  worlds.push(w);
  w.repo.write('.flowfix.json', JSON.stringify(atBase));
  const base = w.repo.commit('flowfix settings');
  w.repo.write('.flowfix.json', JSON.stringify(atHead));
  w.repo.write('README.md', '# shop\n\nagain\n');
  const head = w.repo.commit('change');
  await db.db.changeRevision.update({ where: { id: w.revisionId }, data: { baseRev: base, headRev: head } });
  await db.db.change.update({ where: { id: w.changeId }, data: { baseRev: base, headRev: head } });
  return w;
}

describe(`the plan of a revision (${KIND})`, () => {
  test('settings from .flowfix.json at the base under the admin’s; known-flaky tests left out; the worker runs the same plan', async () => {
    const w = await worldWithFlowfixFile({
      name: 'plan-shop',
      atBase: { settings: { junitReport: 'reports/junit.xml', maxOutputBytes: 65536 }, filterPolicy: { post: { maxFixLines: 40 } } },
      atHead: { settings: { junitReport: 'head.xml' }, filterPolicy: { post: { maxFixLines: 1 } } },
    });
    // the admin's column (as stored: only what the admin set) wins over the file
    await db.db.repository.update({
      where: { id: w.repositoryId },
      data: { settings: { test: w.repo.settings.test, maxOutputBytes: 131072 }, flakyTests: { create: { testId: FLAKY } } },
    });
    await db.db.failure.create({ data: { changeId: w.changeId, revisionId: w.revisionId, testId: FLAKY, testName: 'applyDiscount rounds' } });

    const plan = await planRevisionRepair({ revisionId: w.revisionId });
    assert.deepEqual(plan.source, { repoPath: w.repo.dir });
    assert.equal(plan.settings.junitReport, 'reports/junit.xml');
    assert.equal(plan.settings.test, w.repo.settings.test);
    assert.equal(plan.settings.maxOutputBytes, 131072);
    assert.equal(plan.filterPolicy.post.maxFixLines, 40);
    assert.deepEqual(plan.targets, [TARGET]);
    assert.equal(plan.decision.skip, false);
    assert.deepEqual(plan.decision.skip === false && plan.decision.targets, plan.targets);

    const run = await db.db.run.create({ data: { changeId: w.changeId, revisionId: w.revisionId, policy: 'offline' } });
    const input = await buildRepairInput({
      run: await getRunWorkContext({ runId: run.id }),
      sink: new DbEventSink({ runId: run.id, workerId: 'plan-test', onFailure: () => undefined }),
      signal: new AbortController().signal,
    });
    assert.deepEqual(
      [input.repoPath, input.baseRev, input.headRev, input.targetTests, input.settings, input.filterPolicy, input.modelSettings],
      [w.repo.dir, plan.baseRev, plan.headRev, plan.targets, plan.settings, plan.filterPolicy, plan.modelSettings],
    );
  });

  test('every failing test known flaky: triage skips the change, a run by hand still targets them', async () => {
    const w = await worldWithFlowfixFile({ name: 'flaky-shop', atBase: {}, atHead: { filterPolicy: { pre: { knownFlaky: false } } } });
    await db.db.knownFlakyTest.create({ data: { repositoryId: w.repositoryId, testId: TARGET } });

    const plan = await planRevisionRepair({ revisionId: w.revisionId });
    assert.deepEqual(plan.decision.skip && plan.decision.reason, 'known_flaky');
    assert.deepEqual(plan.targets, [TARGET]);

    assert.deepEqual(await triageNewRevision({ changeId: w.changeId, revisionId: w.revisionId }), { skipped: true, reason: 'known_flaky' });
    const change = await db.db.change.findUniqueOrThrow({ where: { id: w.changeId } });
    assert.deepEqual([change.status, change.statusReason], ['SKIPPED', 'known_flaky']);
    assert.equal(await db.db.run.count({ where: { changeId: w.changeId } }), 0);
  });

  test('a filter the base revision’s .flowfix.json turns off lets triage queue the run', async () => {
    const w = await worldWithFlowfixFile({ name: 'unflaky-shop', atBase: { filterPolicy: { pre: { knownFlaky: false } } }, atHead: {} });
    await db.db.knownFlakyTest.create({ data: { repositoryId: w.repositoryId, testId: TARGET } });

    const triaged = await triageNewRevision({ changeId: w.changeId, revisionId: w.revisionId });
    assert.equal(triaged.skipped, false);
    const run = await db.db.run.findFirstOrThrow({ where: { changeId: w.changeId } });
    assert.deepEqual([run.status, run.trigger, run.policy], ['QUEUED', 'AUTO', 'offline']);
  });

  test('an unknown revision is a not_found', async () => {
    await assert.rejects(planRevisionRepair({ revisionId: 'nope' }), (err: unknown) => (err as { code?: string }).code === 'not_found');
  });
});
