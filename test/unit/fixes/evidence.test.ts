import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFixEvidence } from '@/lib/fixes/queries';

test('the regression gate counts the suite it ran, not the failures it lists', () => {
  const view = readFixEvidence({
    targets: ['tests.test_fees::test_overdraft'],
    green: { gate: 'green', passed: true, durationMs: 900, tests: [{ id: 'tests.test_fees::test_overdraft', status: 'passed' }] },
    regression: { gate: 'regression', passed: true, durationMs: 880, detail: '16 of 16 tests pass', tests: [] },
  });
  const byGate = Object.fromEntries(view.gates.map((g) => [g.gate, g.testCount]));
  assert.equal(byGate.green, 1);
  assert.equal(byGate.regression, 16);
});

test('a gate without a count says so (null), and unreadable evidence gives no gates', () => {
  const view = readFixEvidence({ red: { gate: 'red', passed: true, durationMs: 10 } });
  assert.equal(view.gates[0].testCount, null);
  assert.deepEqual(readFixEvidence('not evidence').gates, []);
});
