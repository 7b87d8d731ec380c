// The one percentile definition of Insights. Percentiles must be readable
// from rollups (sums kept per day and filter), and an exact percentile_cont
// cannot be summed, so every value Insights takes percentiles of is recorded
// in a fixed bucket and the percentile is read from the merged buckets:
//
// - A value is a whole number in its own unit (milliseconds for times, a
//   count for tool calls and tokens), rounded; a negative value counts as 0.
// - Below 64 a value is its own bucket (exact). From 64 up, the power of two
//   [2^e, 2^(e+1)) it falls in is cut into 32 equal sub-buckets of width
//   2^(e-5); the bucket is named by its lower bound and represented by its
//   middle (lower + width / 2).
// - A percentile p of n values is percentile_cont over the represented
//   values: the values at ranks floor(p(n-1)) and ceil(p(n-1)) (from 0),
//   interpolated linearly. So the p50 of 2 and 4 is 3.
//
// Resolution: a represented value is within 1/64 (1.6%) of every value in its
// bucket, so each percentile is within 1.6% of the exact percentile_cont of
// the raw values, and equal to it when the values are below 64. Buckets are
// integers computed with integer steps, so the writers and the readers (and
// PGlite and PostgreSQL) always agree on them.

/** values below this are kept exactly */
export const EXACT_BELOW = 64;
const SUB_BUCKET_BITS = 5;

/** floor(log2(v)) for a whole v ≥ 1, exact for every v below 2^53 */
function exponentOf(v: number): number {
  let e = Math.floor(Math.log2(v));
  if (2 ** e > v) e -= 1;
  else if (2 ** (e + 1) <= v) e += 1;
  return e;
}

/** The bucket (its lower bound) a value is recorded in. */
export function bucketOf(value: number): number {
  const v = Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;
  if (v < EXACT_BELOW) return v;
  const width = 2 ** (exponentOf(v) - SUB_BUCKET_BITS);
  return Math.floor(v / width) * width;
}

/** The value a bucket stands for: itself below 64, else the middle of the bucket. */
export function representative(bucket: number): number {
  if (bucket < EXACT_BELOW) return bucket;
  return bucket + 2 ** (exponentOf(bucket) - SUB_BUCKET_BITS) / 2;
}

/** bucket lower bound → how many values */
export type Histogram = Map<number, number>;

/** Adds `count` values of `bucket` (negative counts take values out: the readers subtract). */
export function addToHistogram(h: Histogram, bucket: number, count: number): void {
  const n = (h.get(bucket) ?? 0) + count;
  if (n === 0) h.delete(bucket);
  else h.set(bucket, n);
}

export function histogramCount(h: Histogram): number {
  let n = 0;
  for (const c of h.values()) n += c;
  return n;
}

/**
 * percentile_cont over the represented values, for each share in `ps`
 * (0…1); null for an empty histogram. One pass over the sorted buckets.
 */
export function percentiles(h: Histogram, ps: readonly number[]): Array<number | null> {
  const n = histogramCount(h);
  if (n <= 0) return ps.map(() => null);
  const buckets = [...h.entries()].filter(([, c]) => c > 0).sort((a, b) => a[0] - b[0]);
  // the represented value at rank k (0-based)
  const at = (k: number): number => {
    let seen = 0;
    for (const [bucket, c] of buckets) {
      seen += c;
      if (k < seen) return representative(bucket);
    }
    return representative(buckets[buckets.length - 1]![0]);
  };
  return ps.map((p) => {
    const rank = p * (n - 1);
    const lo = Math.floor(rank);
    const hi = Math.ceil(rank);
    const a = at(lo);
    return lo === hi ? a : a + (rank - lo) * (at(hi) - a);
  });
}
