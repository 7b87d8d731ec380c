import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_PHASE_MS,
  estimateRemainingMs,
  formatRemaining,
  medianPhaseDurations,
  progressFromPhaseEvents,
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

  test('rest of the current phase plus the phases ahead', () => {
    const progress = progressFromPhaseEvents([
      { payload: { phase: 'setup', status: 'started' }, at: at(0) },
      { payload: { phase: 'setup', status: 'finished', durationMs: 9000 }, at: at(9000) },
      { payload: { phase: 'red', status: 'started' }, at: at(9000) },
      { payload: { phase: 'red', status: 'finished' }, at: at(15000) },
      { payload: { phase: 'localise', status: 'started' }, at: at(15000) },
      { payload: { phase: 'localise', status: 'finished' }, at: at(16000) },
      { payload: { phase: 'patch', status: 'started' }, at: at(16000) },
    ]);
    assert.equal(progress.currentPhase, 'patch');
    assert.deepEqual([...progress.completedPhases].sort(), ['localise', 'red', 'setup']);
    // 4 s into patch: 16 s of patch left, then verify and summary
    assert.equal(estimateRemainingMs({ medians, progress, now: T0 + 20_000 }), 16_000 + 8_000 + 2_000);
    // past the patch median: only what lies ahead
    assert.equal(estimateRemainingMs({ medians, progress, now: T0 + 60_000 }), 10_000);
  });

  test('a queued run (nothing started) costs the whole sum; a repeated patch phase is current again', () => {
    const none = { currentPhase: null, currentPhaseStartedAt: null, completedPhases: [] };
    assert.equal(estimateRemainingMs({ medians, progress: none, now: T0 }), 46_000);
    const again = progressFromPhaseEvents([
      { payload: { phase: 'patch', status: 'started' }, at: at(0) },
      { payload: { phase: 'patch', status: 'finished' }, at: at(1000) },
      { payload: { phase: 'verify', status: 'started' }, at: at(1000) },
      { payload: { phase: 'verify', status: 'finished' }, at: at(2000) },
      { payload: { phase: 'patch', status: 'started' }, at: at(2000) },
    ]);
    assert.equal(again.currentPhase, 'patch');
    assert.equal(again.completedPhases.includes('patch'), false);
  });

  test('formatting', () => {
    assert.equal(formatRemaining(0), 'finishing…');
    assert.equal(formatRemaining(42_000), '~40 s left');
    assert.equal(formatRemaining(2_000), '~5 s left');
    assert.equal(formatRemaining(185_000), '~3 min left');
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
    assert.ok(Math.abs(live.costUsd - 0.012) < 1e-9);
    const row = liveCounters({ events, row: { toolCalls: 9, promptTokens: 1000, completionTokens: 1, costUsd: 1, tokens: 1001 } });
    assert.equal(row.toolCalls, 9);
    assert.equal(row.tokens, 1000 + 25, "each counter takes the larger of row and events");
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
