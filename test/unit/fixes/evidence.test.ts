import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFixEvidence } from '@/lib/fixes/evidence';

test("a gate counts the tests its run reported, from the verdict's numbers, not the failures it lists", () => {
  const view = readFixEvidence({
    targets: ['tests.test_fees::test_overdraft'],
    green: {
      gate: 'green',
      passed: true,
      durationMs: 900,
      tests: [{ id: 'tests.test_fees::test_overdraft', status: 'passed' }],
      counts: { run: 1, passed: 1, failed: 0, skipped: 0 },
    },
    // the regression gate lists only its failing tests; its detail is prose for people
    regression: { gate: 'regression', passed: true, durationMs: 880, detail: 'all good', tests: [], counts: { run: 16, passed: 15, failed: 0, skipped: 1 } },
  });
  const byGate = Object.fromEntries(view.gates.map((g) => [g.gate, g.testCount]));
  assert.equal(byGate.green, 1);
  assert.equal(byGate.regression, 16);
});

test('evidence stored before verdicts carried counts: target gates count what they list, the regression gate has no number', () => {
  const view = readFixEvidence({
    green: {
      gate: 'green',
      passed: true,
      durationMs: 900,
      detail: '2 passed, 0 failing of 2 target tests',
      tests: [
        { id: 'a', status: 'passed' },
        { id: 'b', status: 'passed' },
      ],
    },
    regression: { gate: 'regression', passed: true, durationMs: 880, detail: '16 of 16 tests pass', tests: [] },
  });
  const byGate = Object.fromEntries(view.gates.map((g) => [g.gate, g.testCount]));
  assert.equal(byGate.green, 2);
  assert.equal(byGate.regression, null, 'the prose is not parsed');
  assert.equal(view.gates[1].detail, '16 of 16 tests pass');
});

test('a gate without a count says so (null), malformed counts are ignored, and unreadable evidence gives no gates', () => {
  const view = readFixEvidence({ red: { gate: 'red', passed: true, durationMs: 10, counts: { run: 'many' } } });
  assert.equal(view.gates[0].testCount, null);
  assert.deepEqual(readFixEvidence('not evidence').gates, []);
});
