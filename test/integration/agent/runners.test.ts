import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { CANDIDATE_MIN_SECONDS, candidateTimeoutSeconds, createGates } from '@/agent/gates/gates';
import { runRepair } from '@/agent/pipeline';
import { Workspace } from '@/agent/workspace/workspace';
import { ArraySink } from '@/agent/report/sinks';
import { createOfflinePolicy } from '@/agent/policies/offline';
import { runTests } from '@/agent/testing/test-runner';
import { RepositorySettingsSchema } from '@/common/settings';
import { createTsRepo, makeRepo, TS_CART_BASE, type TestRepo } from '../../helpers/agent-repos';

// The repository's runner as it is: what its reports and its processes really
// do (repeated test names, hangs), on real repositories and real runners.

const repos: Array<Pick<TestRepo, 'cleanup'>> = [];
after(() => repos.forEach((r) => r.cleanup()));

/** One test body run for each case under the same name, as a parametrised test does. */
const PARAMETRISED_TEST = `import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../src/cart.ts';

const cases: Array<[Array<{ price: number; qty: number }>, number]> = [
  [[], 0],
  [[{ price: 5, qty: 3 }], 15],
  [[{ price: 0, qty: 0 }], 0],
];

describe('cart', () => {
  for (const [items, want] of cases) {
    test('total of a cart', () => {
      assert.equal(total(items), want);
    });
  }
});
`;

describe('repeated test names', () => {
  test('a target whose second instance fails reproduces, the repeat is reported, and the offline policy fixes it', async () => {
    const repo = createTsRepo();
    repos.push(repo);
    repo.write('test/cart.test.ts', PARAMETRISED_TEST);
    const head = repo.commit('tests: total over several carts');
    const sink = new ArraySink();
    const result = await runRepair({
      repoPath: repo.dir,
      baseRev: repo.base,
      headRev: head,
      targetTests: ['test::cart > total of a cart'],
      settings: repo.settings,
      policy: createOfflinePolicy(),
      sink,
      checkBase: false,
      change: { title: 'tests', description: '', author: 'dev' },
    });
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.equal(result.evidence.red?.passed, true);
    assert.match(result.diff, /item\.price \* item\.qty/);
    const logs = sink.ofType('log').map((e) => String(e.payload.text));
    assert.ok(
      logs.some((t) => t.includes('repeated test id test::cart > total of a cart stored as test::cart > total of a cart [2]')),
      logs.join('\n'),
    );
  });
});

