import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { jsonRequest, metadata, seed, send, type Seeded } from '../ingest/helpers';
import type { SessionUser } from '../../../lib/auth/session';
import { cancelRun, claimRun, finishRun, startManualRun } from '../../../lib/runs/service';
import { appendRunEvents } from '../../../lib/runs/events';
import { recordPreview, rejectFix } from '../../../lib/fixes/decisions';
import { recordLocalApply } from '../../../lib/fixes/apply';
import { createQueue } from '../../../lib/grading/queues';
import { nextItem } from '../../../lib/grading/next-item';
import { settleItem } from '../../../lib/grading/disputes';
import { submitGrade } from '../../../lib/grading/labelling';
import { CreateQueueSchema, GradeInputSchema } from '../../../lib/grading/schemas';
import { insightsSection } from '../../../lib/insights';
import { InsightsQuerySchema } from '../../../common/insights-query';
import { gateEvent } from '../../../common/run-events';
import { ALL } from '../../../lib/insights/tables';
import { InsightsReader, withInsightsSnapshot } from '../../../lib/insights/read';
import { funnel } from '../../../lib/insights/funnel';
import { cost } from '../../../lib/insights/cost';
import { precision } from '../../../lib/insights/precision';
import type { InsightsScope } from '../../../lib/insights/scope';
import { ROLLUP_VERSION, ensureInsightsRollups, rebuildInsightsRollups, refreshInsightsRollups, verifyInsightsRollups } from '../../../lib/insights/rollup';
import type { FinishRunResult } from '../../../lib/runs/schemas';

// The rollups never drift from the raw rows: a varied history is written
// through the real writers (ingestion and triage, runs starting and ending,
// fixes found, dropped and gone stale, previews, rejections and accepts,
// labels and settlements), then the rollups are recomputed from the raw rows
// and compared with what the writers kept. Also: concurrent writers on the
// same rollup rows, and periods that start or end inside a day.

const as = (u: { id: string; email: string; name: string; roles: string[] }): SessionUser => u as unknown as SessionUser;

let db: TestDb;
let seeded: Seeded;

async function section(name: 'funnel' | 'cost' | 'latency' | 'adoption' | 'quality', input: Record<string, string>, now = new Date()) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (await insightsSection({ section: name, query: InsightsQuerySchema.parse(input), now, db: db.db })).data as any;
}

function steps(f: { steps: Array<{ key: string; count: number }> }) {
  return Object.fromEntries(f.steps.map((s) => [s.key, s.count]));
}

async function report(externalId: string, { author = 'Ada Lovelace', headRev = 'b'.repeat(40), repository = 'shop' } = {}): Promise<string> {
  const bot = author.endsWith('[bot]');
  const res = await send(
    jsonRequest({
      token: seeded.tokens.all,
      body: metadata({
        repository,
        headRev,
        tests: [{ name: 'total', classname: 'cart', message: 'expected 3, got 4' }],
        change: { externalId, author, authorEmail: bot ? undefined : 'ada@example.com' },
      }),
    }),
  );
  assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
  return res.body.changeId as string;
}

async function onlyRun(changeId: string, status = 'QUEUED') {
  return db.db.run.findFirstOrThrow({ where: { changeId, status: status as 'QUEUED' }, orderBy: { createdAt: 'desc' } });
}

const FIXED = (extra: Partial<FinishRunResult> = {}): FinishRunResult => ({
  status: 'fixed',
  exitReason: 'fixed',
  diff: 'diff --git a/cart.js b/cart.js\n--- a/cart.js\n+++ b/cart.js\n@@ -1 +1 @@\n-a - b\n+a + b\n',
  files: ['cart.js'],
  summaryHtml: '<p>Addition.</p>',
  phaseTimings: { setup: 1_200, red: 800, patch: 5_400 },
  usage: { promptTokens: 12_000, completionTokens: 900, costUsd: 0.37, toolCalls: 9 },
  ...extra,
});

