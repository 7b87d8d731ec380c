import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { collectCoverage, ochiai } from '@/agent/coverage/index';
import { runRepair } from '@/agent/pipeline';
import { detectRunner } from '@/agent/testing/runners';
import { ArraySink } from '@/agent/report/sinks';
import type { Policy, Suspect } from '@/agent/types';
import { Workspace } from '@/agent/workspace/workspace';
import type { RepositorySettings } from '@/common/settings';
import { createPyRepo, createTsRepo, PY_CART_BASE, pySettings, type TestRepo } from '../../helpers/agent-repos';

// Per-test coverage through the sandbox, on real repositories and real
// runners (node:test through tsx, pytest, unittest), and what it does to the
// ranking: a wrong value that raises nowhere in the code (the assertion in
// the test is the only frame) is found by the spectrum.

const repos: TestRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

// The change refactors withTax() and, in the same change, slips in taxCents()'s
// large-amount branch. Both are edited; the failing test calls withTax(), which
// calls taxCents(); a passing test runs withTax() and taxCents()'s other branch.
const TS_PRICING_BASE = `export function taxCents(cents: number): number {
  if (cents > 1000) {
    return Math.round(cents * 0.1);
  }
  return Math.round(cents * 0.05);
}

export function withTax(cents: number): number {
  const tax = taxCents(cents);
  return cents + tax;
}

export function label(sku: string): string {
  return sku.toUpperCase();
}
`;
const TS_PRICING_HEAD = TS_PRICING_BASE.replace('cents * 0.1', 'cents * 0.2').replace(
  '  const tax = taxCents(cents);\n  return cents + tax;',
  '  return cents + taxCents(cents);',
);
const TS_PRICING_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { label, withTax } from '../src/pricing.ts';

test('withTax on a large amount', () => {
  assert.equal(withTax(2000), 2200);
});

test('withTax on a small amount', () => {
  assert.equal(withTax(200), 210);
});

test('withTax on nothing', () => {
  assert.equal(withTax(0), 0);
});

test('withTax on a medium amount', () => {
  assert.equal(withTax(1000), 1050);
});

test('label shouts', () => {
  assert.equal(label('pen'), 'PEN');
});
`;

function tsPricingRepo(): TestRepo {
  const repo = createTsRepo();
  repos.push(repo);
  repo.write('src/pricing.ts', TS_PRICING_BASE);
  repo.write('test/pricing.test.ts', TS_PRICING_TEST);
  repo.git('rm', '-q', 'test/cart.test.ts');
  const base = repo.commit('pricing');
  repo.write('src/pricing.ts', TS_PRICING_HEAD);
  const head = repo.commit('pricing: one line for withTax; new rate');
  return { ...repo, base, head };
}

const PY_PRICING_BASE = `def tax_cents(cents):
    if cents > 1000:
        return round(cents * 0.1)
    return round(cents * 0.05)


def with_tax(cents):
    tax = tax_cents(cents)
    return cents + tax


def label(sku):
    return sku.upper()
`;
const PY_PRICING_HEAD = PY_PRICING_BASE.replace('cents * 0.1', 'cents * 0.2').replace(
  '    tax = tax_cents(cents)\n    return cents + tax',
  '    return cents + tax_cents(cents)',
);
const PY_PRICING_TEST = `from shop.pricing import label, with_tax


def test_with_tax_large():
    total = with_tax(2000)
    assert total == 2200


def test_with_tax_small():
    assert with_tax(200) == 210


def test_with_tax_nothing():
    assert with_tax(0) == 0


def test_with_tax_medium():
    assert with_tax(1000) == 1050


def test_label():
    assert label("pen") == "PEN"
