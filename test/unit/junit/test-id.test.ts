import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_ID_MAX_CHARS, baseTestId, boundTestId, formatTestId, isInstanceOf, matchesTarget, splitTestId, testNameOf } from '@/lib/junit/test-id';
import type { TestResult } from '@/common/test-results';

// One test-id module: what the JUnit reader builds, ingestion stores (cut
// with a hash when too long) and the agent matches its own runs against.

function result(over: Partial<TestResult>): TestResult {
  return { id: 'cart::total', name: 'total', classname: 'cart', status: 'failed', ...over } as TestResult;
}

describe('test ids', () => {
  test('format and split are inverse; a name may hold the separator itself', () => {
    assert.equal(formatTestId('tests.test_cart', 'test_total[1::2]'), 'tests.test_cart::test_total[1::2]');
    assert.deepEqual(splitTestId('tests.test_cart::test_total[1::2]'), { key: 'tests.test_cart', name: 'test_total[1::2]' });
    assert.equal(splitTestId('total sums'), null);
    assert.equal(testNameOf('cart::a > b'), 'a > b');
    assert.equal(testNameOf('a > b'), 'a > b');
    assert.equal(baseTestId('cart::total [2] [3]'), 'cart::total');
  });

  test('a long id is cut to the limit with a hash of the whole, so two long ids with one prefix stay apart', () => {
    const a = `cart::${'x'.repeat(2_000)}a`;
    const b = `cart::${'x'.repeat(2_000)}b`;
    assert.ok(boundTestId(a).length < TEST_ID_MAX_CHARS);
    assert.match(boundTestId(a), /#[0-9a-f]{16}$/);
    assert.notEqual(boundTestId(a), boundTestId(b));
    assert.equal(boundTestId('cart::total'), 'cart::total');
  });

  test('a stored id that was cut matches the result it was cut from, and no other', () => {
    const long = `cart::${'x'.repeat(2_000)}a`;
    const stored = boundTestId(long);
    assert.equal(matchesTarget(result({ id: long, name: long.slice(6) }), stored), true);
    assert.equal(matchesTarget(result({ id: `cart::${'x'.repeat(2_000)}b`, name: 'x' }), stored), false);
    assert.equal(isInstanceOf(result({ id: long, name: long.slice(6) }), stored), true);
  });

  test('a target names a result by its id, its key and name or leaf, or a name a person typed', () => {
    const r = result({ id: 'test::cart > total sums', name: 'cart > total sums', classname: 'test' });
    assert.equal(matchesTarget(r, 'test::cart > total sums'), true);
    assert.equal(matchesTarget(r, 'test::total sums'), true);
    assert.equal(matchesTarget(r, 'total sums'), true);
    assert.equal(matchesTarget(r, 'other::total sums'), false);
    assert.equal(isInstanceOf(result({ id: 'cart::total [2]' }), 'cart::total'), true);
  });
});
