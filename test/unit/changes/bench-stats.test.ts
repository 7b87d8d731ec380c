import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { percentile, summarise } from '../../../bench/stats';

// The triage bench's figures go into the README: the percentiles must be right.
describe('bench percentiles (nearest rank)', () => {
  test('p50 and p95 of 1..100 are 50 and 95, whatever the input order', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    assert.equal(percentile(samples, 50), 50);
    assert.equal(percentile(samples, 95), 95);
    assert.equal(percentile(samples, 100), 100);
  });

  test('small sample sets round up to a real sample', () => {
    assert.equal(percentile([3, 1, 2], 50), 2);
    assert.equal(percentile([3, 1, 2], 95), 3);
    assert.equal(percentile([7], 95), 7);
  });

  test('summarise reports count, p50, p95 and max; no samples is an error', () => {
    assert.deepEqual(summarise([5, 1, 9, 3]), { samples: 4, p50: 3, p95: 9, max: 9 });
    assert.throws(() => percentile([], 50));
  });
});
