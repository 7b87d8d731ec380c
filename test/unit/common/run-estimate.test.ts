import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_MEDIANS,
  DEFAULT_PHASE_MS,
  estimateRemaining,
  PRIOR_RUNS,
  PRIOR_SPREAD,
  priorPhaseLeft,
  rangeCovers,
  TAIL_FROM_ELAPSED,
  formatRemaining,
  formatRemainingRange,
  medianPhaseDurations,
  phaseSpentMs,
  progressFromPhaseEvents,
  type PhaseMedians,
} from '../../../common/run-estimate';
import { eventMatches, liveCounters, liveStatus, mergeEvents, phaseViews } from '../../../components/run/derive';
import { publicPayload } from '../../../lib/runs/public-event';
import { readRunEvent, type PublicRunEvent } from '../../../common/run-events';

const T0 = Date.parse('2026-06-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function ev(seq: number, type: string, payload: Record<string, unknown>, ms = seq * 1000): PublicRunEvent {
  return readRunEvent({ seq, type, at: at(ms), payload });
}

describe('phase medians', () => {
  test('median per phase over the runs that reached it; defaults for the rest', () => {
    const m = medianPhaseDurations([
      { setup: 1000, red: 2000, localise: 10, patch: 5000, verify: 3000, summary: 100 },
      { setup: 3000, red: 4000, localise: 30, patch: 1000 },
      { setup: 2000, red: 3000 },
      { garbage: true },
      null,
    ]);
    assert.equal(m.basis, 'history');
    assert.equal(m.runs, 3);
    assert.equal(m.medians.setup, 2000);
    assert.equal(m.medians.red, 3000);
    assert.equal(m.medians.localise, 20); // even count: the mean of the middle two
    assert.equal(m.medians.patch, 3000);
    assert.equal(m.medians.verify, 3000);
    assert.equal(m.medians.summary, 100);
  });

  test('no history → the defaults, marked as such', () => {
    const m = medianPhaseDurations([{}, 'x', { setup: -5 }]);
    assert.equal(m.basis, 'default');
    assert.deepEqual(m.medians, DEFAULT_PHASE_MS);
  });
});

