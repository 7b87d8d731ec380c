import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRenamedTargets, followedTargets } from '@/agent/gates/renamed-targets';
import type { TestResult } from '@/agent/types';

// A reviewer's edit that renames a failing test (to match the fix's new
// expectation): the target missing from the report is the test whose title
// the edit took out of a test file, and the tests that stand for it are the
// ones whose titles that file holds only after the edit.

const HEAD = `describe('money', () => {
  test('rounds half a cent up', () => {
    assert.equal(roundCents(12.5), 13);
  });
  test('rounds fractions to the nearest cent', () => {
    assert.equal(roundCents(12.4), 12);
  });
});
`;
const EDITED = HEAD.replace("'rounds half a cent up'", "'rounds half a cent to even'").replace('12.5), 13', '12.5), 12');

const result = (name: string, status: TestResult['status'] = 'passed'): TestResult => ({ id: `test::money > ${name}`, name: `money > ${name}`, status });
const suite = [result('rounds half a cent to even'), result('rounds fractions to the nearest cent'), result('an unrelated test elsewhere')];
const UP = { id: 'test::money > rounds half a cent up', name: 'money > rounds half a cent up' };

test('a target the edit renamed maps to the test the edited file now holds in its place', () => {
  const found = findRenamedTargets({ absent: [UP], files: [{ path: 'test/money.test.ts', atHead: HEAD, edited: EDITED }], results: suite });
  assert.deepEqual(found.unaccounted, []);
  assert.deepEqual(found.renamed, [
    {
      from: UP.id,
      file: 'test/money.test.ts',
      to: [{ id: 'test::money > rounds half a cent to even', name: 'money > rounds half a cent to even', file: 'test/money.test.ts' }],
    },
  ]);
  const other = { id: 'test::money > rounds fractions to the nearest cent' };
  assert.deepEqual(
    followedTargets([UP, other], found).map((t) => t.id),
    ['test::money > rounds half a cent to even', other.id],
  );
});

test('a target the edit removed without a test in its place, or one it left in the file, is unaccounted for, with why', () => {
  const removed = HEAD.replace(/  test\('rounds half a cent up'[^]*?\}\);\n/, '');
  const gone = findRenamedTargets({ absent: [UP], files: [{ path: 'test/money.test.ts', atHead: HEAD, edited: removed }], results: suite.slice(1) });
  assert.deepEqual(gone.renamed, []);
  assert.deepEqual(gone.unaccounted, [{ id: UP.id, why: `the edit takes ${UP.id} out of test/money.test.ts and adds no test in its place` }]);

  const kept = findRenamedTargets({ absent: [UP], files: [{ path: 'test/money.test.ts', atHead: HEAD, edited: `${HEAD}// more\n` }], results: suite });
  assert.deepEqual(kept.unaccounted, [{ id: UP.id, why: `${UP.id} is still in test/money.test.ts, but the test report does not list it` }]);

  const elsewhere = findRenamedTargets({ absent: [UP], files: [{ path: 'test/other.test.ts', atHead: 'nothing', edited: 'something' }], results: suite });
  assert.deepEqual(elsewhere.unaccounted, [{ id: UP.id, why: `${UP.id} is not in the test report, and no test file the edit changes held it` }]);
});

test("a report's file, when it names one, must be the edited file; parametrised ids are found by their function's name", () => {
  const py = {
    path: 'tests/test_fees.py',
    atHead: 'def test_fee_is_25():\n    assert fee() == 25\n',
    edited: 'def test_fee_is_35():\n    assert fee() == 35\n',
  };
  const results: TestResult[] = [
    { id: 'tests.test_fees::test_fee_is_35[a]', name: 'test_fee_is_35[a]', file: 'tests/test_fees.py', status: 'passed' },
    { id: 'tests.test_other::test_fee_is_35', name: 'test_fee_is_35', file: 'tests/test_other.py', status: 'passed' },
  ];
  const found = findRenamedTargets({ absent: [{ id: 'tests.test_fees::test_fee_is_25[a]', name: 'test_fee_is_25[a]' }], files: [py], results });
  assert.deepEqual(
    found.renamed.map((r) => [r.from, r.to.map((t) => t.id)]),
    [['tests.test_fees::test_fee_is_25[a]', ['tests.test_fees::test_fee_is_35[a]']]],
  );
});
