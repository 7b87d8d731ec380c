import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addToHistogram, bucketOf, percentiles, representative, type Histogram } from '@/lib/insights/histogram';

// The one percentile definition of Insights (lib/insights/histogram.ts),
// checked against hand-computed buckets and against an exact percentile_cont.

function histogramOf(values: number[]): Histogram {
  const h: Histogram = new Map();
  for (const v of values) addToHistogram(h, bucketOf(v), 1);
  return h;
}

/** PostgreSQL's percentile_cont over the raw values. */
function percentileCont(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (rank - lo) * (sorted[hi]! - sorted[lo]!);
}

describe('histogram buckets', () => {
  test('whole numbers below 64 are their own bucket; negatives count as 0; fractions round', () => {
    assert.deepEqual([0, 1, 2, 37, 63].map(bucketOf), [0, 1, 2, 37, 63]);
    assert.equal(bucketOf(-5), 0);
    assert.equal(bucketOf(2.4), 2);
    assert.equal(bucketOf(2.5), 3);
    assert.deepEqual([0, 1, 63].map(representative), [0, 1, 63]);
  });

  test('from 64 up: 32 buckets per power of two, named by the lower bound, standing for the middle', () => {
    // [64, 128): width 2
    assert.equal(bucketOf(64), 64);
    assert.equal(bucketOf(65), 64);
    assert.equal(bucketOf(66), 66);
    assert.equal(representative(64), 65);
    // 600,000 ms: 2^19 = 524,288 ≤ v < 2^20, width 2^14 = 16,384, floor(600,000 / 16,384) = 36
    assert.equal(bucketOf(600_000), 36 * 16_384);
    assert.equal(representative(36 * 16_384), 36 * 16_384 + 8_192);
    // exact powers of two start a bucket; the value just below ends the previous one
    assert.equal(bucketOf(2 ** 20), 2 ** 20);
    assert.equal(bucketOf(2 ** 20 - 1), 2 ** 20 - 2 ** 14);
    assert.equal(bucketOf(2 ** 40 + 1), 2 ** 40);
  });

  // The spec leaves Math.log2 implementation-approximated: V8 rounds up just
  // below 2^49 and above, another engine may round down at a power of two.
  // The exponent is corrected both ways, so the buckets are the same anywhere.
  test('the exponent is exact where Math.log2 rounds up (V8 below 2^49 and above) and where it would round down', () => {
    assert.equal(Math.floor(Math.log2(2 ** 49 - 1)), 49, 'V8 rounds log2(2^49 - 1) up to 49');
    assert.equal(bucketOf(2 ** 49 - 1), 2 ** 49 - 2 ** (48 - 5));
    assert.equal(bucketOf(2 ** 52 - 1), 2 ** 52 - 2 ** (51 - 5));
    const log2 = Math.log2;
    // a log2 one step short of the exponent at every power of two
    Math.log2 = (x: number) => log2(x) - 1e-9;
    try {
      // 2^20 + 2^14 is a bucket of its own with the exponent one short (width 2^14), not with the right one (width 2^15)
      assert.equal(bucketOf(2 ** 20 + 2 ** 14), 2 ** 20);
      assert.equal(representative(2 ** 20), 2 ** 20 + 2 ** 14);
      assert.equal(bucketOf(64), 64);
      assert.equal(bucketOf(65), 64);
    } finally {
      Math.log2 = log2;
    }
  });

  test('a represented value is within 1/64 of every value of its bucket', () => {
    for (let v = 1; v < 5_000_000; v = Math.ceil(v * 1.003) + 1) {
      const r = representative(bucketOf(v));
      assert.ok(Math.abs(r - v) <= v / 64, `${v} → ${r}`);
    }
  });
});

describe('percentiles from a histogram', () => {
  test('percentile_cont over the represented values: the p50 of 2 and 4 is 3', () => {
    assert.deepEqual(percentiles(histogramOf([2, 4]), [0, 0.5, 1]), [2, 3, 4]);
    assert.deepEqual(percentiles(histogramOf([7]), [0.1, 0.9]), [7, 7]);
  });

  test('exact for values below 64', () => {
    const values = [3, 9, 9, 14, 27, 40, 41, 63, 0, 12];
    const ps = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1];
    assert.deepEqual(
      percentiles(histogramOf(values), ps),
      ps.map((p) => percentileCont(values, p)),
    );
  });

  test('within 1.6% of the exact percentile_cont at any scale', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 20; trial++) {
      const values = Array.from({ length: 1 + Math.floor(random() * 300) }, () => Math.round(64 + random() ** 3 * 10_000_000));
      const ps = [0.1, 0.25, 0.5, 0.9, 0.95];
      const got = percentiles(histogramOf(values), ps);
      ps.forEach((p, i) => {
        const exact = percentileCont(values, p);
        assert.ok(Math.abs(got[i]! - exact) <= exact / 64 + 1e-9, `trial ${trial} p${p}: ${got[i]} vs ${exact}`);
      });
    }
  });

  test('counts added and taken out (a reader subtracting part of a day) leave the same histogram', () => {
    const h = histogramOf([100, 200, 300]);
    addToHistogram(h, bucketOf(5_000), 1);
    addToHistogram(h, bucketOf(5_000), -1);
    assert.deepEqual(
      [...h.keys()].sort((a, b) => a - b),
      [100, 200, 300].map(bucketOf),
    );
    assert.deepEqual(percentiles(new Map(), [0.5]), [null]);
  });
});
