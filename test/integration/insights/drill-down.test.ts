import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { GET as getInsights } from '../../../app/api/insights/[section]/route';
import { GET as getChanges } from '../../../app/api/changes/route';
import { toChangeListSearchParams } from '../../../common/change-query';
import { funnelReasonFilters, parseInsightsQuery } from '../../../common/insights-query';
import { DROP_REASON_LABELS, SKIP_REASON_LABELS } from '../../../common/labels';
import { rebuildInsightsRollups } from '../../../lib/insights/rollup';

// A funnel reason's bar and its drill-down agree, through the routes: for
// every reason the funnel shows (every pre- and post-execution filter reason
// is seeded, plus unknown), GET /api/changes with the link the funnel page
// builds lists exactly as many changes as GET /api/insights/funnel counted,
// for presets (today's partial day read from the raw rows), all time, a
// custom period, and the repository, author, policy, model and trigger
// filters. The routes read the real clock: the history is placed relative to it.

const MIN = 60_000;
const DAY = 86_400_000;
const SKIP_REASONS = Object.keys(SKIP_REASON_LABELS).filter((r) => r !== 'unknown');
const DROP_REASONS = Object.keys(DROP_REASON_LABELS).filter((r) => r !== 'unknown' && r !== 'stale');

let db: TestDb;
let cookie: string;
let seq = 0;
/** the skips seeded for a reason, when */
const skipsAt: Array<{ reason: string; at: number }> = [];

async function change({
  repo,
  at,
  bot = false,
  skip,
  status,
}: {
  repo: string;
  at: number;
  bot?: boolean;
  skip?: string | null;
  status?: 'SKIPPED' | 'NO_FIX';
}) {
  const n = ++seq;
  const c = await db.db.change.create({
    data: {
      repositoryId: repo,
      externalId: `D${n}`,
      title: `change ${n}`,
      author: bot ? 'renovate[bot]' : 'Dana',
      authorKind: bot ? 'BOT' : 'HUMAN',
      branch: `b${n}`,
      baseRev: 'a'.repeat(40),
      headRev: 'b'.repeat(40),
      status: status ?? (skip !== undefined ? 'SKIPPED' : 'NO_FIX'),
      statusReason: skip ?? null,
      createdAt: new Date(at),
      lastFailureAt: new Date(at),
    },
  });
  const revision = await db.db.changeRevision.create({
    data: { changeId: c.id, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: `b${n}`, createdAt: new Date(at) },
  });
  return { id: c.id, revisionId: revision.id, at, n };
}

async function revision(c: { id: string; n: number }, number: number, at: number) {
  const previous = await db.db.changeRevision.findFirstOrThrow({ where: { changeId: c.id, number: number - 1 } });
  await db.db.changeRevision.update({ where: { id: previous.id }, data: { supersededAt: new Date(at) } });
  return (
    await db.db.changeRevision.create({
      data: { changeId: c.id, number, baseRev: 'a'.repeat(40), headRev: String(number).repeat(40).slice(0, 40), branch: `b${c.n}`, createdAt: new Date(at) },
    })
  ).id;
}

async function droppedRun(
  c: { id: string; revisionId: string; at: number },
  {
    reason,
    policy = 'offline',
    trigger = 'AUTO',
    revisionId = c.revisionId,
    status = 'DROPPED',
    after = 10,
  }: {
    reason: string | null;
    policy?: 'offline' | 'llm';
    trigger?: 'AUTO' | 'MANUAL' | 'REVALIDATE';
    revisionId?: string;
    status?: 'DROPPED' | 'READY';
    after?: number;
  },
) {
  const run = await db.db.run.create({
    data: {
      changeId: c.id,
      revisionId,
      trigger,
      policy,
      model: policy === 'llm' ? 'm1' : null,
      status: status === 'DROPPED' ? 'NO_FIX' : 'FIXED',
      exitReason: status === 'DROPPED' ? `dropped:${reason ?? 'unknown'}` : 'fixed',
      createdAt: new Date(c.at + MIN),
      startedAt: new Date(c.at + MIN),
      finishedAt: new Date(c.at + after * MIN),
    },
  });
  await db.db.fix.create({
    data: {
      runId: run.id,
      changeId: c.id,
      revisionId,
      diff: 'diff',
      files: ['a.ts'],
      status,
      dropReason: status === 'DROPPED' ? reason : null,
      createdAt: new Date(c.at + after * MIN),
    },
  });
}

