import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRunEvent } from '@/common/run-events';
import { generateHistory, HISTORY_TITLE_PREFIX, SKIP_REASONS } from '@/demo/history';

const input = {
  now: new Date('2026-11-30T12:00:00Z'),
  repositories: [
    { id: 'repo-ts', name: 'checkout-ts', kind: 'node' as const },
    { id: 'repo-py', name: 'ledger-py', kind: 'python' as const },
  ],
  people: { reviewers: ['r1', 'r2'], graders: ['g1', 'g2', 'g3'], settler: 'g3' },
};

test('the same seed gives the same history; another seed a different one', () => {
  assert.deepEqual(generateHistory(input), generateHistory(input));
  assert.notDeepEqual(generateHistory({ ...input, seed: 7 }).changes, generateHistory(input).changes);
});

test('history is labelled, lies in the past and references only rows it creates', () => {
  const rows = generateHistory(input);
  const changeIds = new Set(rows.changes.map((c) => c.id));
  const fixIds = new Set(rows.fixes.map((f) => f.id));
  const runIds = new Set(rows.runs.map((r) => r.id));
  assert.ok(rows.changes.every((c) => c.origin === 'DEMO_HISTORY' && c.title.startsWith(HISTORY_TITLE_PREFIX)));
  assert.ok(rows.changes.every((c) => (c.lastFailureAt as Date) < input.now));
  assert.ok(rows.changes.filter((c) => c.status === 'SKIPPED').every((c) => (SKIP_REASONS as readonly string[]).includes(c.statusReason!)));
  assert.ok(rows.changes.filter((c) => c.statusReason === 'bot_author').every((c) => c.authorKind === 'BOT'));
  assert.ok(rows.changes.filter((c) => c.statusReason === 'too_many_files_changed').every((c) => (c.filesChanged ?? 0) > 50));
  assert.ok(rows.failures.every((f) => changeIds.has(f.changeId)));
  assert.ok(rows.runs.every((r) => changeIds.has(r.changeId)));
  assert.ok(rows.fixes.every((f) => runIds.has(f.runId)));
  assert.ok([...rows.decisions, ...rows.grades, ...rows.consensus].every((d) => fixIds.has(d.fixId)));
  assert.ok(rows.grades.every((g) => input.people.graders.includes(g.graderId)));
  for (const change of rows.changes) {
    const failures = rows.failures.filter((f) => f.changeId === change.id).length;
    assert.equal(change.failingTestCount, failures);
  }
});

test('failure-to-fix latency is near FlowAgent (p50 about 10 minutes)', () => {
  const rows = generateHistory({ ...input, days: 120 });
  const byChange = new Map(rows.changes.map((c) => [c.id, c]));
  const minutes = rows.runs
    .filter((r) => r.status === 'FIXED')
    .map((r) => ((r.finishedAt as Date).getTime() - (byChange.get(r.changeId)!.lastFailureAt as Date).getTime()) / 60_000)
    .sort((a, b) => a - b);
  const p50 = minutes[Math.floor(minutes.length / 2)];
  assert.ok(p50 > 7 && p50 < 14, `p50 ${p50}`);
});

test('every generated run event keeps the run-event contract, as if a worker had written it', () => {
  const rows = generateHistory(input);
  assert.ok(rows.events.length > 0);
  for (const e of rows.events) {
    const check = checkRunEvent({ type: e.type, payload: e.payload });
    assert.ok(check.ok, `${e.type}: ${check.ok ? '' : check.message}`);
  }
});

test('history yields every step of the Insights funnel and both kinds of "no candidate" run', () => {
  const rows = generateHistory(input);
  assert.ok(
    rows.changes.some((c) => c.status === 'SKIPPED'),
    'skipped',
  );
  assert.ok(rows.runs.length > 0, 'attempted');
  assert.ok(
    rows.fixes.some((f) => f.status === 'DROPPED' && f.dropReason === 'stale'),
    'dropped as stale',
  );
  assert.ok(
    rows.fixes.some((f) => f.status === 'DROPPED' && f.dropReason !== 'stale'),
    'dropped by another filter',
  );
  for (const kind of ['PREVIEW', 'ACCEPT', 'EDIT_ACCEPT', 'REJECT'] as const)
    assert.ok(
      rows.decisions.some((d) => d.kind === kind),
      kind,
    );
  const greenGate = new Set(rows.events.filter((e) => e.type === 'gate').map((e) => e.runId));
  const noCandidate = rows.runs.filter((r) => r.exitReason === 'no_candidate');
  assert.ok(
    noCandidate.some((r) => greenGate.has(r.id!)),
    'GREEN never reached',
  );
  assert.ok(
    noCandidate.some((r) => !greenGate.has(r.id!)),
    'every candidate failed the compile gate',
  );
});

test('history settles as the product does: unanimous labels on their own with no settler, a dispute by a person; each settlement reveals the labels to every grader of the fix', () => {
  const rows = generateHistory({ ...input, days: 60 });
  assert.ok(rows.consensus.length > 0);
  const labelsOf = (fixId: string) => new Set(rows.grades.filter((g) => g.fixId === fixId).map((g) => g.label));
  let automatic = 0;
  for (const c of rows.consensus) {
    const labels = labelsOf(c.fixId);
    if (labels.size === 1) {
      automatic += 1;
      assert.equal(c.automatic, true, 'a unanimous fix settles automatically');
      assert.equal(c.settledById, null, 'an automatic settlement names no settler');
      assert.ok(labels.has(c.label), 'settled as the labels say');
    } else {
      assert.equal(c.automatic, false);
      assert.equal(c.settledById, input.people.settler);
    }
    const reveals = rows.reveals.filter((r) => r.fixId === c.fixId);
    assert.deepEqual(reveals.map((r) => r.graderId).sort(), [...input.people.graders].sort());
    assert.ok(reveals.every((r) => r.via === 'settled' && (r.revealedAt as Date) < input.now));
  }
  assert.ok(automatic > 0 && automatic < rows.consensus.length, 'both kinds of settlement occur');
  assert.equal(new Set(rows.reveals.map((r) => r.fixId)).size, rows.consensus.length, 'no reveal without a settlement');
});
