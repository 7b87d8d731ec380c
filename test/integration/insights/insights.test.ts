import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { insightsSection } from '../../../lib/insights';
import { InsightsQuerySchema, type InsightsQuery } from '../../../common/insights-query';
import { GET as getInsights } from '../../../app/api/insights/[section]/route';
import { GET as getPrecision } from '../../../app/api/grading/precision/route';
import type { Prisma } from '../../../lib/generated/prisma/client';
import { wilson } from '../../../common/stats';
import { rebuildInsightsRollups } from '../../../lib/insights/rollup';

// A small history whose figures are computed by hand below, on PGlite and on
// PostgreSQL (FLOWFIX_TEST_DB). Twelve changes first fail in November 2026
// (one more in October, outside every period asked for):
//
//   C1 known_flaky, C2 bot_author (a bot), C3 known_flaky (repo-b): skipped
//   C4  offline  not_reproduced                          no fix
//   C5  llm/m1   fix 10 min   preview+accept (dashboard)  this week
//   C6  offline  fix 20 min   preview+edit-accept (CLI)   this week, + a re-validation run
//   C7  llm/m1   fix 30 min   preview+reject WRONG_FIX    repo-b
//   C8  llm/m1   fix 12 min   dropped: stale (revision superseded at 5 min)
//   C9  offline  fix 40 min   dropped: reverts_change
//   C10 llm/m1   no_candidate, reached GREEN             no fix
//   C11 offline  no_candidate, never reached GREEN       no fix, repo-b
//   C12 offline  fix 40 min   posted, never previewed
//
// funnel: 12 → 3 skipped → 9 attempted → 6 found → 2 dropped → 4 posted → 3 previewed → 2 applied

const NOW = new Date('2026-11-30T12:00:00Z');
const EARLY = Date.parse('2026-11-10T09:00:00Z'); // a Tuesday: week of 2026-11-09
const RECENT = Date.parse('2026-11-25T09:00:00Z'); // a Wednesday: week of 2026-11-23
const MIN = 60_000;
const NOVEMBER = { period: 'custom', from: '2026-11-01', to: '2026-11-30' } as const;

let db: TestDb;
let managerCookie: string;
let reviewerCookie: string;

function q(input: Record<string, string>): InsightsQuery {
  return InsightsQuerySchema.parse(input);
}

async function section(name: Parameters<typeof insightsSection>[0]['section'], input: Record<string, string> = NOVEMBER) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (await insightsSection({ section: name, query: q(input), now: NOW, db: db.db })).data as any;
}

interface RunSpec {
  policy: 'offline' | 'llm';
  toolCalls: number;
  prompt?: number;
  completion?: number;
  /** null: the model had no price */
  cost?: number | null;
  exit: string;
  phases?: Record<string, number>;
  greenGate?: boolean;
  trigger?: 'AUTO' | 'REVALIDATE';
}
interface FixSpec {
  minutes: number;
  status?: 'READY' | 'DROPPED' | 'APPLIED' | 'REJECTED';
  dropReason?: string;
  decisions?: Array<{ kind: 'PREVIEW' | 'ACCEPT' | 'EDIT_ACCEPT' | 'REJECT'; surface: 'DASHBOARD' | 'CLI' | 'API'; reason?: 'WRONG_FIX' }>;
  /** the graders' settled label */
  consensus?: 'CORRECT' | 'OVERFITTING' | 'INCORRECT' | 'IRRELEVANT';
}

