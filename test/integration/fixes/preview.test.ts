import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { jsonRequest, metadata, seed, send, type Seeded } from '../ingest/helpers';
import { claimRun, finishRun } from '../../../lib/runs/service';
import { recordPreview } from '../../../lib/fixes/decisions';
import { insightsSection } from '../../../lib/insights';
import { InsightsQuerySchema } from '../../../common/insights-query';
import { verifyInsightsRollups } from '../../../lib/insights/rollup';

// A reviewer who clicks "Preview diff" again (or twice at once: a double
// click, two tabs) has previewed the fix once: one Decision row, one audit
// entry, and the Insights figures of a single preview.

let db: TestDb;
let seeded: Seeded;

before(async () => {
  db = await createTestDb();
  seeded = await seed(db.db);
});
after(() => db?.drop());

async function postedFix(externalId: string): Promise<string> {
  const res = await send(
    jsonRequest({
      token: seeded.tokens.all,
      body: metadata({ tests: [{ name: 'total', classname: 'cart', message: 'expected 3, got 4' }], change: { externalId, author: 'Ada Lovelace' } }),
    }),
  );
  assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
  const changeId = res.body.changeId as string;
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
  return fixId;
}

async function previewFigures() {
  const query = InsightsQuerySchema.parse({ period: 'all' });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const funnel = (await insightsSection({ section: 'funnel', query, db: db.db })).data as any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const adoption = (await insightsSection({ section: 'adoption', query, db: db.db })).data as any;
  return {
    previewed: funnel.steps.find((s: { key: string }) => s.key === 'previewed').count as number,
    dashboard: adoption.surfaces.find((s: { surface: string }) => s.surface === 'DASHBOARD').previewed as number,
  };
}

describe('recordPreview', () => {
  test('repeated and concurrent previews by one person on one surface record one preview', async () => {
    const reviewer = await db.db.user.create({ data: { email: 'rae@example.test', name: 'Rae', roles: ['REVIEWER'] } });
    const fixId = await postedFix('PR-PREVIEW');

    const first = await recordPreview({ fixId, userId: reviewer.id, surface: 'DASHBOARD' });
    const once = await previewFigures();
    assert.deepEqual(once, { previewed: 1, dashboard: 1 });

    const again = await Promise.all(Array.from({ length: 6 }, () => recordPreview({ fixId, userId: reviewer.id, surface: 'DASHBOARD' })));
    assert.deepEqual(
      again.map((r) => r.decisionId),
      again.map(() => first.decisionId),
      'every repeat answers with the first preview',
    );
    assert.equal(await db.db.decision.count({ where: { fixId, kind: 'PREVIEW' } }), 1);
    assert.equal(await db.db.auditLog.count({ where: { action: 'fix.preview', targetId: fixId } }), 1);
    assert.deepEqual(await previewFigures(), once);
    assert.deepEqual((await verifyInsightsRollups({ db: db.db })).differences, []);
  });

  test('concurrent first previews race to one row', async () => {
    const reviewer = await db.db.user.create({ data: { email: 'rex@example.test', name: 'Rex', roles: ['REVIEWER'] } });
    const fixId = await postedFix('PR-RACE');
    const answers = await Promise.all(Array.from({ length: 6 }, () => recordPreview({ fixId, userId: reviewer.id, surface: 'DASHBOARD' })));
    assert.equal(new Set(answers.map((a) => a.decisionId)).size, 1);
    assert.equal(await db.db.decision.count({ where: { fixId, kind: 'PREVIEW' } }), 1);
    assert.equal(await db.db.auditLog.count({ where: { action: 'fix.preview', targetId: fixId } }), 1);
  });

  test('another person, or the same person on another surface, is another preview', async () => {
    const [ann, bob] = await Promise.all(['ann', 'bob'].map((n) => db.db.user.create({ data: { email: `${n}@example.test`, name: n, roles: ['REVIEWER'] } })));
    const fixId = await postedFix('PR-OTHERS');
    await Promise.all([
      recordPreview({ fixId, userId: ann.id, surface: 'DASHBOARD' }),
      recordPreview({ fixId, userId: bob.id, surface: 'DASHBOARD' }),
      recordPreview({ fixId, userId: ann.id, surface: 'CLI' }),
      recordPreview({ fixId, userId: ann.id, surface: 'CLI' }),
    ]);
    const rows = await db.db.decision.findMany({ where: { fixId, kind: 'PREVIEW' }, select: { userId: true, surface: true } });
    assert.deepEqual(rows.map((r) => `${r.userId === ann.id ? 'ann' : 'bob'}:${r.surface}`).sort(), ['ann:CLI', 'ann:DASHBOARD', 'bob:DASHBOARD']);
  });

  test('an unknown fix is 404 and records nothing', async () => {
    const reviewer = await db.db.user.create({ data: { email: 'nia@example.test', name: 'Nia', roles: ['REVIEWER'] } });
    await assert.rejects(recordPreview({ fixId: 'nope', userId: reviewer.id, surface: 'DASHBOARD' }), { code: 'not_found' });
  });
});
