import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { wilson } from '@/common/stats';

// Newcombe (1998), "Two-sided confidence intervals for the single proportion:
// comparison of seven methods", Statistics in Medicine 17, table I, method 3
// (the Wilson score interval without continuity correction).
describe('wilson', () => {
  const cases: Array<[number, number, number, number]> = [
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ];
  for (const [x, n, low, high] of cases) {
    test(`${x}/${n} → ${low} to ${high}`, () => {
      const got = wilson(x, n)!;
      assert.ok(Math.abs(got.low - low) < 0.00006, `low ${got.low}`);
      assert.ok(Math.abs(got.high - high) < 0.00006, `high ${got.high}`);
    });
  }

  test('n = 0 has no interval; all successes reach 1 and stay inside [0, 1]', () => {
    assert.equal(wilson(0, 0), null);
    const all = wilson(10, 10)!;
    assert.equal(all.high, 1);
    assert.ok(all.low > 0.69 && all.low < 0.73, String(all.low));
  });

  test('a narrower z gives a narrower interval', () => {
    const wide = wilson(5, 10)!;
    const narrow = wilson(5, 10, 1)!;
    assert.ok(narrow.low > wide.low && narrow.high < wide.high);
  });

  test('more successes than trials is a caller error', () => {
    assert.throws(() => wilson(11, 10), RangeError);
  });
});