/** claims the change's queued run and ends it with `result` */
async function work(changeId: string, result: FinishRunResult, beforeFinish?: (runId: string) => Promise<void>): Promise<string | null> {
  const run = await onlyRun(changeId);
  assert.ok((await claimRun({ runId: run.id, workerId: 'w1' })).claimed);
  await beforeFinish?.(run.id);
  return (await finishRun({ runId: run.id, workerId: 'w1', result })).fixId;
}

async function assertNoDrift(): Promise<void> {
  const { days, differences } = await verifyInsightsRollups({ db: db.db });
  assert.ok(days > 0);
  assert.deepEqual(differences, []);
}

before(async () => {
  db = await createTestDb();
  seeded = await seed(db.db);
});

after(async () => {
  await db?.drop();
});

describe('rollups kept by the writers', () => {
  test('a varied history through the real write paths: the rollups equal a recomputation from the raw rows', async () => {
    const reviewer = await db.db.user.create({ data: { email: 'rae@example.test', name: 'Rae', roles: ['REVIEWER'] } });
    const manager = as(await db.db.user.create({ data: { email: 'max@example.test', name: 'Max', roles: ['MANAGER'] } }));
    const graders = [
      as(await db.db.user.create({ data: { email: 'g1@example.test', name: 'Gus', roles: ['GRADER'] } })),
      as(await db.db.user.create({ data: { email: 'g2@example.test', name: 'Gia', roles: ['GRADER'] } })),
    ];

    // ingestion, triage and runs
    const pr1 = await report('PR-1');
    const fix1 = await work(pr1, FIXED());
    const pr2 = await report('PR-2');
    const fix2 = await work(pr2, FIXED({ usage: { promptTokens: 30_000, completionTokens: 2_000, costUsd: 1.25, toolCalls: 21 } }));
    const pr3 = await report('PR-3');
    await work(pr3, { status: 'no_fix', exitReason: 'no_candidate', phaseTimings: { setup: 900 } }, (runId) =>
      appendRunEvents({ runId, workerId: 'w1', events: [gateEvent({ gate: 'green', passed: false, durationMs: 300 })] }).then(() => undefined),
    );
    const pr4 = await report('PR-4');
    await work(pr4, FIXED({ dropped: { reason: 'reverts_change', detail: 'undoes the change' } }));
    await report('PR-5', { author: 'renovate[bot]' }); // skipped: a bot
    const pr6 = await report('PR-6');
    await cancelRun({ runId: (await onlyRun(pr6)).id, userId: reviewer.id });
    const pr7 = await report('PR-7');
    await work(pr7, FIXED({ usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 3 } }));
    await report('PR-7', { headRev: 'c'.repeat(40) }); // a newer revision: the fix goes stale, a new run waits
    // another repository; reposted as a bot's: the change moves to the bots' slice
    const pr8 = await report('PR-8', { repository: 'other' });
    await work(pr8, { status: 'no_fix', exitReason: 'not_reproduced' });
    await report('PR-8', { repository: 'other', author: 'dependabot[bot]' });
    const manual = await startManualRun({ changeId: pr8, userId: reviewer.id });
    assert.equal(manual.joined, false);
    await work(pr8, { status: 'no_fix', exitReason: 'time_limit', usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 40 } });

    // reviewers
    await recordPreview({ fixId: fix1!, userId: reviewer.id, surface: 'DASHBOARD' });
    await recordLocalApply({ fixId: fix1!, userId: reviewer.id, surface: 'CLI' });
    await recordPreview({ fixId: fix2!, userId: reviewer.id, surface: 'DASHBOARD' });
    await rejectFix({ fixId: fix2!, userId: reviewer.id, reason: 'WRONG_FIX' });

    // graders: fix 1 unanimous (settled on its own), fix 2 disputed and settled by the manager
    const queue = await createQueue({
      actor: manager,
      input: CreateQueueSchema.parse({ name: 'Q', gradersPerFix: 2, graderIds: graders.map((g) => g.id), filter: { statuses: ['APPLIED', 'REJECTED'] } }),
    });
    assert.equal(queue.items, 2);
    for (const [i, grader] of graders.entries()) {
      for (let k = 0; k < 2; k++) {
        const item = (await nextItem({ queueId: queue.id, user: grader }))!;
        // the hand-out is blind: the fix behind the item is looked up here
        const { fixId } = await db.db.gradingItem.findUniqueOrThrow({ where: { id: item.itemId } });
        const label = fixId === fix2 && i === 1 ? { label: 'INCORRECT', rationale: 'tests only' } : { label: 'CORRECT' };
        await submitGrade({ queueId: queue.id, itemId: item.itemId, user: grader, input: GradeInputSchema.parse(label) });
      }
    }
    const disputed = await db.db.gradingItem.findFirstOrThrow({ where: { queueId: queue.id, fixId: fix2! } });
    await settleItem({ queueId: queue.id, itemId: disputed.id, user: manager, label: 'CORRECT', note: 'the test was wrong' });

    await assertNoDrift();

    // and what they say is the history above
    assert.deepEqual(steps(await section('funnel', { period: 'all' })), {
      changes: 8,
      skipped: 1,
      attempted: 7,
      found: 4,
      dropped: 1,
      posted: 3,
      previewed: 2,
      applied: 1,
    });
    assert.equal(steps(await section('funnel', { period: 'all', author: 'bot' })).changes, 2, 'PR-5 and PR-8, which moved');
    assert.deepEqual(steps(await section('funnel', { period: 'all', trigger: 'manual' })), {
      changes: 8,
      skipped: 1,
      attempted: 1,
      found: 0,
      dropped: 0,
      posted: 0,
      previewed: 0,
      applied: 0,
    });
    const cost = await section('cost', { period: 'all' });
    // ten runs: seven AUTO finished or waiting, PR-7's second AUTO run, PR-8's manual one… and PR-6's cancelled one
    assert.equal(cost.total.runs, await db.db.run.count());
    assert.equal(cost.total.toolCalls, 9 + 21 + 9 + 3 + 40);
    assert.ok(Math.abs(cost.total.costUsd - (0.37 + 1.25 + 0.37)) < 1e-9);
    const quality = await section('quality', { period: 'all' });
    const categories = Object.fromEntries(quality.noFix.categories.map((c: { category: string; count: number }) => [c.category, c.count]));
    assert.equal(categories.green_not_reached, 1);
    assert.equal(categories.not_reproduced, 1);
    assert.equal(categories.budget_exhausted, 1);
    assert.equal(categories.cancelled, 1);
    assert.equal(quality.precision.overall.settled, 2);
    assert.equal(quality.precision.reviewersVsGraders.rejectedJudgedCorrect, 1);
    assert.deepEqual(quality.precision.reviewersVsGraders.rejectedCorrectByReason, [{ reason: 'WRONG_FIX', count: 1 }]);
    const latency = await section('latency', { period: 'all' });
    assert.equal(latency.developer.count, 1, 'PR-7 revision 1 was superseded');
    assert.equal(latency.fix.count, 3);
  });

  test('a raw row written past the writers shows as drift, and a refresh heals it', async () => {
    const run = await db.db.run.findFirstOrThrow({ where: { status: 'FIXED' } });
    await db.db.run.update({ where: { id: run.id }, data: { toolCalls: run.toolCalls + 1000 } });
    const { differences } = await verifyInsightsRollups({ db: db.db });
    assert.ok(
      differences.some((d) => d.key === 'toolCalls' && d.recomputed - d.stored === 1000),
      JSON.stringify(differences.slice(0, 5)),
    );
    await db.db.$transaction((tx) => refreshInsightsRollups({ tx, changeIds: [run.changeId] }));
    await assertNoDrift();
  });

  test('concurrent writers of the same rollup rows lose no count', async () => {
    const today = new Date().toISOString().slice(0, 10);
    // the rows over every repository, one per author kind: the rows every writer below adds to
    const all = async () =>
      Number(
        (
          await db.db.$queryRawUnsafe<Array<{ changes: number | null }>>(
            `SELECT sum(changes)::int AS changes FROM "InsightsCohortDay" WHERE "repositoryId" = $1 AND day = $2::date`,
            ALL,
            today,
          )
        )[0]?.changes ?? 0,
      );
    const before = await all();
    const writers = 8;
    // on PostgreSQL every writer holds its transaction open until all have
    // written their change, so all of them refresh the same '*' rows at once
    // (PGlite runs one transaction at a time: no barrier there)
    const concurrent = db.target.kind === 'postgres';
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const repos = [seeded.repositoryId, seeded.otherRepositoryId];
    await Promise.all(
      Array.from({ length: writers }, (_, i) =>
        db.db.$transaction(
          async (tx) => {
            const change = await tx.change.create({
              data: {
                repositoryId: repos[i % 2]!,
                externalId: `RACE-${i}`,
                title: 'race',
                author: i % 4 < 2 ? 'Ada' : 'bot[bot]',
                authorKind: i % 4 < 2 ? 'HUMAN' : 'BOT',
                branch: 'race',
                baseRev: 'a'.repeat(40),
                headRev: 'b'.repeat(40),
              },
            });
            if (concurrent && ++arrived === writers) release();
            if (concurrent) await barrier;
            await refreshInsightsRollups({ tx, changeIds: [change.id] });
          },
          { timeout: 60_000, maxWait: 60_000 },
        ),
      ),
    );
    assert.equal(await all(), before + writers);
    await assertNoDrift();
  });
});

