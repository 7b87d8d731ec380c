import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { RunRepairInput } from '@/agent/pipeline';
import { localise } from '@/agent/phases/localise';
import { patch } from '@/agent/phases/patch';
import { red } from '@/agent/phases/red';
import { setup } from '@/agent/phases/setup';
import { createRunState, RunExit, type RunState } from '@/agent/phases/state';
import { summariseAndFilter } from '@/agent/phases/summary';
import { verify } from '@/agent/phases/verify';
import { ArraySink } from '@/agent/report/sinks';
import type { Edit, Policy } from '@/agent/types';
import { createTsRepo, makeRepo, type TestRepo } from '../../helpers/agent-repos';

// Each phase alone, on a real repository with its real test command: the
// state a phase needs is made by the phases before it, and the phase under
// test is then called by itself.

const TOTAL = 'test::cart > total multiplies price by quantity';
const EMPTY = 'test::cart > empty cart totals zero';
const DISCOUNT = 'test::cart > discount takes a percentage off';
const FIX: Edit = { kind: 'replace', file: 'src/cart.ts', oldText: 'item.price + item.qty', newText: 'item.price * item.qty' };
const BREAK_DISCOUNT: Edit = { kind: 'replace', file: 'src/cart.ts', oldText: 'amount - (amount * percent) / 100', newText: 'amount - percent' };
const usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };
const notCalled: Policy = {
  name: 'offline',
  run: async () => assert.fail('no policy runs in this test'),
};

let repo: TestRepo;
const states: RunState[] = [];
before(() => {
  repo = createTsRepo();
});
after(async () => {
  for (const s of states) await s.workspace?.dispose();
  repo.cleanup();
});

/** A run state over the shared repository; without a build (tsc) unless a test needs one. */
function state(overrides: Partial<RunRepairInput> = {}): { state: RunState; sink: ArraySink } {
  const sink = new ArraySink();
  const s = createRunState({
    repoPath: repo.dir,
    baseRev: repo.base,
    headRev: repo.head,
    targetTests: [TOTAL],
    settings: { ...repo.settings, build: undefined },
    policy: notCalled,
    sink,
    ...overrides,
  });
  states.push(s);
  return { state: s, sink };
}

async function exitOf(promise: Promise<unknown>): Promise<RunExit> {
  const err = await promise.then(
    () => assert.fail('the phase was expected to end the run'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RunExit, String(err));
  return err;
}

describe('setup', () => {
  test('checks out the head and reads the change from base..head', async () => {
    const { state: s, sink } = state({ change: { title: 'rework total' } });
    const ready = await setup(s);
    assert.equal(ready.workspace.headRev, repo.head);
    assert.equal(ready.baseCommit, repo.base);
    assert.equal(ready.change.title, 'rework total');
    assert.deepEqual(
      ready.change.editedSpans.find((span) => span.file === 'src/cart.ts'),
      { file: 'src/cart.ts', startLine: 9, endLine: 9 },
    );
    assert.match(ready.changeDiff, /^\+    sum \+= item\.price \+ item\.qty;$/m);
    assert.deepEqual(
      sink.events.map((e) => [e.type, e.phase]),
      [
        ['phase', 'setup'],
        ['log', 'setup'],
      ],
    );
  });

  test('an install that fails ends the run as setup_failed, with the end of its output', async () => {
    const { state: s } = state({ settings: { ...repo.settings, build: undefined, install: 'echo "registry unreachable"; exit 7' } });
    const exit = await exitOf(setup(s));
    assert.equal(exit.exitReason, 'setup_failed');
    assert.match(
      exit.detail,
      /^install failed: command `echo "registry unreachable"; exit 7` \(exit code 7\); output \(last \d+ characters\):\nregistry unreachable/,
    );
    assert.ok(s.workspace, 'the run folder exists, for the pipeline to remove');
  });

  test('npm ci refused (the lock file is out of sync with package.json): npm install with the same flags, said in the log', async () => {
    const stale = makeRepo('flowfix-stalelock-');
    try {
      // a dependency added to package.json without updating the lock file (a local one: no registry needed)
      stale.write('package.json', JSON.stringify({ name: 'calc', version: '1.0.0', private: true, dependencies: { util: 'file:./util' } }, null, 2) + '\n');
      stale.write('util/package.json', JSON.stringify({ name: 'util', version: '1.0.0' }) + '\n');
      stale.write(
        'package-lock.json',
        JSON.stringify({ name: 'calc', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'calc', version: '1.0.0' } } }, null, 2) +
          '\n',
      );
      stale.write('.gitignore', 'node_modules/\n');
      const base = stale.commit('base');
      const { state: s, sink } = state({
        repoPath: stale.dir,
        baseRev: base,
        headRev: base,
        settings: { ...repo.settings, build: undefined, install: 'npm ci --no-audit --no-fund' },
      });
      const ready = await setup(s);
      const logs = sink.ofType('log').map((e) => String(e.payload.text));
      assert.ok(
        logs.some((t) => /^npm ci failed \(exit code \d+\); falling back to `npm install --no-save --no-audit --no-fund`/.test(t)),
        logs.join('\n'),
      );
      assert.ok(await ready.workspace.exists('node_modules/util/package.json'), 'the dependency is installed');
      // npm install --no-save leaves the lock file as it is: nothing of it in a fix's diff
      assert.deepEqual(await ready.workspace.changedFiles(), []);
    } finally {
      stale.cleanup();
    }
  });

  test('an unknown base revision ends the run as setup_failed', async () => {
    const exit = await exitOf(setup(state({ baseRev: 'no-such-branch' }).state));
    assert.equal(exit.exitReason, 'setup_failed');
    assert.match(exit.detail, /^unknown base revision no-such-branch/);
  });
});

