import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { runRepair } from '@/agent/pipeline';
import { ArraySink } from '@/agent/report/sinks';
import type { Edit, Policy, PolicyOutcome } from '@/agent/types';
import { RepositorySettingsSchema } from '@/common/settings';
import { makeRepo, type TestRepo } from '../../helpers/agent-repos';

// A candidate that fixes the target but makes the suite die after its first
// tests: the tests it never reached are not passes. node:test run in process
// (`node test/x.js`) writes its report as the tests go (TAP) or at the end
// (JUnit); a process.exit cuts the TAP stream short, and an exception thrown
// from a timer is printed as a comment while every test stays "ok" and the
// process exits 1. Either way the gate that ran it (GREEN over the targets'
// file here) refuses the candidate and says why, and the policy's next
// candidate is tried.

const repos: Array<Pick<TestRepo, 'cleanup'>> = [];
after(() => repos.forEach((r) => r.cleanup()));

const CART = `exports.total = function total(items) {
  let sum = 0;
  for (const item of items) sum += item.price * item.qty;
  return sum;
};

exports.discount = function discount(amount, percent) {
  return amount - (amount * percent) / 100;
};
`;

// the discount test runs last, after a pause in which a timer set by the empty cart's test fires
const TESTS = `const { test } = require('node:test');
const assert = require('node:assert/strict');
const { total, discount } = require('../src/cart.js');

test('total multiplies price by quantity', () => {
  assert.equal(total([{ price: 5, qty: 3 }]), 15);
});

test('empty cart totals zero', () => {
  assert.equal(total([]), 0);
});

test('discount takes a percentage off', async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(discount(200, 10), 180);
});
`;

const TARGET = 'total multiplies price by quantity';
const FIX: Extract<Edit, { kind: 'replace' }> = {
  kind: 'replace',
  file: 'src/cart.js',
  oldText: 'sum += item.price + item.qty;',
  newText: 'sum += item.price * item.qty;',
};
const usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };

function cartRepo() {
  const repo = makeRepo('flowfix-cutshort-');
  repos.push(repo);
  repo.write('package.json', JSON.stringify({ name: 'cart', private: true }) + '\n');
  repo.write('.gitignore', 'report.tap\njunit.xml\n');
  repo.write('src/cart.js', CART);
  repo.write('test/cart.test.js', TESTS);
  const base = repo.commit('base');
  repo.write('src/cart.js', CART.replace('item.price * item.qty', 'item.price + item.qty'));
  repo.write('README.md', '# cart\n\nTotals in one pass.\n');
  const head = repo.commit('change: total');
  return { repo, base, head };
}

/** The crashing candidate first; when GREEN refuses it, the plain fix (as the offline policy goes on to its next candidate). */
function crashThenFix(crash: string): Policy & { greens: string[] } {
  const policy = {
    name: 'offline' as const,
    greens: [] as string[],
    async run(ctx: Parameters<Policy['run']>[0]): Promise<PolicyOutcome> {
      for (const edit of [{ ...FIX, newText: `${FIX.newText}\n  ${crash}` }, FIX] satisfies Edit[]) {
        await ctx.gates.reset();
        if (!(await ctx.gates.applyEdit(edit)).passed) continue;
        const { verdict } = await ctx.gates.green();
        policy.greens.push(`${verdict.passed ? 'PASS' : 'FAIL'} ${verdict.detail ?? ''}`);
        if (verdict.passed) return { status: 'patched', usage };
      }
      return { status: 'gave_up', exitReason: 'no_candidate', detail: 'not green', usage };
    },
  };
  return policy;
}

async function repairWith(report: 'tap' | 'junit', crash: string) {
  const { repo, base, head } = cartRepo();
  const settings = RepositorySettingsSchema.parse({
    language: 'javascript',
    test:
      report === 'tap'
        ? 'node --test-reporter=tap test/cart.test.js > report.tap'
        : 'node --test-reporter=junit --test-reporter-destination=junit.xml test/cart.test.js',
    junitReport: report === 'tap' ? 'report.tap' : 'junit.xml',
    coverage: false,
    timeLimits: { testSeconds: 60, regressionSeconds: 60 },
  });
  const sink = new ArraySink();
  const policy = crashThenFix(crash);
  const result = await runRepair({ repoPath: repo.dir, baseRev: base, headRev: head, targetTests: [TARGET], settings, policy, sink, checkBase: false });
  const regressions = sink
    .ofType('gate')
    .filter((e) => e.payload.gate === 'regression')
    .map((e) => e.payload);
  const logs = sink.ofType('log').map((e) => String(e.payload.text));
  return { result, regressions, logs, policy };
}

describe('a candidate that makes the suite die after its first tests', () => {
  // the targets' own run is the same file: cut short there, GREEN refuses it before the suite is ever run
  test('TAP cut short by process.exit(0): the plan is missing, GREEN refuses the candidate although the target passed, the next one fixes', async () => {
    const { result, regressions, policy } = await repairWith('tap', 'if (items.length === 0) setTimeout(() => process.exit(0), 20);');
    assert.equal(policy.greens.length, 2, policy.greens.join('\n'));
    assert.match(
      policy.greens[0]!,
      /^FAIL the report does not account for every test \(report\.tap: the TAP stream ends before its plan.*\); 1 passed, 0 failing of 1 target tests$/,
    );
    assert.match(policy.greens[1]!, /^PASS /);
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.doesNotMatch(result.diff, /process\.exit/);
    assert.equal(regressions.length, 1);
    assert.equal(regressions[0]?.passed, true);
  });

  test('JUnit, every test "passed" but an exception thrown from a timer made the process exit 1: GREEN refuses it', async () => {
    const { result, policy } = await repairWith('junit', "if (items.length === 0) setTimeout(() => { throw new Error('cart closed'); }, 20);");
    assert.match(
      policy.greens[0]!,
      /^FAIL the report does not account for every test \(the test command exited with code 1, but its report names no failing test\)/,
    );
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.doesNotMatch(result.diff, /cart closed/);
  });
});
