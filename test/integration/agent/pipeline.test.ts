import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { runRepair, type RunRepairInput } from '@/agent/pipeline';
import { ArraySink } from '@/agent/report/sinks';
import { createOfflinePolicy } from '@/agent/policies/offline';
import type { Edit, Policy, PolicyContext, PolicyOutcome } from '@/agent/types';
import { createPyRepo, createTsRepo, type TestRepo } from '../../helpers/agent-repos';

const TARGET = 'test::cart > total multiplies price by quantity';
const usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };

/** A real policy with a fixed plan: apply these edits through the gates, then require GREEN. */
function scriptedPolicy(edits: Edit[], seen?: { ctx?: PolicyContext }): Policy {
  return {
    name: 'offline',
    async run(ctx): Promise<PolicyOutcome> {
      if (seen) seen.ctx = ctx;
      for (const edit of edits) {
        const verdict = await ctx.gates.applyEdit(edit);
        if (!verdict.passed) return { status: 'gave_up', exitReason: 'no_candidate', detail: 'edit refused', usage };
      }
      const { verdict } = await ctx.gates.green();
      return verdict.passed
        ? { status: 'patched', usage: { ...usage, toolCalls: edits.length } }
        : { status: 'gave_up', exitReason: 'no_candidate', detail: 'not green', usage };
    },
  };
}

const FIX: Edit = { kind: 'replace', file: 'src/cart.ts', oldText: 'item.price + item.qty', newText: 'item.price * item.qty' };

const repos: TestRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));
function tsRepo() {
  const r = createTsRepo();
  repos.push(r);
  return r;
}

/** A run on `repo`; the proof's repeats (GREEN, the final rerun and RED, `proof.runs` times each) only where a test asks for them. */
function input(repo: TestRepo, overrides: Partial<RunRepairInput>): RunRepairInput {
  return {
    repoPath: repo.dir,
    baseRev: repo.base,
    headRev: repo.head,
    targetTests: [TARGET],
    settings: { ...repo.settings, proof: { ...repo.settings.proof, runs: 1 } },
    policy: scriptedPolicy([FIX]),
    sink: new ArraySink(),
    change: { title: 'rework total', description: 'one pass', author: 'dev' },
    ...overrides,
  };
}

