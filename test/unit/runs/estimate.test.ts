import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_PHASE_MS,
  estimateRemaining,
  formatRemaining,
  formatRemainingRange,
  medianPhaseDurations,
  phaseSpentMs,
  progressFromPhaseEvents,
  type PhaseMedians,
} from '../../../lib/runs/estimate';
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
  const medians = { setup: 10_000, red: 5_000, localise: 1_000, patch: 20_000, verify: 8_000, summary: 2_000 };
  const started = (phase: string, ms: number) => ({ payload: { phase, status: 'started' }, at: at(ms) });
  const finished = (phase: string, ms: number) => ({ payload: { phase, status: 'finished' }, at: at(ms) });
  const upToPatch = [started('setup', 0), finished('setup', 9000), started('red', 9000), finished('red', 15000), started('localise', 15000), finished('localise', 16000), started('patch', 16000)];
  const estimateOf = (samples: PhaseMedians['samples']): PhaseMedians => ({ ...medianPhaseDurations(samples), samples });

  test('from the comparable runs still in the phase after as long: median and quartiles', () => {
    const samples = [10, 20, 30, 40, 60].map((s) => ({ setup: 9000, red: 6000, localise: 1000, patch: s * 1000, verify: 5000, summary: 0 }));
    const progress = progressFromPhaseEvents(upToPatch);
    // 25 s into patch: the 10 s and 20 s runs had moved on; 30/40/60 s leave 5/15/35 s of patch, then 5 s of verify
    const e = estimateRemaining({ estimate: estimateOf(samples), progress, now: T0 + 16_000 + 25_000 });
    assert.deepEqual([e.lowMs, e.midMs, e.highMs, e.comparable], [15_000, 20_000, 30_000, 3]);
    // a run far longer than every comparable one is overdue, never "finishing" at once
    const late = estimateRemaining({ estimate: estimateOf(samples), progress, now: T0 + 16_000 + 90_000 });
    assert.equal(late.comparable, 0);
    assert.equal(late.overdue, true);
    assert.equal(late.sure, false);
    assert.ok(late.midMs >= 45_000, `half again the 90 s spent in patch, then verify: ${late.midMs}`);
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
    assert.equal(e.midMs, 120_000 - 76_300 + 15_000 + 1_000);
  });

  test('with too few comparable runs: the medians, a wide range, unsure', () => {
    const progress = progressFromPhaseEvents(upToPatch);
    const e = estimateRemaining({ estimate: { medians, basis: 'history', runs: 1, samples: [medians] }, progress, now: T0 + 20_000 });
    assert.equal(e.midMs, 16_000 + 8_000 + 2_000);
    assert.equal(e.sure, false);
    assert.ok(e.lowMs < e.midMs && e.highMs > e.midMs);
  });

  test('a queued run costs a whole comparable run', () => {
    const none = { currentPhase: null, currentPhaseStartedAt: null, completedPhases: [] };
    const samples = [40, 50, 60].map((s) => ({ setup: 0, red: 0, localise: 0, patch: s * 1000, verify: 0, summary: 0 }));
    assert.equal(estimateRemaining({ estimate: estimateOf(samples), progress: none, now: T0 }).midMs, 50_000);
  });

  test('formatting', () => {
    assert.equal(formatRemaining(0), 'finishing…');
    assert.equal(formatRemaining(42_000), '~40 s left');
    assert.equal(formatRemaining(2_000), '~5 s left');
    assert.equal(formatRemaining(185_000), '~3 min left');
    const range = (lowMs: number, midMs: number, highMs: number, sure = false) => formatRemainingRange({ lowMs, midMs, highMs, sure, comparable: 3, overdue: false });
    assert.equal(range(100_000, 150_000, 300_000), '~2–5 min left');
    assert.equal(range(30_000, 50_000, 150_000), '~30 s–3 min left');
    assert.equal(range(170_000, 180_000, 190_000, true), '~3 min left');
    assert.equal(range(0, 0, 0), 'finishing…');
  });
});

describe('run page derivations', () => {
  test('mergeEvents keeps one event per seq, in order', () => {
    const a = [ev(0, 'log', {}), ev(1, 'log', {})];
    const merged = mergeEvents(a, [ev(1, 'log', { dup: true }), ev(3, 'log', {}), ev(2, 'log', {})]);
    assert.deepEqual(merged.map((e) => e.seq), [0, 1, 2, 3]);
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
    assert.equal(row.tokens, 1000 + 25, "each counter takes the larger of row and events");
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
    assert.deepEqual(running.map((v) => v.state), ['done', 'current', 'pending', 'pending', 'pending', 'pending']);
    assert.equal(running[0]!.durationMs, 900);
    const over = phaseViews({ events, finished: true });
    assert.deepEqual(over.map((v) => v.state), ['done', 'stopped', 'skipped', 'skipped', 'skipped', 'skipped']);
  });

  test('status: end wins, then the row if finished, then the latest status event', () => {
    const events = [ev(0, 'status', { status: 'queued' }), ev(1, 'status', { status: 'running' })];
    assert.equal(liveStatus({ events, rowStatus: 'QUEUED', end: null }), 'RUNNING');
    assert.equal(liveStatus({ events, rowStatus: 'FIXED', end: null }), 'FIXED');
    assert.equal(liveStatus({ events, rowStatus: 'RUNNING', end: { status: 'CANCELLED', exitReason: 'cancelled', exitDetail: null, fixId: null, lastSeq: 1 } }), 'CANCELLED');
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
