import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { runRepair, type RunRepairInput } from '@/agent/pipeline';
import { ArraySink, formatEvent } from '@/agent/report/sinks';
import type { Edit, Policy, PolicyOutcome } from '@/agent/types';
import { createTsRepo, tsSettings, TS_CART_BASE, type TestRepo } from '../../helpers/agent-repos';

// A fix for a randomized target must not be shown as proven. The target here
// is a draw whose outcome does not depend on the code at all: it reads and
// bumps a counter kept in the checkout (under node_modules/, ignored by git at
// both revisions, so it survives the workspace's resets and checkouts) and
// fails on the draws it is told are unlucky. That
// makes "random" replayable: which run of the target fails is fixed by the
// test, not by chance. Coverage is off so every run of the test command is a
// gate's: RED (1), the policy's GREEN (2), the pipeline's GREEN and its
// repeats (3–5), the regression suite (6), the final rerun and its repeats
// (7–9), the head without the fix (10–11).

const LOTTERY_TEST = (unlucky: number[]) => `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

function draw(): number {
  let n = 0;
  try {
    n = Number(readFileSync('node_modules/.draws', 'utf8'));
  } catch {}
  n++;
  mkdirSync('node_modules', { recursive: true });
  writeFileSync('node_modules/.draws', String(n));
  return n;
}

test('lucky draw', () => {
  const n = draw();
  assert.ok(!${JSON.stringify(unlucky)}.includes(n), 'draw ' + n + ' was unlucky');
});
`;

/** An edit the draw does not care about: the `<= 0` → `< 0` of the report. */
const UNRELATED: Edit = { kind: 'replace', file: 'src/cart.ts', oldText: 'if (percent <= 0)', newText: 'if (percent < 0)' };
const usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };

function scriptedPolicy(edits: Edit[]): Policy {
  return {
    name: 'offline',
    async run(ctx): Promise<PolicyOutcome> {
      for (const edit of edits) {
        const verdict = await ctx.gates.applyEdit(edit);
        if (!verdict.passed) return { status: 'gave_up', exitReason: 'no_candidate', detail: 'edit refused', usage };
      }
      const { verdict } = await ctx.gates.green();
      return verdict.passed ? { status: 'patched', usage } : { status: 'gave_up', exitReason: 'no_candidate', detail: 'not green', usage };
    },
  };
}

const repos: TestRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

/** The change adds the lottery test (absent at the base) and a guard the policy will "fix". */
function lotteryRepo(unlucky: number[]): TestRepo {
  const repo = createTsRepo({ head: TS_CART_BASE.replace('if (percent > 100) {', 'if (percent <= 0) {\n    return amount;\n  }\n  if (percent > 100) {') });
  repos.push(repo);
  repo.write('test/lottery.test.ts', LOTTERY_TEST(unlucky));
  const head = repo.commit('change: a lottery test');
  return { ...repo, head };
}

function input(repo: TestRepo, sink: ArraySink): RunRepairInput {
  return {
    repoPath: repo.dir,
    baseRev: repo.base,
    headRev: repo.head,
    targetTests: ['lucky draw'],
    settings: tsSettings({ coverage: false }),
    policy: scriptedPolicy([UNRELATED]),
    sink,
    change: { title: 'lottery', description: '', author: 'dev' },
  };
}

describe('proof of a fix for a randomized target', () => {
  test('a target that passes without the fix marks the fix "unproven (flaky target)", with the evidence as a run event', async () => {
    // unlucky only on the first draw: RED fails, everything after passes, with the fix or without
    const repo = lotteryRepo([1]);
    const sink = new ArraySink();
    const result = await runRepair(input(repo, sink));
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}\n${sink.events.map(formatEvent).join('\n')}`);
    assert.equal(result.evidence.proof?.status, 'unproven');
    assert.equal(result.evidence.proof?.reason, 'flaky_target');
    assert.deepEqual(result.evidence.proof?.withoutFix, { runs: 3, failed: 1 });
    assert.deepEqual(result.evidence.proof?.withFix, { runs: 6, passed: 6 });
    assert.deepEqual(result.evidence.proof?.flakyTargets, result.evidence.targets);
    const proofs = sink.ofType('proof');
    assert.equal(proofs.length, 1);
    assert.equal(proofs[0].phase, 'verify');
    assert.match(String(proofs[0].payload.detail), /^unproven \(flaky target\): .*lucky draw passed without the fix in 2 of 3 runs/);
    // every repeat is its own gate verdict, numbered, after a seed from the second on
    const gates = sink.ofType('gate').map((e) => `${e.payload.gate}:${e.payload.passed}`);
    assert.deepEqual(gates, [
      'red:true',
      'base:false',
      'compile:true',
      'green:true',
      'green:true',
      'green:true',
      'green:true',
      'regression:true',
      'final:true',
      'final:true',
      'final:true',
      'red:false',
      'red:false',
    ]);
    const repeats = sink.ofType('gate').filter((e) => e.payload.repeat);
    assert.deepEqual(
      repeats.map((e) => (e.payload.repeat as { index: number }).index),
      [2, 3, 2, 3, 2, 3],
    );
    assert.ok(repeats.every((e) => typeof (e.payload.repeat as { seed?: number }).seed === 'number'));

    // the base gate of a test the change adds says the test is not there, not that the change broke it
    assert.equal(result.evidence.base?.passed, false);
    assert.equal(result.evidence.base?.notRun, 1);
    assert.match(result.evidence.base?.detail ?? '', /not in the report/);
    const line = formatEvent(sink.ofType('gate').find((e) => e.payload.gate === 'base')!);
    assert.doesNotMatch(line, /the change broke them/);
    assert.match(line, /not at the base revision/);
  });

  test('a target that fails a repeat with the fix ends the run without a fix', async () => {
    // the pipeline's GREEN passes (draw 3), its second repeat does not (draw 5)
    const repo = lotteryRepo([1, 5]);
    const sink = new ArraySink();
    const result = await runRepair(input(repo, sink));
    assert.equal(result.status, 'no_fix');
    assert.equal(result.exitReason, 'final_rerun_failed');
    assert.match(result.exitDetail ?? '', /GREEN passed once but not on repeat 3 of 3, seed \d+/);
    assert.equal(result.evidence.proof, undefined);
  });
});