let seq = 0;
async function addChange({
  repo,
  at,
  bot = false,
  skip,
  runs = [],
  fix,
  supersededAfterMin,
  reviewerId,
}: {
  repo: string;
  at: number;
  bot?: boolean;
  skip?: string;
  runs?: RunSpec[];
  fix?: FixSpec;
  supersededAfterMin?: number;
  reviewerId: string;
}): Promise<void> {
  const n = ++seq;
  const change = await db.db.change.create({
    data: {
      repositoryId: repo,
      externalId: `C${n}`,
      title: `change ${n}`,
      author: bot ? 'renovate[bot]' : 'Dana',
      authorKind: bot ? 'BOT' : 'HUMAN',
      branch: `b${n}`,
      baseRev: 'a'.repeat(40),
      headRev: 'b'.repeat(40),
      status: skip ? 'SKIPPED' : 'NO_FIX',
      statusReason: skip ?? null,
      createdAt: new Date(at),
      lastFailureAt: new Date(at),
    },
  });
  const revision = await db.db.changeRevision.create({
    data: {
      changeId: change.id,
      number: 1,
      baseRev: 'a'.repeat(40),
      headRev: 'b'.repeat(40),
      branch: `b${n}`,
      createdAt: new Date(at),
      supersededAt: supersededAfterMin === undefined ? null : new Date(at + supersededAfterMin * MIN),
    },
  });
  if (supersededAfterMin !== undefined) {
    await db.db.changeRevision.create({
      data: {
        changeId: change.id,
        number: 2,
        baseRev: 'a'.repeat(40),
        headRev: 'c'.repeat(40),
        branch: `b${n}`,
        createdAt: new Date(at + supersededAfterMin * MIN),
      },
    });
  }
  for (const [i, spec] of runs.entries()) {
    const run = await db.db.run.create({
      data: {
        changeId: change.id,
        revisionId: revision.id,
        trigger: spec.trigger ?? 'AUTO',
        policy: spec.policy,
        model: spec.policy === 'llm' ? 'm1' : null,
        status: spec.exit === 'fixed' ? 'FIXED' : 'NO_FIX',
        exitReason: spec.exit,
        phaseTimings: spec.phases ?? {},
        toolCalls: spec.toolCalls,
        promptTokens: spec.prompt ?? 0,
        completionTokens: spec.completion ?? 0,
        costUsd: spec.cost === undefined ? 0 : spec.cost,
        createdAt: new Date(at + MIN),
        startedAt: new Date(at + MIN),
        finishedAt: new Date(at + 9 * MIN),
      },
    });
    if (spec.greenGate) {
      await db.db.runEvent.create({ data: { runId: run.id, seq: 0, type: 'gate', payload: { gate: 'green', passed: false } } });
    }
    if (i === 0 && fix) {
      const created = await db.db.fix.create({
        data: {
          runId: run.id,
          changeId: change.id,
          revisionId: revision.id,
          diff: 'diff',
          files: ['a.ts'],
          status: fix.status ?? 'READY',
          dropReason: fix.dropReason ?? null,
          createdAt: new Date(at + fix.minutes * MIN),
        },
      });
      const decisions: Prisma.DecisionCreateManyInput[] = (fix.decisions ?? []).map((d, j) => ({
        fixId: created.id,
        userId: reviewerId,
        kind: d.kind,
        surface: d.surface,
        reason: d.reason ?? null,
        createdAt: new Date(at + (fix.minutes + 5 + j) * MIN),
      }));
      if (decisions.length) await db.db.decision.createMany({ data: decisions });
      if (fix.consensus) {
        await db.db.consensus.create({ data: { fixId: created.id, label: fix.consensus, settledById: reviewerId, settledAt: new Date(at + 3 * 60 * MIN) } });
      }
    }
  }
}