describe('runRepair on a TypeScript repository', () => {
  test('RED → localise → patch → GREEN → regression → final rerun → fixed, every step reported', async () => {
    const repo = tsRepo();
    const sink = new ArraySink();
    const seen: { ctx?: PolicyContext } = {};
    const result = await runRepair(input(repo, { sink, policy: scriptedPolicy([FIX], seen), settings: repo.settings }));
    assert.equal(repo.settings.proof.runs, 3);

    assert.equal(result.status, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.equal(result.exitReason, 'fixed');
    assert.match(result.diff, /^\+    sum \+= item\.price \* item\.qty;$/m);
    assert.deepEqual(result.files, ['src/cart.ts']);
    assert.deepEqual(result.evidence.targets, [TARGET]);
    assert.equal(result.evidence.red?.passed, true);
    assert.equal(result.evidence.base?.passed, false, 'the target passes on the base revision');
    assert.equal(result.evidence.notCausedByChange, false);
    assert.equal(result.evidence.green?.passed, true);
    assert.equal(result.evidence.regression?.passed, true);
    assert.equal(result.evidence.final?.passed, true);
    assert.ok(result.summaryHtml.length > 0);

    // the policy saw the evidence, the suspects and the change
    const ctx = seen.ctx!;
    assert.deepEqual(ctx.evidence.expectedActual[0], { testId: TARGET, actual: '11', expected: '17', operator: 'strictEqual' });
    assert.equal(ctx.suspects[0]?.file, 'src/cart.ts');
    assert.equal(ctx.suspects[0]?.symbol, 'total');
    assert.deepEqual(
      ctx.change.editedSpans.find((s) => s.file === 'src/cart.ts'),
      { file: 'src/cart.ts', startLine: 9, endLine: 9 },
    );
    assert.equal(ctx.redRun.results[0].status, 'failed');

    // the trajectory: phases in order, gate verdicts, suspects, a final event
    const phases = sink
      .ofType('phase')
      .filter((e) => e.payload.status === 'started')
      .map((e) => e.phase);
    assert.deepEqual(phases, ['setup', 'red', 'localise', 'patch', 'verify', 'summary']);
    const gates = sink.ofType('gate').map((e) => `${e.payload.gate}:${e.payload.passed}`);
    // GREEN and the final rerun three times each (proof.runs), then the head without the fix twice more: still failing, so proven
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
      'red:true',
      'red:true',
    ]);
    assert.equal(result.evidence.proof?.status, 'proven');
    assert.equal(sink.ofType('suspects').length, 1);
    assert.equal(sink.events.at(-1)?.type, 'final');
    assert.equal(sink.events.at(-1)?.payload.exitReason, 'fixed');

    for (const phase of ['setup', 'red', 'localise', 'patch', 'verify', 'summary'] as const) {
      assert.ok((result.phaseTimings[phase] ?? -1) >= 0, phase);
    }
    assert.ok(result.timings.commandMs > 0 && result.timings.commandMs <= result.timings.wallMs);
    assert.equal(result.timings.regressionRuns, 1);
    // the run folder is gone
    assert.equal(existsSync(ctx.workspace.root), false);
  });

  test('the offline policy fixes the broken operator end to end', async () => {
    const repo = tsRepo();
    const result = await runRepair(input(repo, { policy: createOfflinePolicy(), checkBase: false }));
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.match(result.diff, /item\.price \* item\.qty/);
  });

  test('no targets given: the failing tests of a full run become the targets', async () => {
    const repo = tsRepo();
    const result = await runRepair(input(repo, { targetTests: undefined, checkBase: false, runRegression: false }));
    assert.equal(result.exitReason, 'fixed');
    assert.deepEqual(result.evidence.targets, [TARGET]);
  });

  test('a target that passes on the head is not reproduced: abstain', async () => {
    const repo = tsRepo();
    const result = await runRepair(input(repo, { targetTests: ['test::cart > empty cart totals zero'] }));
    assert.equal(result.status, 'no_fix');
    assert.equal(result.exitReason, 'not_reproduced');
    assert.equal(result.diff, '');
    assert.equal(result.evidence.red?.passed, false);
  });

  test('a target that also fails on the base revision: not caused by the change', async () => {
    const repo = tsRepo();
    // a new base where the discount is already broken, and a head on top of it
    repo.git('checkout', '-q', '-b', 'broken-base', repo.base);
    repo.write('src/cart.ts', (await import('../../helpers/agent-repos')).TS_CART_BASE.replace('amount - (amount * percent) / 100', 'amount - percent'));
    const base = repo.commit('discount broken upstream');
    repo.write('README.md', '# shop\n\nDocs only.\n');
    const head = repo.commit('docs');
    const target = 'test::cart > discount takes a percentage off';
    const recorded = await runRepair(input(repo, { baseRev: base, headRev: head, targetTests: [target], filterPolicy: undefined }));
    assert.equal(recorded.exitReason, 'not_caused_by_change');
    assert.equal(recorded.evidence.notCausedByChange, true);
    assert.equal(recorded.evidence.base?.passed, true);
  });

  test('a test that already failed on the base is left out; the test the change broke is fixed', async () => {
    const repo = tsRepo();
    // the discount was broken before the change; the change then breaks total()
    const { TS_CART_BASE, TS_CART_HEAD } = await import('../../helpers/agent-repos');
    const brokenDiscount = (text: string) => text.replace('amount - (amount * percent) / 100', 'amount - percent');
    repo.git('checkout', '-q', '-b', 'discount-broken', repo.base);
    repo.write('src/cart.ts', brokenDiscount(TS_CART_BASE));
    const base = repo.commit('discount broken upstream');
    repo.write('src/cart.ts', brokenDiscount(TS_CART_HEAD));
    repo.write('README.md', '# shop\n\nTotals now computed in one pass.\n');
    const head = repo.commit('change: rework total');
    const discount = 'test::cart > discount takes a percentage off';
    for (const targetTests of [[TARGET, discount], undefined]) {
      const sink = new ArraySink();
      const result = await runRepair(input(repo, { baseRev: base, headRev: head, targetTests, sink }));
      assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
      assert.deepEqual(result.evidence.targets, [TARGET]);
      assert.equal(result.evidence.notCausedByChange, false);
      assert.deepEqual(
        result.evidence.droppedTargets?.map((d) => d.id),
        [discount],
      );
      assert.match(result.evidence.droppedTargets?.[0].reason ?? '', /fails on the base revision too/);
      const logs = sink.ofType('log').map((e) => String(e.payload.text));
      assert.ok(
        logs.some((t) => t.includes(`left out 1 target test(s) that fail on the base revision too (not caused by the change): ${discount}`)),
        logs.join('\n'),
      );
      // the regression suite still fails there, and that is not held against the fix
      assert.equal(result.evidence.regression?.passed, true, result.evidence.regression?.detail);
      assert.match(result.evidence.regression?.detail ?? '', /not counted: 1 failing on the base revision too/);
      assert.match(result.summaryHtml, /discount takes a percentage off/);
    }
  });

  test('a fix that loosens the assertion passes GREEN but is dropped by the post filter', async () => {
    const repo = tsRepo();
    const weaken: Edit = {
      kind: 'replace',
      file: 'test/cart.test.ts',
      oldText: 'assert.equal(total([{ price: 5, qty: 3 }, { price: 1, qty: 2 }]), 17);',
      newText: 'assert.ok(total([{ price: 5, qty: 3 }, { price: 1, qty: 2 }]) > 0);',
    };
    const result = await runRepair(input(repo, { policy: scriptedPolicy([weaken]), checkBase: false }));
    assert.equal(result.status, 'no_fix');
    assert.equal(result.exitReason, 'dropped:weakens_assertions');
    assert.equal(result.dropped?.reason, 'weakens_assertions');
    // and the change does not contradict the test: no edit of it would be a fix
    assert.ok(result.dropped?.findings.some((f) => f.reason === 'edits_tests'));
    assert.match(result.diff, /assert\.ok/);
  });

  test('a fix that breaks another test fails the regression gate, is refused by GREEN when proposed again; a different fix is then accepted', async () => {
    const breakDiscount: Edit = { kind: 'replace', file: 'src/cart.ts', oldText: 'amount - (amount * percent) / 100', newText: 'amount - percent' };
    // the same plan every turn: the second turn's GREEN must say why it is refused
    const again = new ArraySink();
    const refused = await runRepair(input(tsRepo(), { sink: again, policy: scriptedPolicy([FIX, breakDiscount]), checkBase: false }));
    assert.equal(refused.exitReason, 'regression_failed');
    assert.match(refused.exitDetail ?? '', /discount takes a percentage off/);
    assert.equal(refused.evidence.green?.passed, true);
    assert.equal(refused.evidence.regression?.passed, false);
    assert.equal(refused.timings.regressionRuns, 1, 'the re-proposed fix never reaches the regression suite again');
    const greens = again.events.filter((e) => e.type === 'gate' && e.payload.gate === 'green').map((e) => [e.payload.passed, e.payload.detail]);
    assert.equal(greens.at(-1)?.[0], false);
    assert.match(String(greens.at(-1)?.[1]), /this exact fix was rejected earlier: the fix breaks .*discount takes a percentage off/);

    // a policy that learns: its second turn proposes only the fix
    let turn = 0;
    const learning: Policy = { name: 'offline', run: (ctx) => scriptedPolicy(turn++ === 0 ? [FIX, breakDiscount] : [FIX]).run(ctx) };
    const fixed = await runRepair(input(tsRepo(), { policy: learning, checkBase: false }));
    assert.equal(fixed.exitReason, 'fixed');
    assert.equal(fixed.timings.regressionRuns, 2);
    assert.doesNotMatch(fixed.diff, /amount - percent/);
  });

  test('a policy that gives up ends the run with its reason; GREEN avoided the regression run', async () => {
    const repo = tsRepo();
    const wrong: Edit = { ...FIX, newText: 'item.price - item.qty' } as Edit;
    const result = await runRepair(input(repo, { policy: scriptedPolicy([wrong]), checkBase: false }));
    assert.equal(result.exitReason, 'no_candidate');
    assert.equal(result.timings.regressionRuns, 0);
  });

  test('tiers: the second policy runs on a clean workspace after the first gives up', async () => {
    const repo = tsRepo();
    const wrong: Edit = { ...FIX, newText: 'item.price - item.qty' } as Edit;
    const result = await runRepair(
      input(repo, { policy: [scriptedPolicy([wrong]), { ...scriptedPolicy([FIX]), name: 'llm' }], checkBase: false, runRegression: false }),
    );
    assert.equal(result.exitReason, 'fixed');
    assert.equal(result.policy, 'llm');
    assert.doesNotMatch(result.diff, /item\.price - item\.qty/);
  });

  test('the change moved on while the run worked: dropped as stale', async () => {
    const repo = tsRepo();
    const result = await runRepair(
      input(repo, { checkBase: false, runRegression: false, checkStale: async () => ({ stale: true, detail: 'revision 2 arrived' }) }),
    );
    assert.equal(result.exitReason, 'dropped:stale');
    assert.equal(result.exitDetail, 'revision 2 arrived');
  });

  test('cancellation ends the run as cancelled and removes the workspace', async () => {
    const repo = tsRepo();
    const controller = new AbortController();
    let root = '';
    const hanging: Policy = {
      name: 'llm',
      async run(ctx) {
        root = ctx.workspace.root;
        controller.abort();
        return { status: 'gave_up', exitReason: 'cancelled', detail: 'cancelled', usage };
      },
    };
    const result = await runRepair(input(repo, { policy: hanging, signal: controller.signal, checkBase: false }));
    assert.equal(result.status, 'cancelled');
    assert.equal(existsSync(root), false);
  });

  test('an unknown head revision fails setup', async () => {
    const repo = tsRepo();
    const result = await runRepair(input(repo, { headRev: 'f'.repeat(40) }));
    assert.equal(result.status, 'failed');
    assert.equal(result.exitReason, 'setup_failed');
  });
});

describe('runRepair on a Python repository', () => {
  test('the offline policy repairs the narrowed guard; pytest results come from JUnit XML', async () => {
    const repo = createPyRepo();
    repos.push(repo);
    const sink = new ArraySink();
    const result = await runRepair({
      repoPath: repo.dir,
      baseRev: repo.base,
      headRev: repo.head,
      targetTests: ['tests.test_cart::test_total'],
      settings: repo.settings,
      policy: createOfflinePolicy(),
      sink,
    });
    assert.equal(
      result.exitReason,
      'fixed',
      `${result.exitReason}: ${result.exitDetail}\n${JSON.stringify(sink.ofType('gate').map((e) => e.payload)).slice(0, 2000)}`,
    );
    assert.deepEqual(result.files, ['shop/cart.py']);
    assert.deepEqual(result.evidence.failure?.expectedActual[0], { testId: 'tests.test_cart::test_total', actual: '11', expected: '17', operator: '==' });
    assert.equal(result.suspects[0]?.file, 'shop/cart.py');
    assert.equal(result.suspects[0]?.symbol, 'total');
    assert.match(result.diff, /^\+    return sum\(price \* qty for price, qty in items\)$/m);
  });
});