describe('hangs', () => {
  test('candidates get a few times what RED took, not the whole test limit', () => {
    assert.equal(candidateTimeoutSeconds(1_000, 600), CANDIDATE_MIN_SECONDS);
    assert.equal(candidateTimeoutSeconds(20_000, 600), 85);
    assert.equal(candidateTimeoutSeconds(200_000, 600), 600);
  });

  test('a candidate that loops forever costs seconds, is named a timeout, and the next candidate still runs', async () => {
    const repo = createTsRepo();
    repos.push(repo);
    const ws = await Workspace.create({ source: repo.dir, headRev: 'HEAD' });
    try {
      const settings = { ...repo.settings, build: undefined, timeLimits: { ...repo.settings.timeLimits, testSeconds: 600 } };
      const gates = createGates({ workspace: ws, settings, targets: [{ id: 'test::cart > total multiplies price by quantity' }], sink: new ArraySink() });
      assert.equal((await gates.runTargets('red', 'fail')).verdict.passed, true);
      const loop = await gates.applyEdit({ kind: 'replace', file: 'src/cart.ts', oldText: 'let sum = 0;', newText: 'let sum = 0;\n  while (items) sum += 0;' });
      assert.equal(loop.passed, true);
      const hung = await gates.green();
      assert.equal(hung.verdict.passed, false);
      assert.match(hung.verdict.detail ?? '', /^timed out: the command did not finish within \d+ s/);
      assert.ok(hung.run.command.durationMs < 60_000, `took ${hung.run.command.durationMs} ms`);
      assert.match(hung.run.results[0].message ?? '', /timed out/);
      await gates.reset();
      await gates.applyEdit({ kind: 'replace', file: 'src/cart.ts', oldText: 'item.price + item.qty', newText: 'item.price * item.qty' });
      assert.equal((await gates.green()).verdict.passed, true);
    } finally {
      await ws.dispose();
    }
  });

  test('a bug that makes the target slow: candidates get a few times what the target took before the change, not what the slow head took', async () => {
    // the change multiplies wrongly and, with it, waits 8 s: RED takes ~9 s, so RED alone would give each candidate 4 × 9 + 5 ≈ 41 s
    const slowHead = TS_CART_BASE.replace(
      'sum += item.price * item.qty;',
      'sum += item.price + item.qty;\n    const until = Date.now() + 8000;\n    while (Date.now() < until);',
    );
    const repo = createTsRepo({ head: slowHead });
    repos.push(repo);
    const ws = await Workspace.create({ source: repo.dir, headRev: 'HEAD' });
    try {
      const settings = { ...repo.settings, build: undefined, timeLimits: { ...repo.settings.timeLimits, testSeconds: 600 } };
      const gates = createGates({ workspace: ws, settings, targets: [{ id: 'test::cart > total multiplies price by quantity' }], sink: new ArraySink() });
      const red = await gates.runTargets('red', 'fail');
      assert.equal(red.verdict.passed, true);
      assert.ok(red.run.command.durationMs > 8000, `RED took ${red.run.command.durationMs} ms`);
      await ws.checkoutRevision(repo.base);
      let baseMs: number;
      try {
        // the target passes at the base, quickly: that is how long the healthy code takes
        const base = await gates.runTargets('base', 'fail');
        assert.equal(base.verdict.passed, false);
        baseMs = base.run.command.durationMs;
      } finally {
        await ws.checkoutRevision(ws.headRev);
      }
      // the limits follow the measured times (a loaded machine stretches both), so the test compares them, not a constant
      const fromBase = candidateTimeoutSeconds(baseMs, 600);
      const fromRed = candidateTimeoutSeconds(red.run.command.durationMs, 600);
      assert.ok(fromBase < fromRed, `base ${baseMs} ms, RED ${red.run.command.durationMs} ms`);
      const loop = await gates.applyEdit({ kind: 'replace', file: 'src/cart.ts', oldText: 'let sum = 0;', newText: 'let sum = 0;\n  while (items) sum += 0;' });
      assert.equal(loop.passed, true);
      const hung = await gates.green();
      assert.match(hung.verdict.detail ?? '', new RegExp(`^timed out: the command did not finish within ${fromBase} s`));
      assert.ok(hung.run.command.durationMs < fromRed * 1000, `took ${hung.run.command.durationMs} ms, RED's limit was ${fromRed} s`);
    } finally {
      await ws.dispose();
    }
  });
});

describe('a test file that fails to load', () => {
  // node --test names such a file by its absolute path: the id must not depend on where the workspace is
  test('node --test reports it under its repository-relative path, the same in every workspace', async () => {
    const repo = makeRepo('flowfix-loadfail-');
    repos.push(repo);
    repo.write('package.json', JSON.stringify({ name: 'calc', private: true }) + '\n');
    repo.write('test/ok.test.js', "const { test } = require('node:test');\ntest('adds', () => {});\n");
    repo.write('test/broken.test.js', "require('../src/missing');\nconst { test } = require('node:test');\ntest('never runs', () => {});\n");
    repo.commit('base');
    const settings = RepositorySettingsSchema.parse({
      language: 'javascript',
      test: 'node --test --test-reporter=junit --test-reporter-destination=junit.xml test/',
      junitReport: 'junit.xml',
    });
    const ids: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const ws = await Workspace.create({ source: repo.dir, headRev: 'HEAD' });
      try {
        const run = await runTests({ workspace: ws, settings, kind: 'regression', targets: [] });
        assert.equal(run.reportError, undefined);
        const broken = run.results.find((r) => r.status !== 'passed');
        assert.ok(broken, JSON.stringify(run.results));
        assert.ok(!broken.id.includes(ws.root), `${broken.id} names the workspace`);
        // a later run (RED, GREEN) finds the target by that id, and by the id CI's report gave it on CI's machine
        for (const id of [broken.id, 'test::/home/runner/work/calc/calc/test/broken.test.js']) {
          const target = await runTests({ workspace: ws, settings, kind: 'target', targets: [{ id }] });
          assert.equal(target.results[0].status, 'failed', JSON.stringify(target.results[0]));
          assert.equal(target.results[0].id, 'test::test/broken.test.js');
        }
        ids.push(run.results.map((r) => r.id).sort());
        // node's TAP names it the same way
        const tap = await runTests({
          workspace: ws,
          settings: { ...settings, test: 'node --test --test-reporter=tap test/ > report.tap', junitReport: 'report.tap' },
          kind: 'regression',
          targets: [],
        });
        assert.deepEqual(tap.results.map((r) => r.id).sort(), ['tap::adds', 'tap::test/broken.test.js']);
      } finally {
        await ws.dispose();
      }
    }
    assert.deepEqual(ids[0], ['test::adds', 'test::test/broken.test.js']);
    assert.deepEqual(ids[1], ids[0]);
  });
});