describe('time left', () => {
  const started = (phase: string, ms: number) => ({ payload: { phase, status: 'started' }, at: at(ms) });
  const finished = (phase: string, ms: number) => ({ payload: { phase, status: 'finished' }, at: at(ms) });
  const upToPatch = [
    started('setup', 0),
    finished('setup', 9000),
    started('red', 9000),
    finished('red', 15000),
    started('localise', 15000),
    finished('localise', 16000),
    started('patch', 16000),
  ];
  const estimateOf = (samples: PhaseMedians['samples']): PhaseMedians => ({ ...medianPhaseDurations(samples), samples });
  const none = { currentPhase: null, currentPhaseStartedAt: null, completedPhases: [] };
  const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
  /** n / (n + PRIOR_RUNS) of the samples' figure, the rest the prior's */
  const blend = (n: number, sample: number, prior: number) => Math.round((n / (n + PRIOR_RUNS)) * sample + (PRIOR_RUNS / (n + PRIOR_RUNS)) * prior);

  test('a range from the first moment: with no history, the prior around the defaults', () => {
    const e = estimateRemaining({ estimate: DEFAULT_MEDIANS, progress: none, now: T0 });
    const total = sum(DEFAULT_PHASE_MS);
    assert.deepEqual([e.lowMs, e.midMs, e.highMs], [Math.round(total * PRIOR_SPREAD.low), total, Math.round(total * PRIOR_SPREAD.high)]);
    assert.equal(e.comparable, 0);
    assert.equal(e.sure, false);
    // 190 s of defaults: 114 s to 475 s, never the one figure "~3 min left"
    assert.equal(formatRemainingRange(e), '~2–8 min left');
  });

  test('from the comparable runs still in the phase after as long: p10–p90, blended with the prior by their number', () => {
    const samples = [10, 20, 30, 40, 60].map((s) => ({ setup: 9000, red: 6000, localise: 1000, patch: s * 1000, verify: 5000, summary: 0 }));
    const estimate = estimateOf(samples);
    const progress = progressFromPhaseEvents(upToPatch);
    // 25 s into patch: the 10 s and 20 s runs had moved on; 30/40/60 s leave 5/15/35 s of patch, then 5 s of verify: 10, 20, 40 s
    const e = estimateRemaining({ estimate, progress, now: T0 + 16_000 + 25_000 });
    assert.equal(e.comparable, 3);
    assert.equal(e.sure, true);
    // the prior: patch's median 30 s with its spread, less the 25 s spent (never below the tail from 25 s), then verify and summary
    const prior = {
      low: Math.round(Math.max(30_000 * 0.6 - 25_000, 25_000 * TAIL_FROM_ELAPSED.low)) + 5_000 * 0.6,
      mid: Math.round(Math.max(30_000 - 25_000, 25_000 * TAIL_FROM_ELAPSED.mid)) + 5_000,
      high: Math.round(Math.max(30_000 * 2.5 - 25_000, 25_000 * TAIL_FROM_ELAPSED.high)) + 5_000 * 2.5,
    };
    assert.deepEqual([e.lowMs, e.midMs, e.highMs], [blend(3, 12_000, prior.low), blend(3, 20_000, prior.mid), blend(3, 36_000, prior.high)]);
  });

  test('widened while comparable runs are few: the same spread of runs gives a wider range from 2 runs than from 40', () => {
    const spread = [20, 30, 40, 50, 60];
    const runsOf = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ setup: 0, red: 0, localise: 0, patch: spread[i % spread.length]! * 1000, verify: 0, summary: 0 }));
    const width = (n: number) => {
      const e = estimateRemaining({ estimate: estimateOf(runsOf(n)), progress: none, now: T0 });
      return e.highMs - e.lowMs;
    };
    const sorted = runsOf(40)
      .map((r) => r.patch)
      .sort((a, b) => a - b);
    const samplesWidth = sorted[Math.round(0.9 * 39)]! - sorted[Math.round(0.1 * 39)]!;
    assert.ok(width(5) > width(10) && width(10) > width(40), `${width(5)} > ${width(10)} > ${width(40)}`);
    assert.ok(Math.abs(width(40) - samplesWidth) < Math.abs(width(5) - samplesWidth) / 2, 'the samples replace the prior as they accumulate');
    const few = estimateRemaining({ estimate: estimateOf(runsOf(2)), progress: none, now: T0 });
    assert.equal(few.sure, false);
    assert.equal(few.comparable, 2);
    assert.ok(few.lowMs < 20_000 && few.highMs > 30_000, 'two runs of 20 and 30 s: a range wider than both');
  });

  test('past every comparable run: estimated from the elapsed time, never below 0, the high end above what the phase has spent, growing with it', () => {
    const samples = [10, 20, 30].map((s) => ({ setup: 9000, red: 6000, localise: 1000, patch: s * 1000, verify: 5000, summary: 0 }));
    const progress = progressFromPhaseEvents(upToPatch);
    const at = (spentInPatch: number) => estimateRemaining({ estimate: estimateOf(samples), progress, now: T0 + 16_000 + spentInPatch });
    const late = at(90_000);
    assert.equal(late.comparable, 0);
    assert.equal(late.overdue, true);
    assert.equal(late.sure, false);
    assert.ok(late.lowMs >= Math.round(90_000 * TAIL_FROM_ELAPSED.low), `low ${late.lowMs}`);
    assert.ok(late.highMs >= 90_000, `the range reaches past the 90 s already spent in patch: ${late.highMs}`);
    const later = at(180_000);
    assert.ok(later.lowMs > late.lowMs && later.midMs > late.midMs && later.highMs > late.highMs, 'the figure grows ahead of the run');
    // at every moment through the phase: low ≥ 0, low ≤ mid ≤ high; past every comparable run, from the elapsed time
    for (let ms = 0; ms <= 300_000; ms += 7_000) {
      const e = at(ms);
      assert.ok(e.lowMs >= 0 && e.lowMs <= e.midMs && e.midMs <= e.highMs, `at ${ms}: ${e.lowMs} ${e.midMs} ${e.highMs}`);
      if (ms > 30_000) assert.ok(e.comparable === 0 && e.highMs >= Math.round(ms * TAIL_FROM_ELAPSED.high), `at ${ms}: high ${e.highMs}`);
    }
  });

  test('the prior alone for one phase: its spread, less what is spent, never below the tail of the elapsed time', () => {
    assert.deepEqual(priorPhaseLeft(10_000, 0), { low: 6_000, mid: 10_000, high: 25_000 });
    const over = priorPhaseLeft(10_000, 40_000);
    assert.deepEqual(over, {
      low: Math.round(40_000 * TAIL_FROM_ELAPSED.low),
      mid: Math.round(40_000 * TAIL_FROM_ELAPSED.mid),
      high: Math.round(40_000 * TAIL_FROM_ELAPSED.high),
    });
    assert.ok(over.high > 40_000);
  });

  test('the loop coming round neither jumps the phase timer back nor forgets the verify ahead', () => {
    const events = [...upToPatch, finished('patch', 91_000), started('verify', 91_000), finished('verify', 96_000), started('patch', 96_000)];
    const progress = progressFromPhaseEvents(events);
    assert.equal(progress.currentPhase, 'patch');
    assert.equal(phaseSpentMs(progress, 'patch', T0 + 95_000 + 1_000), 75_000, 'the first visit is kept');
    assert.equal(phaseSpentMs(progress, 'patch', T0 + 96_000 + 1_300), 76_300);
    const samples = [100, 120, 140].map((s) => ({ setup: 9000, red: 6000, localise: 1000, patch: s * 1000, verify: 20_000, summary: 1000 }));
    const e = estimateRemaining({ estimate: estimateOf(samples), progress, now: T0 + 97_300 });
    // patch 100/120/140 s minus 76.3 s; verify 20 s minus the 5 s already spent; summary 1 s
    assert.equal(e.comparable, 3);
    const prior = Math.round(Math.max(120_000 - 76_300, 76_300 * TAIL_FROM_ELAPSED.mid)) + 15_000 + 1_000;
    assert.equal(e.midMs, blend(3, 120_000 - 76_300 + 15_000 + 1_000, prior));
  });

  test('a queued run costs a whole comparable run', () => {
    const samples = [40, 50, 60].map((s) => ({ setup: 0, red: 0, localise: 0, patch: s * 1000, verify: 0, summary: 0 }));
    assert.equal(estimateRemaining({ estimate: estimateOf(samples), progress: none, now: T0 }).midMs, 50_000);
  });

  test('formatting: always the range; one figure only when both ends round to it', () => {
    assert.equal(formatRemaining(0), 'finishing…');
    assert.equal(formatRemaining(42_000), '~40 s left');
    assert.equal(formatRemaining(2_000), '~5 s left');
    assert.equal(formatRemaining(185_000), '~3 min left');
    const range = (lowMs: number, highMs: number) => formatRemainingRange({ lowMs, highMs });
    assert.equal(range(100_000, 300_000), '~2–5 min left');
    assert.equal(range(30_000, 150_000), '~30 s–3 min left');
    assert.equal(range(170_000, 190_000), '~3 min left');
    assert.equal(range(0, 0), 'finishing…');
    assert.equal(rangeCovers({ lowMs: 10, highMs: 20 }, 20), true);
    assert.equal(rangeCovers({ lowMs: 10, highMs: 20 }, 21), false);
  });
});