before(async () => {
  db = await createTestDb();
  const a = (await db.db.repository.create({ data: { name: 'repo-a', gitUrl: '/srv/a.git' } })).id;
  const b = (await db.db.repository.create({ data: { name: 'repo-b', gitUrl: '/srv/b.git' } })).id;
  cookie = await sessionCookie(await db.db.user.create({ data: { email: 'm@example.test', name: 'Max', roles: ['MANAGER'] } }));

  const now = Date.now();
  const today = Math.floor(now / DAY) * DAY;
  // today (a partial day: read from the raw rows), three days ago, twenty days ago, sixty days ago
  const times = [Math.max(today, now - 30 * MIN), now - 3 * DAY, now - 20 * DAY, now - 60 * DAY];

  for (const [i, reason] of SKIP_REASONS.entries()) {
    // 1–3 changes a reason, over both repositories, both author kinds and the four times
    for (let k = 0; k <= i % 3; k++) {
      const at = times[k === 0 ? i % 3 : (i + k) % times.length]! + k * MIN;
      await change({ repo: k % 2 ? b : a, at, bot: reason === 'bot_author' || k === 2, skip: reason });
      skipsAt.push({ reason, at });
    }
  }
  // a skip without a stored reason counts as unknown
  await change({ repo: a, at: times[1]!, skip: null });
  // a skipped change that was run after all (a manual run) is no longer counted, nor listed, as skipped
  const ranAnyway = await change({ repo: a, at: times[1]! + 5 * MIN, skip: 'known_flaky' });
  await droppedRun(ranAnyway, { reason: 'too_large', trigger: 'MANUAL' });

  for (const [i, reason] of DROP_REASONS.entries()) {
    const c = await change({ repo: i % 2 ? b : a, at: times[i % 3]! + 2 * MIN, bot: i % 5 === 0 });
    await droppedRun(c, { reason: i % 3 === 0 ? `dropped:${reason}` : reason, policy: i % 2 ? 'llm' : 'offline' });
  }
  // sixty days ago: only in all time and 90 days
  await droppedRun(await change({ repo: b, at: times[3]! }), { reason: 'too_large', policy: 'llm' });
  // one change, two fixes dropped for the same reason (two revisions, two policies): one change on its bar
  const twice = await change({ repo: a, at: times[1]! + 7 * MIN });
  await droppedRun(twice, { reason: 'weakens_assertions', policy: 'offline' });
  await droppedRun(twice, { reason: 'weakens_assertions', policy: 'llm', revisionId: await revision(twice, 2, twice.at + 20 * MIN), after: 30 });
  // a fix found after its revision was superseded is stale; one without a stored reason is unknown
  const late = await change({ repo: b, at: times[0]! });
  await revision(late, 2, late.at + 2 * MIN);
  await droppedRun(late, { reason: null, status: 'READY', after: 5 });
  await droppedRun(await change({ repo: a, at: times[2]! }), { reason: null });
  // a re-validation's dropped fix is not a repair's: only trigger=revalidate shows it
  await droppedRun(await change({ repo: a, at: times[1]! + 9 * MIN }), { reason: 'edits_tests', trigger: 'REVALIDATE' });

  await rebuildInsightsRollups({ db: db.db });
});

after(async () => {
  await db?.drop();
});

interface FunnelAnswer {
  period: { from: string | null; to: string };
  data: { steps: Array<{ key: string; count: number; reasons?: Array<{ reason: string; count: number }> }> };
}

async function funnelFor(params: Record<string, string>): Promise<FunnelAnswer> {
  const qs = new URLSearchParams(params).toString();
  const res = await callRoute({ handler: getInsights, url: `/api/insights/funnel?${qs}`, cookie, params: { section: 'funnel' } });
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json as FunnelAnswer;
}

