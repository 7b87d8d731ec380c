import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { verifyPassword } from '@/lib/auth/password';
import { hashToken } from '@/lib/tokens/auth';
import { DEMO_REPOS } from '@/demo/repos';
import { DEMO_TOKEN_NAME, seedDemo, type SeedRepository } from '@/demo/seed';
import { DEMO_USERS } from '@/demo/users';
import { HISTORY_TITLE_PREFIX } from '@/demo/history';
import { verifyInsightsRollups } from '@/lib/insights/rollup';
import { insightsSection } from '@/lib/insights';
import { readModelPrices } from '@/lib/models/prices';
import { InsightsQuerySchema } from '@/common/insights-query';

const NOW = new Date('2026-11-30T12:00:00Z');

const repositories: SeedRepository[] = DEMO_REPOS.map((spec) => ({
  name: spec.name,
  gitUrl: `/srv/demo/repos/${spec.name}`,
  language: spec.language,
  defaultBranch: 'main',
  settings: spec.settings as Record<string, unknown>,
}));

async function countAll(testDb: TestDb): Promise<Record<string, number>> {
  const db = testDb.db;
  return {
    users: await db.user.count(),
    repositories: await db.repository.count(),
    tokens: await db.ciToken.count(),
    changes: await db.change.count(),
    revisions: await db.changeRevision.count(),
    failures: await db.failure.count(),
    runs: await db.run.count(),
    events: await db.runEvent.count(),
    fixes: await db.fix.count(),
    decisions: await db.decision.count(),
    grades: await db.grade.count(),
    consensus: await db.consensus.count(),
  };
}