before(async () => {
  db = await createTestDb();
  const a = (await db.db.repository.create({ data: { name: 'repo-a', gitUrl: '/srv/a.git' } })).id;
  const b = (await db.db.repository.create({ data: { name: 'repo-b', gitUrl: '/srv/b.git' } })).id;
  const reviewer = await db.db.user.create({ data: { email: 'r@example.test', name: 'Rae', roles: ['REVIEWER'] } });
  const manager = await db.db.user.create({ data: { email: 'm@example.test', name: 'Max', roles: ['MANAGER'] } });
  managerCookie = await sessionCookie(manager);
  reviewerCookie = await sessionCookie(reviewer);
  const r = reviewer.id;
  const llm = (toolCalls: number, prompt: number, completion: number, cost: number, exit: string, extra: Partial<RunSpec> = {}): RunSpec => ({
    policy: 'llm',
    toolCalls,
    prompt,
    completion,
    cost,
    exit,
    ...extra,
  });
  const offline = (toolCalls: number, exit: string, extra: Partial<RunSpec> = {}): RunSpec => ({ policy: 'offline', toolCalls, exit, ...extra });

  await addChange({ repo: a, at: EARLY, skip: 'known_flaky', reviewerId: r }); // C1
  await addChange({ repo: a, at: EARLY + MIN, bot: true, skip: 'bot_author', reviewerId: r }); // C2
  await addChange({ repo: b, at: EARLY + 2 * MIN, skip: 'known_flaky', reviewerId: r }); // C3
  await addChange({ repo: a, at: EARLY + 3 * MIN, runs: [offline(4, 'not_reproduced')], reviewerId: r }); // C4
  await addChange({
    repo: a,
    at: RECENT,
    runs: [llm(10, 1000, 100, 0.5, 'fixed', { phases: { setup: 1000, red: 2000 } })],
    fix: {
      minutes: 10,
      status: 'APPLIED',
      decisions: [
        { kind: 'PREVIEW', surface: 'DASHBOARD' },
        { kind: 'ACCEPT', surface: 'DASHBOARD' },
      ],
      consensus: 'CORRECT',
    },
    reviewerId: r,
  }); // C5
  await addChange({
    repo: b,
    at: RECENT + MIN,
    runs: [offline(6, 'fixed', { phases: { setup: 3000, red: 4000 } }), offline(1, 'fixed', { trigger: 'REVALIDATE' })],
    fix: {
      minutes: 20,
      status: 'APPLIED',
      decisions: [
        { kind: 'PREVIEW', surface: 'CLI' },
        { kind: 'EDIT_ACCEPT', surface: 'CLI' },
      ],
      consensus: 'CORRECT',
    },
    reviewerId: r,
  }); // C6
  await addChange({
    repo: b,
    at: EARLY + 4 * MIN,
    runs: [llm(20, 3000, 300, 1.5, 'fixed')],
    fix: {
      minutes: 30,
      status: 'REJECTED',
      decisions: [
        { kind: 'PREVIEW', surface: 'DASHBOARD' },
        { kind: 'REJECT', surface: 'DASHBOARD', reason: 'WRONG_FIX' },
      ],
      consensus: 'INCORRECT',
    },
    reviewerId: r,
  }); // C7
  await addChange({
    repo: a,
    at: EARLY + 5 * MIN,
    runs: [llm(14, 2000, 200, 1.0, 'dropped:stale')],
    fix: { minutes: 12, status: 'DROPPED', dropReason: 'stale' },
    supersededAfterMin: 5,
    reviewerId: r,
  }); // C8
  await addChange({
    repo: a,
    at: EARLY + 6 * MIN,
    runs: [offline(2, 'dropped:reverts_change')],
    fix: { minutes: 40, status: 'DROPPED', dropReason: 'reverts_change' },
    reviewerId: r,
  }); // C9
  await addChange({ repo: a, at: EARLY + 7 * MIN, runs: [llm(8, 500, 50, 0.25, 'no_candidate', { greenGate: true })], reviewerId: r }); // C10
  await addChange({ repo: b, at: EARLY + 8 * MIN, runs: [offline(5, 'no_candidate')], reviewerId: r }); // C11
  await addChange({ repo: a, at: EARLY + 9 * MIN, runs: [offline(3, 'fixed')], fix: { minutes: 40 }, reviewerId: r }); // C12
  // October: outside every period below
  await addChange({
    repo: a,
    at: Date.parse('2026-10-01T09:00:00Z'),
    runs: [llm(50, 9000, 900, 9, 'fixed')],
    fix: { minutes: 3, status: 'APPLIED', decisions: [{ kind: 'ACCEPT', surface: 'API' }] },
    reviewerId: r,
  });
  // the history above is written straight into the tables, past the writers: the rollups are built from it
  await rebuildInsightsRollups({ db: db.db });
});

after(async () => {
  await db?.drop();
});

function steps(f: { steps: Array<{ key: string; count: number; retention: number | null }> }) {
  return Object.fromEntries(f.steps.map((s) => [s.key, s.count]));
}

function assertNoNaN(value: unknown, path = 'result'): void {
  if (typeof value === 'number') assert.ok(Number.isFinite(value), `${path} is ${value}`);
  else if (Array.isArray(value)) value.forEach((v, i) => assertNoNaN(v, `${path}[${i}]`));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) assertNoNaN(v, `${path}.${k}`);
}

describe('funnel', () => {
  test('counts every step and reason of the period, with retention against the step before', async () => {
    const f = await section('funnel');
    assert.deepEqual(steps(f), { changes: 12, skipped: 3, attempted: 9, found: 6, dropped: 2, posted: 4, previewed: 3, applied: 2 });
    const byKey = Object.fromEntries(f.steps.map((s: { key: string }) => [s.key, s]));
    assert.equal(byKey.skipped.retention, 3 / 12);
    assert.equal(byKey.attempted.retention, 9 / 12);
    assert.equal(byKey.found.retention, 6 / 9);
    assert.equal(byKey.dropped.retention, 2 / 6);
    assert.equal(byKey.posted.retention, 4 / 6);
    assert.equal(byKey.previewed.retention, 3 / 4);
    assert.equal(byKey.applied.retention, 2 / 3);
    assert.equal(byKey.applied.ofChanges, 2 / 12);
    assert.deepEqual(byKey.skipped.reasons, [
      { reason: 'known_flaky', count: 2, share: 2 / 3 },
      { reason: 'bot_author', count: 1, share: 1 / 3 },
    ]);
    assert.deepEqual(byKey.dropped.reasons, [
      { reason: 'reverts_change', count: 1, share: 0.5 },
      { reason: 'stale', count: 1, share: 0.5 },
    ]);
    assert.equal(f.notAttempted, 0);
  });

  test('all time includes October; a repository, a policy and bot authors narrow it', async () => {
    assert.deepEqual(steps(await section('funnel', { period: 'all' })), {
      changes: 13,
      skipped: 3,
      attempted: 10,
      found: 7,
      dropped: 2,
      posted: 5,
      previewed: 4,
      applied: 3,
    });
    assert.deepEqual(steps(await section('funnel', { ...NOVEMBER, repo: 'repo-b' })), {
      changes: 4,
      skipped: 1,
      attempted: 3,
      found: 2,
      dropped: 0,
      posted: 2,
      previewed: 2,
      applied: 1,
    });
    assert.deepEqual(steps(await section('funnel', { ...NOVEMBER, policy: 'llm' })), {
      changes: 12,
      skipped: 3,
      attempted: 4,
      found: 3,
      dropped: 1,
      posted: 2,
      previewed: 2,
      applied: 1,
    });
    assert.deepEqual(steps(await section('funnel', { ...NOVEMBER, author: 'bot' })), {
      changes: 1,
      skipped: 1,
      attempted: 0,
      found: 0,
      dropped: 0,
      posted: 0,
      previewed: 0,
      applied: 0,
    });
    assert.equal(steps(await section('funnel', { ...NOVEMBER, repo: 'no-such-repo' })).changes, 0);
  });
});