describe('building the rollups of an existing database', () => {
  test('once, and again when the definition changes (ROLLUP_VERSION)', async () => {
    // rows emptied as if the tables were new, while the raw rows stay
    await db.db.$executeRawUnsafe('DELETE FROM "InsightsCohortDay"');
    await db.db.$executeRawUnsafe('DELETE FROM "InsightsRunDay"');
    await db.db.$executeRawUnsafe('DELETE FROM "InsightsPrecisionDay"');
    assert.ok((await verifyInsightsRollups({ db: db.db })).differences.length > 0);
    assert.equal((await ensureInsightsRollups({ db: db.db })).rebuilt, true);
    await assertNoDrift();
    assert.equal((await ensureInsightsRollups({ db: db.db })).rebuilt, false, 'built already');
    await db.db.systemSetting.update({ where: { key: 'insightsRollups' }, data: { value: { version: ROLLUP_VERSION - 1 } } });
    assert.equal((await ensureInsightsRollups({ db: db.db })).rebuilt, true, 'an older definition');
    await assertNoDrift();
  });
});

describe('a period that starts or ends inside a day', () => {
  // Changes written straight into the tables on two days (then rolled up),
  // each with one run of `toolCalls` tool calls, two with a settled fix. The
  // Insights presets are whole days, but the reader takes any instants (the
  // grading page's precision does): each period below cuts a day so that its
  // part is read from the raw rows, or the day's rollup row is read and the
  // part outside subtracted, whichever holds fewer changes.
  const DAY_A = '2026-03-10';
  const DAY_B = '2026-03-17';
  const CHANGES = [
    { at: `${DAY_A}T02:00:00Z`, toolCalls: 1 },
    { at: `${DAY_A}T05:00:00Z`, toolCalls: 2, settled: 'CORRECT' as const },
    { at: `${DAY_A}T20:00:00Z`, toolCalls: 4 },
    { at: `${DAY_A}T22:00:00Z`, toolCalls: 8 },
    { at: `${DAY_B}T01:00:00Z`, toolCalls: 16 },
    { at: `${DAY_B}T20:00:00Z`, toolCalls: 32, settled: 'INCORRECT' as const },
    { at: `${DAY_B}T23:00:00Z`, toolCalls: 48 },
  ];
  let repositoryId: string;

  before(async () => {
    repositoryId = (await db.db.repository.create({ data: { name: 'edges', gitUrl: '/srv/edges.git' } })).id;
    const settler = await db.db.user.create({ data: { email: 'settler@example.test', name: 'Sam', roles: ['MANAGER'] } });
    for (const [i, c] of CHANGES.entries()) {
      const at = new Date(c.at);
      const change = await db.db.change.create({
        data: {
          repositoryId,
          externalId: `E${i}`,
          title: 'e',
          author: 'Ada',
          branch: 'e',
          baseRev: 'a'.repeat(40),
          headRev: 'b'.repeat(40),
          createdAt: at,
          status: 'NO_FIX',
        },
      });
      const revision = await db.db.changeRevision.create({
        data: { changeId: change.id, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: 'e', createdAt: at },
      });
      const run = await db.db.run.create({
        data: {
          changeId: change.id,
          revisionId: revision.id,
          policy: 'offline',
          status: c.settled ? 'FIXED' : 'NO_FIX',
          exitReason: c.settled ? 'fixed' : 'no_candidate',
          toolCalls: c.toolCalls,
          createdAt: at,
          finishedAt: at,
        },
      });
      if (c.settled) {
        const fix = await db.db.fix.create({
          data: { runId: run.id, changeId: change.id, revisionId: revision.id, diff: 'd', files: ['a'], createdAt: new Date(at.getTime() + 10 * 60_000) },
        });
        await db.db.consensus.create({ data: { fixId: fix.id, label: c.settled, settledById: settler.id } });
      }
    }
    await rebuildInsightsRollups({ db: db.db, from: DAY_A, to: DAY_B });
  });

  async function figures(from: Date, to: Date) {
    const scope: InsightsScope = { from, to, repositoryId, authorKind: undefined, policy: undefined, model: undefined, trigger: undefined, bucket: 'day' };
    return withInsightsSnapshot(db.db, async (tx) => {
      const reader = new InsightsReader(tx, { from, to });
      const [f, c, [p]] = await Promise.all([funnel({ scope, reader }), cost({ scope, reader }), precision({ from, to, repositoryId }, undefined, { reader })]);
      return { changes: f.steps[0]!.count, runs: c.total.runs, toolCalls: c.total.toolCalls, p50ToolCalls: c.total.p50ToolCalls, settled: p!.settled };
    });
  }

  function expected(from: Date, to: Date) {
    const inside = CHANGES.filter((c) => Date.parse(c.at) >= from.getTime() && Date.parse(c.at) < to.getTime());
    const calls = inside.map((c) => c.toolCalls).sort((a, b) => a - b);
    const mid = (calls.length - 1) / 2;
    // settled fixes count by the fix's time, ten minutes after the change's
    const settled = CHANGES.filter((c) => c.settled && Date.parse(c.at) + 600_000 >= from.getTime() && Date.parse(c.at) + 600_000 < to.getTime());
    return {
      changes: inside.length,
      runs: inside.length,
      toolCalls: calls.reduce((s, n) => s + n, 0),
      // counts below 64 are their own buckets: the median is exact
      p50ToolCalls: calls.length ? (calls[Math.floor(mid)]! + calls[Math.ceil(mid)]!) / 2 : null,
      settled: settled.length,
    };
  }

  for (const [from, to, why] of [
    [`${DAY_A}T21:00:00Z`, `${DAY_B}T21:00:00Z`, 'A from 21:00 read raw (1 change against 3); B until 21:00 its row minus 21:00-24:00'],
    [`${DAY_A}T03:00:00Z`, `${DAY_B}T03:00:00Z`, "A's row minus 00:00-03:00; B's 00:00-03:00 raw"],
    [`${DAY_A}T01:00:00Z`, `${DAY_A}T21:00:00Z`, "within one day: A's row minus 00:00-01:00 and 21:00-24:00"],
    [`${DAY_A}T04:00:00Z`, `${DAY_A}T06:00:00Z`, 'within one day, read raw'],
    ['2026-03-11T00:00:00Z', '2026-03-18T00:00:00Z', 'whole days only'],
  ] as const) {
    test(`${from} to ${to}: ${why}`, async () => {
      const a = new Date(from);
      const b = new Date(to);
      assert.deepEqual(await figures(a, b), expected(a, b));
    });
  }
});