describe('RED', () => {
  test('repairs only the targets that fail on the head, and checks them on the base', async () => {
    const { state: s, sink } = state({ targetTests: [TOTAL, EMPTY] });
    const ready = await setup(s);
    const before = sink.events.length;
    const reproduced = await red(ready);
    assert.deepEqual(reproduced.evidence.targets, [TOTAL]);
    assert.deepEqual(
      reproduced.redRun.results.map((r) => [r.id, r.status]),
      [[TOTAL, 'failed']],
    );
    assert.equal(reproduced.evidence.red?.passed, true);
    assert.equal(reproduced.evidence.base?.passed, false, 'the target passes on the base revision');
    assert.equal(reproduced.evidence.notCausedByChange, false);
    const gates = sink.events.slice(before).filter((e) => e.type === 'gate');
    assert.deepEqual(
      gates.map((e) => [e.payload.gate, e.payload.passed, (e.payload.tests as unknown[]).length]),
      [
        ['red', true, 2],
        ['base', false, 1],
      ],
    );
    // the workspace is back on the head after the base run
    assert.match(await reproduced.workspace.readFile('src/cart.ts'), /item\.price \+ item\.qty/);
  });

  test('no targets named: the failing tests of a full run become the targets', async () => {
    const reproduced = await red(await setup(state({ targetTests: undefined, checkBase: false }).state));
    assert.deepEqual(reproduced.evidence.targets, [TOTAL]);
    assert.equal(reproduced.meter.regressionRuns, 1);
    assert.equal(reproduced.evidence.base, undefined);
  });

  test('targets that pass on the head: not_reproduced, saying they passed', async () => {
    const exit = await exitOf(red(await setup(state({ targetTests: [EMPTY, DISCOUNT] }).state)));
    assert.equal(exit.exitReason, 'not_reproduced');
    assert.equal(
      exit.detail,
      'the target tests pass on the head revision (test::cart > empty cart totals zero, test::cart > discount takes a percentage off): the failure did not reproduce (flaky?)',
    );
  });

  test('targets the report does not list: not_reproduced, saying so and never that they pass', async () => {
    const GONE = 'test::cart > total was renamed away';
    const exit = await exitOf(red(await setup(state({ targetTests: [GONE] }).state)));
    assert.equal(exit.exitReason, 'not_reproduced');
    assert.doesNotMatch(exit.detail, /pass|flaky/);
    assert.match(exit.detail, /^the target tests are not in the head revision's test report \(1 of 1 did not run: test::cart > total was renamed away\)/);

    // some passed, some absent: each is named for what its result shows
    const mixed = await exitOf(red(await setup(state({ targetTests: [EMPTY, GONE] }).state)));
    assert.equal(mixed.exitReason, 'not_reproduced');
    assert.match(
      mixed.detail,
      /^no target test fails on the head revision: the failure did not reproduce \(not in the test report: test::cart > total was renamed away; passed: test::cart > empty cart totals zero\)$/,
    );
  });

  test('a test command that writes no report is a setup failure, not a pass', async () => {
    const { state: s } = state({ settings: { ...repo.settings, build: undefined, test: 'true' } });
    const exit = await exitOf(red(await setup(s)));
    assert.equal(exit.exitReason, 'setup_failed');
    // the command, its exit code and its output say what happened
    assert.match(exit.detail, /^no readable test report: the test command wrote no report at junit\.xml; command `true` \(exit code 0\); output: \(none\)$/);
  });

  test('no targets named and a report with no test in it (the runner failed before any test): a setup failure, not "every test passes"', async () => {
    const settings = { ...repo.settings, build: undefined, test: ': > report.tap; exit 1', junitReport: 'report.tap' };
    const exit = await exitOf(red(await setup(state({ settings, targetTests: undefined, checkBase: false }).state)));
    assert.equal(exit.exitReason, 'setup_failed');
    assert.match(exit.detail, /^the test command reported no tests; command `: > report\.tap; exit 1` \(exit code 1\)/);
  });

  test('a target run that never ends is a time limit, named with its command and output', async () => {
    const settings = { ...repo.settings, build: undefined, test: 'echo still going; sleep 60', timeLimits: { ...repo.settings.timeLimits, testSeconds: 2 } };
    const exit = await exitOf(red(await setup(state({ settings }).state)));
    assert.equal(exit.exitReason, 'time_limit');
    assert.match(
      exit.detail,
      /^the target tests timed out on the head revision \(testSeconds 2\): command `echo still going; sleep 60` \(killed by SIGTERM\)[^]*still going/,
    );
  });

  test('a run cancelled while the target tests run ends as cancelled, not as a setup failure', async () => {
    const controller = new AbortController();
    const settings = { ...repo.settings, build: undefined, test: 'sleep 60' };
    const ready = await setup(state({ settings, signal: controller.signal }).state);
    setTimeout(() => controller.abort(), 500);
    const started = Date.now();
    const exit = await exitOf(red(ready));
    assert.equal(exit.exitReason, 'cancelled');
    assert.ok(Date.now() - started < 20_000);
  });
});

describe('localise', () => {
  test('a scaffold that fails: the stack frames are ranked instead', async () => {
    const { state: s, sink } = state({
      checkBase: false,
      localise: async () => {
        throw new Error('index unavailable');
      },
    });
    const localised = await localise(await red(await setup(s)));
    assert.deepEqual(localised.failure.expectedActual[0], { testId: TOTAL, actual: '11', expected: '17', operator: 'strictEqual' });
    assert.ok(localised.suspects.length > 0);
    // the only frame is the test's own: the change's edit outside the tests is the suspect, never the test
    assert.ok(
      localised.suspects.every((x) => x.kind === 'window' && /^(stack frame|edited by the change) /.test(x.reasons[0])),
      JSON.stringify(localised.suspects),
    );
    assert.ok(localised.suspects.some((x) => x.file === 'src/cart.ts'));
    assert.ok(localised.suspects.every((x) => !x.file.startsWith('test/')));
    assert.ok(sink.events.some((e) => e.type === 'log' && /^the retrieval scaffold failed \(index unavailable\)/.test(String(e.payload.text))));
    assert.deepEqual(sink.ofType('suspects').at(-1)?.payload.suspects, localised.suspects);
  });
});

describe('patch and verify', () => {
  /** Applies edits through the real gates, as a policy would, then claims GREEN. */
  const scripted = (edits: Edit[]): Policy => ({
    name: 'offline',
    async run(ctx) {
      for (const edit of edits) assert.equal((await ctx.gates.applyEdit(edit)).passed, true);
      const { verdict } = await ctx.gates.green();
      return verdict.passed ? { status: 'patched', usage } : { status: 'gave_up', exitReason: 'no_candidate', detail: 'not green', usage };
    },
  });

  test('verify: a fix that breaks the suite is rejected and remembered until the attempts are spent', async () => {
    const { state: s } = state({ checkBase: false, maxVerifyAttempts: 2, localise: async () => [] });
    const localised = await localise(await red(await setup(s)));
    await localised.gates.applyEdit(FIX);
    await localised.gates.applyEdit(BREAK_DISCOUNT);

    assert.equal(await verify(localised, 1), false);
    assert.equal(localised.evidence.green?.passed, true);
    assert.equal(localised.evidence.regression?.passed, false);
    assert.deepEqual([...localised.rejected.keys()], [localised.diff]);
    assert.match(localised.rejected.get(localised.diff) ?? '', /^the fix breaks .*discount takes a percentage off/);
    assert.deepEqual(localised.files, ['src/cart.ts']);

    const exit = await exitOf(verify(localised, 2));
    assert.equal(exit.exitReason, 'regression_failed');
  });

  test('patch: GREEN refuses a fix the regression suite rejected, and the run ends with that reason', async () => {
    const { state: s, sink } = state({ checkBase: false, localise: async () => [], policy: scripted([FIX]) });
    const localised = await localise(await red(await setup(s)));
    await localised.gates.applyEdit(FIX);
    localised.rejected.set(await localised.gates.diff(), 'the fix breaks everything');

    const exit = await exitOf(patch(localised, 2));
    assert.equal(exit.exitReason, 'regression_failed');
    assert.equal(exit.detail, 'the fix breaks everything');
    const greens = sink.events.filter((e) => e.type === 'gate' && e.payload.gate === 'green');
    assert.deepEqual(
      greens.map((e) => [e.phase, e.payload.passed, e.payload.detail]),
      [
        [undefined, true, '1 passed, 0 failing of 1 target tests'],
        ['patch', false, 'this exact fix was rejected earlier: the fix breaks everything'],
      ],
    );
    assert.deepEqual(await localised.workspace.changedFiles(), [], 'the workspace is reset after the policies gave up');
  });

  test('patch then verify then summariseAndFilter: a fix accepted by the whole suite', async () => {
    const { state: s } = state({
      checkBase: false,
      localise: async () => [],
      policy: scripted([FIX]),
      summarise: async () => ({ html: '<p>ok</p>', source: 'evidence' }),
    });
    const localised = await localise(await red(await setup(s)));
    await patch(localised, 1);
    assert.equal(localised.policy, 'offline');
    assert.equal(await verify(localised, 1), true);
    assert.match(localised.diff, /^\+    sum \+= item\.price \* item\.qty;$/m);
    assert.deepEqual(await summariseAndFilter(localised), { exitReason: 'fixed' });
    assert.equal(localised.summaryHtml, '<p>ok</p>');
  });
});