describe('adoption', () => {
  test('per surface, per kind, per repository and per week', async () => {
    const a = await section('adoption');
    assert.equal(a.posted, 4);
    assert.deepEqual(a.surfaces, [
      { surface: 'DASHBOARD', previewed: 2, applied: 1, applyPerPreview: 0.5, applyPerPosted: 0.25 },
      { surface: 'CODE_REVIEW', previewed: 0, applied: 0, applyPerPreview: null, applyPerPosted: 0 },
      { surface: 'CLI', previewed: 1, applied: 1, applyPerPreview: 1, applyPerPosted: 0.25 },
      { surface: 'IDE', previewed: 0, applied: 0, applyPerPreview: null, applyPerPosted: 0 },
      { surface: 'API', previewed: 0, applied: 0, applyPerPreview: null, applyPerPosted: 0 },
    ]);
    assert.deepEqual(a.decisions, { accept: 1, editAccept: 1, reject: 1 });
    // every week of November (from the week of Sunday the 1st), none left out
    const weeks = ['2026-10-26', '2026-11-02', '2026-11-09', '2026-11-16', '2026-11-23', '2026-11-30'].map((d) => `${d}T00:00:00.000Z`);
    assert.deepEqual(
      a.rejectReasons,
      weeks.map((bucket) => ({ bucket, reasons: bucket.startsWith('2026-11-09') ? { WRONG_FIX: 1 } : {} })),
    );
    assert.deepEqual(a.repositories, [
      { repository: 'repo-a', posted: 2, previewed: 1, applied: 1, rejected: 0, applyPerPreview: 1, applyPerPosted: 0.5 },
      { repository: 'repo-b', posted: 2, previewed: 2, applied: 1, rejected: 1, applyPerPreview: 0.5, applyPerPosted: 0.5 },
    ]);
    const none = { posted: 0, previewed: 0, applied: 0, rejected: 0, applyPerPreview: null, applyPerPosted: null };
    assert.deepEqual(a.trend, [
      { bucket: weeks[0], ...none },
      { bucket: weeks[1], ...none },
      { bucket: '2026-11-09T00:00:00.000Z', posted: 2, previewed: 1, applied: 0, rejected: 1, applyPerPreview: 0, applyPerPosted: 0 },
      { bucket: weeks[3], ...none },
      { bucket: '2026-11-23T00:00:00.000Z', posted: 2, previewed: 2, applied: 2, rejected: 0, applyPerPreview: 1, applyPerPosted: 1 },
      { bucket: weeks[5], ...none },
    ]);
  });

  test('daily buckets: every day of the period, zero where nothing was posted', async () => {
    const a = await section('adoption', { ...NOVEMBER, bucket: 'day' });
    const days = Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}T00:00:00.000Z`);
    assert.deepEqual(
      a.trend.map((t: { bucket: string; posted: number }) => [t.bucket, t.posted]),
      days.map((d) => [d, d.startsWith('2026-11-10') || d.startsWith('2026-11-25') ? 2 : 0]),
    );
    // the cost trend has the same axis
    const c = await section('cost', { ...NOVEMBER, bucket: 'day' });
    assert.deepEqual(
      c.trend.map((t: { bucket: string }) => t.bucket),
      days,
    );
    assert.deepEqual(c.trend[0], { bucket: days[0], runs: 0, costUsd: 0, posted: 0, applied: 0, costPerApplied: null });
  });
});

describe('latency', () => {
  // Percentiles are percentile_cont over the values' histogram buckets (lib/insights/histogram.ts):
  // a value v ≥ 64 (ms) lies in [2^e, 2^(e+1)), cut in 32 buckets of width 2^(e-5), and
  // stands for its bucket's middle. By hand:
  //   10 min =   600,000 ms: e 19, width 16,384, bucket 36 × 16,384 =   589,824, middle   598,016
  //   20 min = 1,200,000 ms: e 20, width 32,768, bucket 36 × 32,768 = 1,179,648, middle 1,196,032
  //   30 min = 1,800,000 ms: e 20, width 32,768, bucket 54 × 32,768 = 1,769,472, middle 1,785,856
  //   40 min = 2,400,000 ms: e 21, width 65,536, bucket 36 × 65,536 = 2,359,296, middle 2,392,064
  //    5 min =   300,000 ms: e 18, width  8,192, bucket 36 ×  8,192 =   294,912, middle   299,008
  //   setup 1,000 ms → bucket 992 (width 16), 1,000; 3,000 ms → 2,944 (width 64), 2,976
  //   red   2,000 ms → bucket 1,984 (width 32), 2,000; 4,000 ms → 3,968 (width 64), 4,000
  const minutes = (ms: number) => ms / 60_000;
  const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

  test('percentiles by linear interpolation over the histogram, the CDF, stale share and phase times', async () => {
    const l = await section('latency');
    // posted fixes at 10, 20, 30, 40 minutes: ranks 0…3
    assert.equal(l.fix.count, 4);
    close(l.fix.p10, minutes(598_016 + 0.3 * (1_196_032 - 598_016))); // rank 0.3
    close(l.fix.p25, minutes(598_016 + 0.75 * (1_196_032 - 598_016))); // rank 0.75
    close(l.fix.p50, minutes((1_196_032 + 1_785_856) / 2)); // rank 1.5: 24.849 min
    close(l.fix.p90, minutes(1_785_856 + 0.7 * (2_392_064 - 1_785_856))); // rank 2.7
    assert.equal(l.fix.cdf.length, 21);
    assert.deepEqual(l.fix.cdf[0], { share: 0, minutes: minutes(598_016) });
    assert.deepEqual(l.fix.cdf[20], { share: 1, minutes: minutes(2_392_064) });
    close(l.fix.cdf[10].minutes, l.fix.p50);
    // the developer pushed a new revision of C8 after 5 minutes
    assert.equal(l.developer.count, 1);
    close(l.developer.p50, minutes(299_008));
    assert.deepEqual(l.stale, { count: 1, found: 6, share: 1 / 6 });
    const setup = l.phases.find((p: { phase: string }) => p.phase === 'setup');
    assert.deepEqual(setup, { phase: 'setup', runs: 2, p50Ms: (1000 + 2976) / 2, p90Ms: 1000 + 0.9 * (2976 - 1000) });
    const red = l.phases.find((p: { phase: string }) => p.phase === 'red');
    assert.deepEqual(red, { phase: 'red', runs: 2, p50Ms: 3000, p90Ms: 3800 });
    const patch = l.phases.find((p: { phase: string }) => p.phase === 'patch');
    assert.deepEqual(patch, { phase: 'patch', runs: 0, p50Ms: null, p90Ms: null });
  });
});

describe('effort and cost', () => {
  test('totals, per posted and applied fix, by policy and model, the zero-cost share', async () => {
    const c = await section('cost');
    // nine repair runs and one re-validation run
    assert.equal(c.total.runs, 10);
    assert.equal(c.total.toolCalls, 73);
    assert.equal(c.total.tokens, 7150);
    assert.ok(Math.abs(c.total.costUsd - 3.25) < 1e-9);
    assert.equal(c.total.posted, 4);
    assert.equal(c.total.applied, 2);
    assert.ok(Math.abs(c.total.costPerPosted - 0.8125) < 1e-9);
    assert.ok(Math.abs(c.total.costPerApplied - 1.625) < 1e-9);
    assert.ok(Math.abs(c.total.costPerRun - 0.325) < 1e-9);
    assert.equal(c.total.toolCallsPerRun, 7.3);
    assert.equal(c.total.toolCallsPerApplied, 36.5);
    assert.equal(c.total.tokensPerPosted, 7150 / 4);
    assert.deepEqual(c.zeroCost, { posted: 2, share: 0.5 });
    const llm = c.byPolicyModel.find((g: { policy: string }) => g.policy === 'llm');
    assert.equal(llm.model, 'm1');
    assert.equal(llm.runs, 4);
    assert.equal(llm.toolCalls, 52);
    assert.equal(llm.posted, 2);
    assert.equal(llm.applied, 1);
    assert.ok(Math.abs(llm.costPerApplied - 3.25) < 1e-9);
    const offline = c.byPolicyModel.find((g: { policy: string }) => g.policy === 'offline');
    assert.equal(offline.model, null);
    assert.equal(offline.runs, 6);
    assert.equal(offline.costUsd, 0);
    assert.equal(offline.costPerApplied, 0);
  });
});

describe('quality', () => {
  test('why runs produced no fix', async () => {
    const { noFix } = await section('quality');
    assert.equal(noFix.finishedRuns, 9);
    assert.equal(noFix.noFixRuns, 3);
    const byCategory = Object.fromEntries(noFix.categories.map((c: { category: string; count: number }) => [c.category, c.count]));
    assert.equal(byCategory.not_reproduced, 1);
    assert.equal(byCategory.green_not_reached, 1);
    assert.equal(byCategory.compile_rejected, 1);
    assert.equal(byCategory.budget_exhausted, 0);
    assert.equal(noFix.categories.find((c: { category: string }) => c.category === 'not_reproduced').share, 1 / 3);
  });

  test('precision from the settled labels, with Wilson intervals, per repository', async () => {
    const { precision } = await section('quality');
    // C5 and C6 correct, C7 incorrect
    assert.equal(precision.overall.settled, 3);
    assert.equal(precision.overall.correct.count, 2);
    assert.equal(precision.overall.correct.share, 2 / 3);
    const interval = wilson(2, 3)!;
    assert.equal(precision.overall.correct.low, interval.low);
    assert.equal(precision.overall.correct.high, interval.high);
    assert.equal(precision.overall.incorrect.count, 1);
    assert.deepEqual(
      precision.byRepository
        .map((r: { label: string; settled: number; correct: { count: number } }) => [r.label, r.settled, r.correct.count])
        .sort((x: string[], y: string[]) => x[0].localeCompare(y[0])),
      [
        ['repo-a', 1, 1],
        ['repo-b', 2, 1],
      ],
    );
    const { precision: none } = await section('quality', { ...NOVEMBER, repo: 'no-such-repo' });
    assert.equal(none.overall.settled, 0);
    assert.equal(none.overall.correct.share, null);
  });
});

describe('overview', () => {
  test('the last 7 days against the 7 days before', async () => {
    const o = await section('overview', { period: '7d' });
    assert.equal(o.days, 7);
    assert.equal(o.current.fixesPosted, 2);
    assert.equal(o.current.applyRate, 1);
    // C5 (10 min) and C6 (20 min): the middles of their buckets, 598,016 and 1,196,032 ms (see latency)
    assert.ok(Math.abs(o.current.p50LatencyMinutes - (598_016 + 1_196_032) / 2 / 60_000) < 1e-9, String(o.current.p50LatencyMinutes));
    // C5's run (0.5) and C6's two offline runs (0) for two applied fixes
    assert.ok(Math.abs(o.current.costPerApplied - 0.25) < 1e-9);
    assert.equal(o.previous.fixesPosted, 0);
    assert.equal(o.previous.applyRate, null);
    assert.equal(o.previous.p50LatencyMinutes, null);
    assert.equal(o.previous.costPerApplied, null);
    assert.equal(o.current.precision.settled, 2);
    assert.equal(o.current.precision.share, 1);
    assert.equal(o.previous.precision.share, null);
  });

  test("honours the period it shows: its figures are the funnel's for that period, against as many days before it", async () => {
    const o = await section('overview', NOVEMBER);
    assert.equal(o.current.from, '2026-11-01T00:00:00.000Z');
    assert.equal(o.current.to, '2026-12-01T00:00:00.000Z');
    assert.equal(o.days, 30);
    assert.deepEqual([o.previous.from, o.previous.to], ['2026-10-02T00:00:00.000Z', '2026-11-01T00:00:00.000Z']);
    const f = steps(await section('funnel', NOVEMBER));
    assert.equal(o.current.fixesPosted, f.posted);
    assert.equal(o.current.applyRate, f.applied / f.posted);
    // C5, C6 correct and C7 incorrect: every settled fix of November, with its interval
    assert.equal(o.current.precision.settled, 3);
    assert.deepEqual([o.current.precision.low, o.current.precision.high], [wilson(2, 3)!.low, wilson(2, 3)!.high]);
    // the apply rate is a share too: 2 applied of 4 posted
    assert.deepEqual([o.current.applyInterval.low, o.current.applyInterval.high], [wilson(2, 4)!.low, wilson(2, 4)!.high]);
    // all time has nothing before it to compare with
    const all = await section('overview', { period: 'all' });
    assert.equal(all.previous, null);
    assert.equal(all.current.fixesPosted, 5);
  });
});

describe('effort and cost beside quality', () => {
  test('count the same repair runs; re-validations of edited fixes are counted apart, in cost only', async () => {
    const [c, { noFix }] = await Promise.all([section('cost'), section('quality')]);
    assert.equal(c.total.runs, 10);
    assert.deepEqual(c.total.byTrigger, { repair: 9, revalidation: 1 });
    assert.equal(noFix.runs, c.total.byTrigger.repair);
    assert.equal(noFix.finishedRuns, 9);
    // a trigger asked for: both sections count those runs alone
    const reval = await section('cost', { ...NOVEMBER, trigger: 'revalidate' });
    assert.deepEqual(reval.total.byTrigger, { repair: 0, revalidation: 1 });
  });
});

describe('a period with no data', () => {
  test('says so with nulls, never NaN or 0%', async () => {
    const empty = { period: 'custom', from: '2025-01-01', to: '2025-01-31' };
    for (const name of ['funnel', 'adoption', 'latency', 'cost', 'quality', 'overview'] as const) assertNoNaN(await section(name, empty), name);
    const f = await section('funnel', empty);
    assert.ok(f.steps.every((s: { count: number }) => s.count === 0));
    assert.ok(f.steps.every((s: { retention: number | null }) => s.retention === null));
    const l = await section('latency', empty);
    assert.equal(l.fix.p50, null);
    assert.deepEqual(l.fix.cdf, []);
    assert.equal(l.stale.share, null);
    const c = await section('cost', empty);
    assert.equal(c.total.costPerApplied, null);
    assert.equal(c.total.costPerRun, null);
    assert.equal(c.zeroCost.share, null);
    const a = await section('adoption', empty);
    assert.ok(
      a.surfaces.every((s: { applyPerPreview: number | null; applyPerPosted: number | null }) => s.applyPerPreview === null && s.applyPerPosted === null),
    );
  });
});

describe('GET /api/insights/[section]', () => {
  test('answers a manager with the section for the URL filter, in UTC', async () => {
    const res = await callRoute({
      handler: getInsights,
      url: '/api/insights/funnel?period=custom&from=2026-11-01&to=2026-11-30&repo=repo-b',
      cookie: managerCookie,
      params: { section: 'funnel' },
    });
    assert.equal(res.status, 200);
    const body = res.json as { period: { from: string; to: string }; data: { steps: Array<{ key: string; count: number }> } };
    assert.deepEqual(body.period, { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' });
    assert.equal(body.data.steps[0].count, 4);
  });

  test('refuses a reviewer (403), an unknown section (404) and a bad filter (422)', async () => {
    const forbidden = await callRoute({ handler: getInsights, url: '/api/insights/funnel', cookie: reviewerCookie, params: { section: 'funnel' } });
    assert.equal(forbidden.status, 403);
    const unknown = await callRoute({ handler: getInsights, url: '/api/insights/nope', cookie: managerCookie, params: { section: 'nope' } });
    assert.equal(unknown.status, 404);
    const bad = await callRoute({
      handler: getInsights,
      url: '/api/insights/funnel?period=custom&from=2026-12-01&to=2026-11-01',
      cookie: managerCookie,
      params: { section: 'funnel' },
    });
    assert.equal(bad.status, 422);
  });
});

describe('a run whose model had no price', () => {
  test('its cost is unknown: counted apart, left out of the sums, and its fix is not a zero-cost one', async () => {
    const c = (await db.db.repository.create({ data: { name: 'repo-c', gitUrl: '/srv/c.git' } })).id;
    const reviewerId = (await db.db.user.findFirstOrThrow({ where: { email: 'r@example.test' } })).id;
    const at = Date.parse('2026-09-08T09:00:00Z');
    await addChange({
      repo: c,
      at,
      runs: [{ policy: 'llm', toolCalls: 7, prompt: 100, completion: 10, cost: null, exit: 'fixed' }],
      fix: { minutes: 9 },
      reviewerId,
    });
    await addChange({ repo: c, at: at + MIN, runs: [{ policy: 'llm', toolCalls: 3, cost: 0.4, exit: 'no_candidate' }], reviewerId });
    await rebuildInsightsRollups({ db: db.db });
    const cost = await section('cost', { period: 'custom', from: '2026-09-01', to: '2026-09-30', repo: 'repo-c' });
    assert.equal(cost.total.runs, 2);
    assert.equal(cost.total.unpricedRuns, 1);
    assert.ok(Math.abs(cost.total.costUsd - 0.4) < 1e-9);
    assert.equal(cost.total.posted, 1);
    assert.deepEqual(cost.zeroCost, { posted: 0, share: 0 });
    assert.equal(cost.byPolicyModel.length, 1);
    assert.equal(cost.byPolicyModel[0].unpricedRuns, 1);
  });
});

describe('overview at a fixed clock', () => {
  test('the 7d period: it includes today up to now, so a fix posted and applied today counts', async () => {
    const repo = (await db.db.repository.create({ data: { name: 'repo-today', gitUrl: '/srv/today.git' } })).id;
    const reviewerId = (await db.db.user.findFirstOrThrow({ where: { email: 'r@example.test' } })).id;
    // 09:00 today (NOW is 12:00): fix at 09:10, preview and accept at 09:15 and 09:16
    await addChange({
      repo,
      at: Date.parse('2026-11-30T09:00:00Z'),
      runs: [{ policy: 'offline', toolCalls: 2, exit: 'fixed' }],
      fix: {
        minutes: 10,
        status: 'APPLIED',
        decisions: [
          { kind: 'PREVIEW', surface: 'DASHBOARD' },
          { kind: 'ACCEPT', surface: 'DASHBOARD' },
        ],
      },
      reviewerId,
    });
    await rebuildInsightsRollups({ db: db.db });
    const o = await section('overview', { period: '7d', repo: 'repo-today' });
    assert.equal(o.current.to, NOW.toISOString());
    assert.equal(o.current.from, '2026-11-24T00:00:00.000Z');
    assert.equal(o.previous.from, '2026-11-17T00:00:00.000Z');
    assert.equal(o.previous.to, '2026-11-24T00:00:00.000Z');
    assert.equal(o.current.fixesPosted, 1);
    assert.equal(o.current.applyRate, 1);
    // the same figure as the funnel's for period=7d
    const f = await section('funnel', { period: '7d', repo: 'repo-today' });
    assert.equal(steps(f).posted, 1);
    assert.equal(steps(f).applied, 1);
    // an hour before the change, it is not there yet
    const before = (
      await insightsSection({ section: 'overview', query: q({ period: '7d', repo: 'repo-today' }), now: new Date('2026-11-30T08:00:00Z'), db: db.db })
    ).data as { current: { fixesPosted: number } };
    assert.equal(before.current.fixesPosted, 0);
  });
});

describe('where the settled fixes come from', () => {
  test('each settled fix is named by its source: the newest grading queue holding it, the demo history, or no queue; they add up to the settled count', async () => {
    const repo = (await db.db.repository.create({ data: { name: 'repo-sources', gitUrl: '/srv/sources.git' } })).id;
    const reviewerId = (await db.db.user.findFirstOrThrow({ where: { email: 'r@example.test' } })).id;
    const at = Date.parse('2026-08-11T09:00:00Z');
    for (let i = 0; i < 4; i++) {
      await addChange({
        repo,
        at: at + i * MIN,
        runs: [{ policy: 'offline', toolCalls: 1, exit: 'fixed' }],
        fix: { minutes: 5, consensus: i === 3 ? 'INCORRECT' : 'CORRECT' },
        reviewerId,
      });
    }
    // unsettled: counts nowhere
    await addChange({ repo, at: at + 9 * MIN, runs: [{ policy: 'offline', toolCalls: 1, exit: 'fixed' }], fix: { minutes: 5 }, reviewerId });
    const fixes = await db.db.fix.findMany({ where: { change: { repositoryId: repo } }, orderBy: { createdAt: 'asc' }, select: { id: true, changeId: true } });
    const [inQ1, history, inBoth, outside] = fixes;
    await db.db.change.update({ where: { id: history!.changeId }, data: { origin: 'DEMO_HISTORY' } });
    const q1 = await db.db.gradingQueue.create({ data: { name: 'Older queue', createdById: reviewerId, createdAt: new Date(at + 60 * MIN) } });
    const q2 = await db.db.gradingQueue.create({ data: { name: 'Newer queue', createdById: reviewerId, createdAt: new Date(at + 120 * MIN) } });
    await db.db.gradingItem.createMany({
      data: [
        { queueId: q1.id, fixId: inQ1!.id, position: 0 },
        { queueId: q1.id, fixId: inBoth!.id, position: 1 },
        { queueId: q2.id, fixId: inBoth!.id, position: 0 },
        { queueId: q2.id, fixId: fixes[4]!.id, position: 1 },
      ],
    });
    void outside;
    await rebuildInsightsRollups({ db: db.db });
    const period = { period: 'custom', from: '2026-08-01', to: '2026-08-31', repo: 'repo-sources' };
    const { precision } = await section('quality', period);
    assert.equal(precision.overall.settled, 4);
    assert.deepEqual(precision.sources, {
      queues: [
        { id: q2.id, name: 'Newer queue', settled: 1 },
        { id: q1.id, name: 'Older queue', settled: 1 },
      ],
      demoHistory: 1,
      noQueue: 1,
    });
    // the grading module's precision answers with the same sources
    const res = await callRoute({
      handler: getPrecision,
      url: `/api/grading/precision?from=2026-08-01&to=2026-09-01&repositoryId=${repo}`,
      cookie: managerCookie,
    });
    assert.equal(res.status, 200);
    const body = res.json as { overall: { settled: number }; sources: typeof precision.sources };
    assert.equal(body.overall.settled, 4);
    assert.deepEqual(body.sources, precision.sources);
  });
});