describe('demo seed', () => {
  let testDb: TestDb;
  let firstToken: string;
  let firstCounts: Record<string, number>;

  before(async () => {
    testDb = await createTestDb();
    const result = await seedDemo({ db: testDb.db, repositories, now: NOW });
    firstToken = result.ciToken;
    firstCounts = await countAll(testDb);
  });

  after(async () => {
    await testDb?.drop();
  });

  test('creates one demo user per role, with a hashed password that verifies', async () => {
    for (const demo of DEMO_USERS) {
      const user = await testDb.db.user.findUniqueOrThrow({ where: { email: demo.email } });
      assert.deepEqual(user.roles, [demo.role]);
      assert.ok(user.passwordHash, `${demo.email} has a password`);
      assert.notEqual(user.passwordHash, demo.password);
      assert.ok(!user.passwordHash.includes(demo.password), 'the plain password is not stored');
      assert.match(user.passwordHash, /^scrypt\$/);
      assert.equal(await verifyPassword(demo.password, user.passwordHash), true);
      assert.equal(await verifyPassword('wrong-password', user.passwordHash), false);
    }
    const roles = DEMO_USERS.map((u) => u.role).sort();
    assert.deepEqual(roles, ['ADMIN', 'GRADER', 'MANAGER', 'REVIEWER']);
  });

  test('history-only people cannot sign in', async () => {
    const historyPeople = await testDb.db.user.findMany({ where: { email: { endsWith: '@history.demo.flowfix' } } });
    assert.ok(historyPeople.length >= 3);
    assert.ok(historyPeople.every((u) => u.passwordHash === null));
  });

  test('registers the demo repositories with their settings', async () => {
    const rows = await testDb.db.repository.findMany({ orderBy: { name: 'asc' } });
    assert.deepEqual(
      rows.map((r) => [r.name, r.gitUrl, r.language, r.settings]),
      repositories.map((r) => [r.name, r.gitUrl, r.language, r.settings]).sort(),
    );
  });

  test('issues one CI token, stored hashed and scoped to the demo repositories', async () => {
    const tokens = await testDb.db.ciToken.findMany({ include: { scopes: true } });
    assert.equal(tokens.length, 1);
    assert.equal(tokens[0].name, DEMO_TOKEN_NAME);
    assert.match(firstToken, /^ffx_/);
    assert.equal(tokens[0].tokenHash, hashToken(firstToken));
    assert.notEqual(tokens[0].tokenHash, firstToken);
    assert.equal(tokens[0].scopes.length, repositories.length);
  });

  test('adds a few weeks of labelled history shaped like the FlowAgent funnel', async () => {
    const db = testDb.db;
    const changes = await db.change.findMany({ where: { origin: 'DEMO_HISTORY' } });
    assert.ok(changes.length >= 150, `${changes.length} history changes`);
    assert.ok(changes.every((c) => c.title.startsWith(HISTORY_TITLE_PREFIX)));
    assert.ok(changes.every((c) => c.lastFailureAt < NOW));
    const first = Math.min(...changes.map((c) => c.lastFailureAt.getTime()));
    assert.ok(NOW.getTime() - first >= 21 * 24 * 3600 * 1000, 'spans at least three weeks');

    const skipped = changes.filter((c) => c.status === 'SKIPPED').length / changes.length;
    assert.ok(skipped > 0.6 && skipped < 0.8, `skipped ${skipped}`);
    const statuses = new Set(changes.map((c) => c.status));
    for (const s of ['SKIPPED', 'NO_FIX', 'FIX_READY', 'APPLIED', 'REJECTED', 'STALE'] as const) {
      assert.ok(statuses.has(s), `some history change is ${s}`);
    }
    assert.ok(changes.some((c) => c.authorKind === 'BOT'));

    const runs = await db.run.findMany();
    assert.ok(runs.length > 0 && runs.every((r) => r.finishedAt && r.finishedAt < NOW));
    assert.ok(runs.some((r) => r.promptTokens > 0 && (r.costUsd ?? 0) > 0 && r.toolCalls > 0));
    assert.ok(runs.every((r) => Object.keys(r.phaseTimings as object).length === 6));
    const fixes = await db.fix.findMany();
    const fixRate = fixes.length / runs.length;
    assert.ok(fixRate > 0.35 && fixRate < 0.75, `fix rate ${fixRate}`);
    assert.ok(fixes.some((f) => f.status === 'DROPPED' && f.dropReason === 'stale'));

    const decisions = await db.decision.findMany();
    assert.deepEqual([...new Set(decisions.map((d) => d.kind))].sort(), ['ACCEPT', 'EDIT_ACCEPT', 'PREVIEW', 'REJECT']);
    assert.deepEqual([...new Set(decisions.map((d) => d.surface))].sort(), ['CLI', 'DASHBOARD', 'IDE']);
    assert.ok(decisions.filter((d) => d.kind === 'REJECT').every((d) => d.reason !== null));
    assert.ok(decisions.filter((d) => d.kind === 'EDIT_ACCEPT').every((d) => d.editedDiff));

    const grades = await db.grade.findMany();
    assert.ok(grades.length > 0);
    assert.ok(new Set(grades.map((g) => g.graderId)).size >= 3, 'several graders');
    const consensus = await db.consensus.findMany();
    assert.ok(consensus.length > 0);
    const correct = consensus.filter((c) => c.label === 'CORRECT').length / consensus.length;
    assert.ok(correct > 0.4 && correct < 0.9, `correct ${correct}`);
  });

  test("sets the model prices its history's run costs come from, so Admin and Insights agree", async () => {
    const db = testDb.db;
    const prices = await readModelPrices(db);
    const runs = await db.run.findMany({ where: { change: { origin: 'DEMO_HISTORY' } } });
    const models = [...new Set(runs.filter((r) => r.model).map((r) => r.model!))];
    assert.ok(models.length > 0);
    for (const model of models) assert.ok(Object.hasOwn(prices, model), `Admin has a price for ${model}, which history runs used`);
    // every recorded cost is the one the table gives (to the history's 4 decimals)
    for (const r of runs) {
      const price = r.model ? prices[r.model] : undefined;
      const expected = price ? (r.promptTokens * price.inputPerMTokUsd + r.completionTokens * price.outputPerMTokUsd) / 1e6 : 0;
      assert.ok(Math.abs((r.costUsd ?? NaN) - expected) < 0.00006, `run ${r.id}: ${r.costUsd} ≠ ${expected}`);
    }
    // what Insights says it cost is what those prices give
    const cost = await insightsSection({ section: 'cost', query: InsightsQuerySchema.parse({ period: 'all' }), now: NOW, db });
    const sum = runs.reduce((t, r) => t + (r.costUsd ?? 0), 0);
    assert.ok((cost.data as { total: { costUsd: number } }).total.costUsd > 0);
    assert.ok(Math.abs((cost.data as { total: { costUsd: number } }).total.costUsd - sum) < 0.01);
    assert.deepEqual(
      (cost.data as { prices: unknown }).prices,
      models.map((model) => ({ model, priced: true, ...prices[model] })),
    );
  });

  test('leaves the Insights rollups built from the history, equal to a recomputation from the raw rows', async () => {
    const { days, differences } = await verifyInsightsRollups({ db: testDb.db });
    assert.ok(days >= 21, `${days} days`);
    assert.deepEqual(differences, []);
    const funnel = (await insightsSection({ section: 'funnel', query: InsightsQuerySchema.parse({ period: 'all' }), now: NOW, db: testDb.db })).data as {
      steps: Array<{ key: string; count: number }>;
    };
    assert.equal(funnel.steps.find((s) => s.key === 'changes')!.count, await testDb.db.change.count());
  });

  test('running it again changes nothing and reuses the CI token it was given', async () => {
    const again = await seedDemo({ db: testDb.db, repositories, now: new Date(NOW.getTime() + 3600_000), knownCiToken: firstToken });
    assert.equal(again.ciToken, firstToken);
    assert.equal(again.ciTokenReissued, false);
    assert.equal(again.history.created, false);
    assert.deepEqual(await countAll(testDb), firstCounts);
  });

  test('a lost token is replaced, not added to', async () => {
    const third = await seedDemo({ db: testDb.db, repositories, now: NOW });
    assert.equal(third.ciTokenReissued, true);
    assert.notEqual(third.ciToken, firstToken);
    const tokens = await testDb.db.ciToken.findMany();
    assert.deepEqual(
      tokens.map((t) => t.tokenHash),
      [hashToken(third.ciToken)],
    );
    assert.deepEqual(await countAll(testDb), firstCounts);
  });
});