describe('run page derivations', () => {
  test('mergeEvents keeps one event per seq, in order', () => {
    const a = [ev(0, 'log', {}), ev(1, 'log', {})];
    const merged = mergeEvents(a, [ev(1, 'log', { dup: true }), ev(3, 'log', {}), ev(2, 'log', {})]);
    assert.deepEqual(
      merged.map((e) => e.seq),
      [0, 1, 2, 3],
    );
    assert.equal(merged[1]!.payload.dup, undefined, 'the first copy wins');
    assert.equal(mergeEvents(a, []), a);
  });

  test('counters: tool calls, tokens and cost from events, the row when it is ahead', () => {
    const events = [
      ev(0, 'tool_call', { name: 'read_file' }),
      ev(1, 'usage', { promptTokens: 100, completionTokens: 20, costUsd: 0.01 }),
      ev(2, 'candidate', { outcome: 'compile_failed' }),
      ev(3, 'candidate', { outcome: 'green' }),
      ev(4, 'usage', { promptTokens: 50, completionTokens: 5, costUsd: 0.002 }),
    ];
    const live = liveCounters({ events, row: null });
    assert.equal(live.toolCalls, 2);
    assert.equal(live.tokens, 175);
    assert.ok(Math.abs((live.costUsd ?? NaN) - 0.012) < 1e-9);
    const row = liveCounters({ events, row: { toolCalls: 9, promptTokens: 1000, completionTokens: 1, costUsd: 1, tokens: 1001 } });
    assert.equal(row.toolCalls, 9);
    assert.equal(row.tokens, 1000 + 25, 'each counter takes the larger of row and events');
  });

  test('one unpriced model call makes the cost unknown (null), never a partial sum', () => {
    const priced = [ev(1, 'usage', { promptTokens: 100, completionTokens: 20, costUsd: 0.01, priced: true })];
    assert.equal(liveCounters({ events: priced, row: null }).costUsd, 0.01);
    const unpriced = [...priced, ev(2, 'usage', { promptTokens: 50, completionTokens: 5, costUsd: null, priced: false })];
    assert.equal(liveCounters({ events: unpriced, row: null }).costUsd, null);
    assert.equal(liveCounters({ events: unpriced, row: null }).tokens, 175);
    // the row's unknown cost wins over the events' known part
    assert.equal(liveCounters({ events: priced, row: { toolCalls: 1, promptTokens: 100, completionTokens: 20, costUsd: null, tokens: 120 } }).costUsd, null);
  });

  test('phase bar states while running and after the end', () => {
    const events = [
      ev(0, 'phase', { phase: 'setup', status: 'started' }),
      ev(1, 'phase', { phase: 'setup', status: 'finished', durationMs: 900 }),
      ev(2, 'phase', { phase: 'red', status: 'started' }),
    ];
    const running = phaseViews({ events, finished: false });
    assert.deepEqual(
      running.map((v) => v.state),
      ['done', 'current', 'pending', 'pending', 'pending', 'pending'],
    );
    assert.equal(running[0]!.durationMs, 900);
    const over = phaseViews({ events, finished: true });
    assert.deepEqual(
      over.map((v) => v.state),
      ['done', 'stopped', 'skipped', 'skipped', 'skipped', 'skipped'],
    );
  });

  test('status: end wins, then the row if finished, then the latest status event', () => {
    const events = [ev(0, 'status', { status: 'queued' }), ev(1, 'status', { status: 'running' })];
    assert.equal(liveStatus({ events, rowStatus: 'QUEUED', end: null }), 'RUNNING');
    assert.equal(liveStatus({ events, rowStatus: 'FIXED', end: null }), 'FIXED');
    assert.equal(
      liveStatus({ events, rowStatus: 'RUNNING', end: { status: 'CANCELLED', exitReason: 'cancelled', exitDetail: null, fixId: null, lastSeq: 1 } }),
      'CANCELLED',
    );
  });

  test('search matches type, phase and payload text, ignoring case', () => {
    const e = ev(0, 'observation', { phase: 'patch', text: 'AssertionError: expected 3' });
    assert.equal(eventMatches(e, 'assertionerror'), true);
    assert.equal(eventMatches(e, 'OBSERVATION'), true);
    assert.equal(eventMatches(e, 'patch'), true);
    assert.equal(eventMatches(e, 'nope'), false);
    assert.equal(eventMatches(e, '  '), true);
  });
});

describe('public projection', () => {
  test('drops secret-named keys at any depth, keeps counters, redacts known values and shapes', () => {
    const out = publicPayload(
      { apiKey: 'x', nested: { Authorization: 'y', list: [{ password: 'z', ok: 1 }] }, promptTokens: 5, text: 'key=MYSECRETVALUE42 sk-abcdefghijklmnopqrstu' },
      { secretValues: ['MYSECRETVALUE42', 'short'] },
    );
    assert.deepEqual(out, { nested: { list: [{ ok: 1 }] }, promptTokens: 5, text: 'key=[redacted] [redacted]' });
  });

  test('very long strings are cut with a note', () => {
    const out = publicPayload({ text: 'a'.repeat(70_000) });
    assert.match(String(out.text), /more characters not sent\]$/);
    assert.ok(String(out.text).length < 66_000);
  });
});