`;

function pyPricingRepo(opts: { unittest?: boolean } = {}): TestRepo {
  const repo = createPyRepo();
  repos.push(repo);
  // the cart as it was, so that its tests pass
  repo.write('shop/cart.py', PY_CART_BASE);
  repo.write('shop/pricing.py', PY_PRICING_BASE);
  if (opts.unittest) {
    repo.write(
      'tests/test_pricing.py',
      `import unittest\n\nfrom shop.pricing import label, with_tax\n\n\nclass PricingTest(unittest.TestCase):\n    def test_with_tax_large(self):\n        self.assertEqual(with_tax(2000), 2200)\n\n    def test_with_tax_small(self):\n        self.assertEqual(with_tax(200), 210)\n\n    def test_with_tax_nothing(self):\n        self.assertEqual(with_tax(0), 0)\n\n    def test_label(self):\n        self.assertEqual(label("pen"), "PEN")\n`,
    );
    repo.git('rm', '-q', 'tests/test_cart.py');
    // a Python project without pytest configuration: unittest is the runner
    repo.write('requirements.txt', '');
  } else {
    repo.write('tests/test_pricing.py', PY_PRICING_TEST);
  }
  const base = repo.commit('pricing');
  repo.write('shop/pricing.py', PY_PRICING_HEAD);
  const head = repo.commit('pricing: one line for with_tax; new rate');
  return { ...repo, base, head };
}

/** A policy that only looks: it records the suspects it was handed and gives up. */
function lookingPolicy(seen: { suspects?: Suspect[] }): Policy {
  return {
    name: 'offline',
    async run(ctx) {
      seen.suspects = ctx.suspects;
      return {
        status: 'gave_up',
        exitReason: 'no_candidate',
        detail: 'only looking',
        usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 },
      };
    },
  };
}

async function suspectsOf(repo: TestRepo, target: string, settings: RepositorySettings) {
  const seen: { suspects?: Suspect[] } = {};
  const sink = new ArraySink();
  await runRepair({
    repoPath: repo.dir,
    baseRev: repo.base,
    headRev: repo.head,
    targetTests: [target],
    settings,
    policy: lookingPolicy(seen),
    sink,
    checkBase: false,
    runRegression: false,
    change: { title: 'pricing', description: '', author: 'dev' },
  });
  return { suspects: seen.suspects ?? [], logs: sink.ofType('log').map((e) => String(e.payload.text)), sink };
}

async function withWorkspace<T>(repo: TestRepo, fn: (ws: Workspace) => Promise<T>): Promise<T> {
  const ws = await Workspace.create({ source: repo.dir, headRev: repo.head });
  try {
    return await fn(ws);
  } finally {
    await ws.dispose();
  }
}

describe('collectCoverage', () => {
  test('node:test through tsx: each test its own lines, mapped back to the TypeScript source', async () => {
    const repo = tsPricingRepo();
    const cov = await withWorkspace(repo, (ws) =>
      collectCoverage({
        workspace: ws,
        settings: repo.settings,
        targets: [{ id: 'test::withTax on a large amount', name: 'withTax on a large amount' }],
        timeoutSeconds: 60,
        isTestFile: (f) => f.startsWith('test/'),
      }),
    );
    assert.equal(cov.failing, 1);
    assert.equal(cov.passing, 4);
    const lines = cov.spectrum.lines.get('src/pricing.ts');
    assert.ok(lines, 'src/pricing.ts is in the spectrum');
    // line 3: the large-amount branch (the fault), run by the failing test only
    assert.deepEqual(lines.get(3), { failed: 1, passed: 0 });
    assert.equal(ochiai(lines.get(3)!, cov.spectrum.totalFailed), 1);
    // line 5: the small-amount branch, run by the passing withTax tests only
    assert.deepEqual(lines.get(5), { failed: 0, passed: 3 });
    // withTax's body: every withTax test
    assert.deepEqual(lines.get(9), { failed: 1, passed: 3 });
    // label: only the label test
    assert.deepEqual(lines.get(13), { failed: 0, passed: 1 });
    assert.equal(cov.spectrum.lines.has('test/pricing.test.ts'), false, 'test files are left out');
    assert.equal(await withWorkspace(repo, async (ws) => (await ws.diff()) === ''), true);
  });

  test('pytest: the plugin records each test and its outcome', async () => {
    const repo = pyPricingRepo();
    const cov = await withWorkspace(repo, async (ws) => {
      const result = await collectCoverage({
        workspace: ws,
        settings: repo.settings,
        targets: [{ id: 'tests.test_pricing::test_with_tax_large', name: 'test_with_tax_large' }],
        timeoutSeconds: 60,
      });
      assert.equal(await ws.diff(), '', 'nothing of the bootstrap is left in the repository');
      return result;
    });
    const lines = cov.spectrum.lines.get('shop/pricing.py');
    assert.ok(lines);
    assert.deepEqual(lines.get(3), { failed: 1, passed: 0 });
    assert.deepEqual(lines.get(4), { failed: 0, passed: 3 });
    assert.deepEqual(lines.get(8), { failed: 1, passed: 3 });
    // test_cart's three tests pass too and run shop/cart.py
    assert.equal(cov.failing, 1);
    assert.equal(cov.passing, 7);
    assert.ok(cov.spectrum.lines.has('shop/cart.py'));
  });

  test('unittest without pytest: TestCase.run delimits the tests', async () => {
    const repo = pyPricingRepo({ unittest: true });
    const read = (rel: string) => {
      try {
        return repo.git('show', `HEAD:${rel}`);
      } catch {
        return null;
      }
    };
    const runner = detectRunner(read);
    assert.equal(runner?.runner, 'unittest');
    const settings = pySettings({ test: runner!.test, junitReport: runner!.junitReport });
    const cov = await withWorkspace(repo, (ws) =>
      collectCoverage({
        workspace: ws,
        settings,
        targets: [{ id: 'tap::tests.test_pricing.PricingTest.test_with_tax_large', name: 'tests.test_pricing.PricingTest.test_with_tax_large' }],
        timeoutSeconds: 60,
      }),
    );
    assert.equal(cov.failing, 1);
    assert.equal(cov.passing, 3);
    assert.deepEqual(cov.spectrum.lines.get('shop/pricing.py')?.get(3), { failed: 1, passed: 0 });
  });
});

describe('localisation with coverage', () => {
  test('TypeScript: the branch only the failing test ran puts taxCents first; without coverage the edited caller leads', async () => {
    const repo = tsPricingRepo();
    const target = 'test::withTax on a large amount';
    const without = await suspectsOf(repo, target, { ...repo.settings, coverage: false });
    assert.equal(without.suspects[0]?.symbol, 'withTax', JSON.stringify(without.suspects));
    const withCov = await suspectsOf(repo, target, repo.settings);
    assert.equal(withCov.suspects[0]?.symbol, 'taxCents', JSON.stringify(withCov.suspects));
    assert.ok(
      withCov.suspects[0].reasons.some((r) => /^Ochiai 1\.00: line 3 ran in 1\/1 failing and 0\/4 passing tests$/.test(r)),
      withCov.suspects[0].reasons.join('; '),
    );
    assert.ok(
      withCov.logs.some((t) => /^coverage: 1 failing and 4 passing test\(s\) over 1 production file\(s\)/.test(t)),
      withCov.logs.join('\n'),
    );
    // label: no failing test ran it, in a file they ran
    const labelled = [...withCov.suspects, ...((withCov.sink.ofType('suspects')[0]?.payload.runnersUp as Suspect[] | undefined) ?? [])].find(
      (s) => s.symbol === 'label',
    );
    if (labelled) assert.ok(labelled.reasons.includes('no failing test ran it (coverage)'));
  });

  test('Python: the same through pytest (whose report names with_tax, the test’s own callee)', async () => {
    const repo = pyPricingRepo();
    const target = 'tests.test_pricing::test_with_tax_large';
    const without = await suspectsOf(repo, target, { ...repo.settings, coverage: false });
    assert.equal(without.suspects[0]?.symbol, 'with_tax', JSON.stringify(without.suspects));
    const withCov = await suspectsOf(repo, target, repo.settings);
    assert.equal(withCov.suspects[0]?.symbol, 'tax_cents', JSON.stringify(withCov.suspects));
  });

  test('a runner the bootstrap does not know: the run goes on without coverage and says why', async () => {
    const repo = tsPricingRepo();
    // a hand-written TAP producer, no node:test: nothing records tests
    repo.write(
      'test/run.mjs',
      `import { withTax } from '../src/pricing.ts';\nconsole.log('TAP version 13');\nconsole.log('1..1');\nconsole.log(withTax(2000) === 2200 ? 'ok 1 - large' : 'not ok 1 - large');\n`,
    );
    const head = repo.commit('a TAP script');
    const settings = {
      ...repo.settings,
      test: `node --import ${process.cwd()}/node_modules/tsx/dist/loader.mjs test/run.mjs > report.tap`,
      junitReport: 'report.tap',
    };
    const { suspects, logs } = await suspectsOf({ ...repo, head }, 'large', settings);
    assert.ok(
      logs.some((t) => t.startsWith('coverage unavailable, localising without it: the instrumented run recorded no test')),
      logs.join('\n'),
    );
    assert.ok(suspects.length > 0, 'the suspects are still ranked');
  });
});
