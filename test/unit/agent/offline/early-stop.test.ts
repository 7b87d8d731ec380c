import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOfflinePolicy } from '../../../../agent/policies/offline';
import type { AgentEvent, GateVerdict, PolicyContext, TestRun } from '../../../../agent/types';

// The offline policy stops when its candidates keep failing: gates that
// count what the policy asks of them, over a real file with many candidates.

const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const SRC = `export function score(xs: number[], bonus: number): number {
  let total = 0;
  for (let i = 0; i < xs.length; i += 1) {
    if (xs[i] > 10 && bonus > 0) total += xs[i] * 2;
    else total += xs[i] - 1;
  }
  return total + bonus;
}
`;

const TARGETS = ['t::a', 't::b'];

function run(passed: string[]): TestRun {
  return {
    command: { command: 'node --test', exitCode: 1, signal: null, timedOut: false, durationMs: 1, output: '', truncatedBytes: 0 },
    results: TARGETS.map((id) => ({ id, name: id, status: passed.includes(id) ? 'passed' : 'failed' })),
  } as unknown as TestRun;
}

/** A context whose GREEN answers from `greens` (which targets pass, per call), after the first ones all targets failing. */
async function context(opts: { greens?: string[][]; deadline?: number } = {}): Promise<{ ctx: PolicyContext; events: AgentEvent[]; greenCalls: () => number }> {
  const root = await mkdtemp(path.join(tmpdir(), 'flowfix-early-stop-'));
  roots.push(root);
  await writeFile(path.join(root, 'score.ts'), SRC);
  const events: AgentEvent[] = [];
  let calls = 0;
  const pass: GateVerdict = { gate: 'compile', passed: true, detail: 'ok' } as GateVerdict;
  const ctx = {
    change: { title: 'c', description: '', author: 'dev', diff: '', editedSpans: [], language: 'typescript' },
    evidence: { failingTests: [], messages: ['AssertionError: expected 10 to equal 12'], expectedActual: [], frames: [], symbols: [] },
    suspects: [{ file: 'score.ts', symbol: 'score', kind: 'function', startLine: 1, endLine: 8, score: 10, reasons: ['test'] }],
    targetTests: TARGETS,
    redRun: run([]),
    gates: {
      applyEdit: async () => pass,
      green: async () => {
        const passed = opts.greens?.[calls] ?? [];
        calls += 1;
        const r = run(passed);
        return { verdict: { gate: 'green', passed: passed.length === TARGETS.length, detail: 'targets', tests: r.results } as unknown as GateVerdict, run: r };
      },
      reset: async () => {},
      diff: async () => '',
      build: async () => ({ command: 'true', exitCode: 0, signal: null, timedOut: false, durationMs: 0, output: '', truncatedBytes: 0 }),
    },
    workspace: { root, readFile: (rel: string) => readFile(path.join(root, rel), 'utf8'), listDir: async () => [], search: async () => [], lastLog: () => '' },
    sink: { emit: async (e: AgentEvent) => void events.push(e) },
    signal: new AbortController().signal,
    limits: { maxToolCalls: 1000, deadline: opts.deadline ?? Date.now() + 10 * 60_000, maxTokens: 0, maxCostUsd: 0 },
  } as unknown as PolicyContext;
  return { ctx, events, greenCalls: () => calls };
}

test('N candidates in a row failing GREEN with no target newly passing: no_candidate, said to be an early stop', async () => {
  const { ctx, greenCalls } = await context();
  const outcome = await createOfflinePolicy({ maxCandidates: 200, stopAfterFailures: 5 }).run(ctx);
  assert.equal(outcome.status, 'gave_up');
  assert.ok(outcome.status === 'gave_up' && outcome.exitReason === 'no_candidate');
  assert.match(outcome.status === 'gave_up' ? outcome.detail : '', /^stopped early after 5 of \d+ candidate edit\(s\).*5 candidates in a row failed/);
  assert.equal(greenCalls(), 5);
});

test('a candidate that makes a failing target pass is progress: the count starts again', async () => {
  const { ctx, greenCalls } = await context({ greens: [[], [], ['t::a'], [], []] });
  const outcome = await createOfflinePolicy({ maxCandidates: 200, stopAfterFailures: 3 }).run(ctx);
  assert.ok(outcome.status === 'gave_up' && /stopped early/.test(outcome.detail));
  assert.equal(greenCalls(), 6, 'two misses, progress, three misses');
});

test('past the share of the policy’s time without progress: stopped, with the time in the reason', async () => {
  let clock = 1_000_000;
  const { ctx, greenCalls } = await context({ deadline: 1_000_000 + 10 * 60_000 });
  const policy = createOfflinePolicy({ maxCandidates: 200, stopAfterFailures: 1000, stopAfterTimeShare: 0.5, now: () => (clock += 20_000) });
  const outcome = await policy.run(ctx);
  assert.ok(outcome.status === 'gave_up' && outcome.exitReason === 'no_candidate', JSON.stringify(outcome));
  assert.match(outcome.detail, /: \d+ s spent, 50% of the policy's \d+ s, and the last \d+ candidate/);
  assert.ok(greenCalls() > 1 && greenCalls() < 20, String(greenCalls()));
});

test('by default a streak of 50 misses stops the run, not fewer', async () => {
  const { ctx, events, greenCalls } = await context();
  const outcome = await createOfflinePolicy({ maxCandidates: 200 }).run(ctx);
  const generated = (events.find((e) => e.type === 'thought')?.payload as { candidates: number }).candidates;
  assert.ok(generated > 50, `the file gives more than 50 candidates (${generated})`);
  assert.equal(greenCalls(), 50);
  assert.ok(outcome.status === 'gave_up' && /stopped early after 50 of/.test(outcome.detail));
});
