import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { shareChange, wilson } from '@/common/stats';

// A share's change between two periods is called a rise or a fall only when
// their 95% Wilson intervals do not overlap; otherwise the page says it may be
// noise and gives it no trend colour.

const share = (k: number, n: number) => ({ share: k / n, ...wilson(k, n)! });

describe('shareChange', () => {
  test('7 settled fixes at 6/7 then 5 at 3/5: a drop of 25 points that the intervals cannot tell from noise', () => {
    assert.equal(shareChange(share(3, 5), share(6, 7)), 'unclear');
  });

  test('a change the intervals can tell: up or down', () => {
    assert.equal(shareChange(share(95, 100), share(40, 100)), 'up');
    assert.equal(shareChange(share(40, 100), share(95, 100)), 'down');
  });

  test('the same share is unchanged; a period without data has no comparison', () => {
    assert.equal(shareChange(share(3, 6), share(5, 10)), 'same');
    assert.equal(shareChange(null, share(5, 10)), null);
    assert.equal(shareChange(share(5, 10), { share: null, low: null, high: null }), null);
  });

  test('intervals that only touch overlap', () => {
    assert.equal(shareChange({ share: 0.6, low: 0.5, high: 0.7 }, { share: 0.4, low: 0.3, high: 0.5 }), 'unclear');
    assert.equal(shareChange({ share: 0.6, low: 0.51, high: 0.7 }, { share: 0.4, low: 0.3, high: 0.5 }), 'up');
  });
});