/** Every change the triage list shows for a link, over all its pages. */
async function listed(qs: URLSearchParams): Promise<{ ids: string[]; total: number | null }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let total: number | null = null;
  do {
    const page = new URLSearchParams(qs);
    page.set('limit', '7');
    if (cursor) page.set('cursor', cursor);
    const res = await callRoute({ handler: getChanges, url: `/api/changes?${page}`, cookie });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const body = res.json as { items: Array<{ id: string }>; nextCursor: string | null; total: { count: number } | null };
    if (!cursor) total = body.total?.count ?? null;
    ids.push(...body.items.map((i) => i.id));
    cursor = body.nextCursor;
  } while (cursor);
  return { ids, total };
}

async function assertEveryReasonAgrees(params: Record<string, string>): Promise<Record<string, Record<string, number>>> {
  const answer = await funnelFor(params);
  const query = parseInsightsQuery(new URLSearchParams(params));
  const seen: Record<string, Record<string, number>> = {};
  for (const step of ['skipped', 'dropped'] as const) {
    seen[step] = {};
    for (const r of answer.data.steps.find((s) => s.key === step)!.reasons ?? []) {
      const qs = toChangeListSearchParams(funnelReasonFilters({ step, reason: r.reason, period: answer.period, query }));
      const { ids, total } = await listed(qs);
      assert.equal(new Set(ids).size, ids.length, `${step}:${r.reason} lists a change twice`);
      assert.equal(ids.length, r.count, `${JSON.stringify(params)} ${step}:${r.reason}: the bar says ${r.count}, its drill-down lists ${ids.length}`);
      assert.equal(total, r.count, `${step}:${r.reason}: the list's total`);
      seen[step][r.reason] = r.count;
    }
  }
  return seen;
}

describe("a funnel reason's drill-down lists what its bar counts", () => {
  test('every reason, last 30 days (today included), with every skip and drop reason present', async () => {
    const seen = await assertEveryReasonAgrees({ period: '30d' });
    assert.deepEqual(Object.keys(seen.skipped).sort(), [...SKIP_REASONS, 'unknown'].sort(), 'every skip reason has a bar');
    assert.deepEqual(Object.keys(seen.dropped).sort(), [...DROP_REASONS, 'stale', 'unknown'].sort(), 'every drop reason has a bar');
    // two fixes of one change dropped for one reason: the change once
    assert.equal(seen.dropped.weakens_assertions, 2);
    // its own change and the manual run of the skipped one
    assert.equal(seen.dropped.too_large, 2);
    // the skipped change that ran after all is not skipped
    const start = Math.floor(Date.now() / DAY) * DAY - 29 * DAY;
    assert.equal(seen.skipped.known_flaky, skipsAt.filter((x) => x.reason === 'known_flaky' && x.at >= start).length);
    assert.ok(seen.skipped.known_flaky >= 1);
  });

  test('every reason, for other periods and every filter', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const monthAgo = new Date(Date.now() - 30 * DAY).toISOString().slice(0, 10);
    const cases: Array<Record<string, string>> = [
      { period: '7d' },
      { period: 'all' },
      { period: 'custom', from: monthAgo, to: today },
      { period: '90d', repo: 'repo-b' },
      { period: '90d', author: 'bot' },
      { period: 'all', policy: 'llm' },
      { period: 'all', model: 'm1' },
      { period: 'all', trigger: 'revalidate' },
      { period: 'all', trigger: 'manual' },
    ];
    for (const params of cases) await assertEveryReasonAgrees(params);
    const revalidations = await assertEveryReasonAgrees({ period: 'all', trigger: 'revalidate' });
    assert.deepEqual(revalidations.dropped, { edits_tests: 1 });
    const all = await assertEveryReasonAgrees({ period: 'all' });
    assert.equal(all.dropped.edits_tests, 1, 'the re-validation is not on the repair funnel');
    // the manual run of a skipped change, and sixty days ago
    assert.equal(all.dropped.too_large, 3);
  });

  test('a drill-down link without its period is refused, not widened', async () => {
    const res = await callRoute({ handler: getChanges, url: '/api/changes?funnel=skipped:known_flaky', cookie });
    assert.equal(res.status, 422);
    const bad = await callRoute({ handler: getChanges, url: `/api/changes?funnel=nope&firstTo=${encodeURIComponent(new Date().toISOString())}`, cookie });
    assert.equal(bad.status, 422);
  });
});
