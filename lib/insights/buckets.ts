import type { Bucket } from '../../common/insights-query';

// The time axis of every Insights trend: each UTC day or week (from Monday)
// of the period, in order, with none left out. A bucket the data has no row
// for is there with its zero row, so a chart draws a zero where nothing
// happened instead of closing the gap between its neighbours. Pure: no
// database, unit-tested (test/unit/insights/buckets.test.ts).

const DAY_MS = 86_400_000;
/** a period's buckets are bounded: 20 years of days */
const MAX_BUCKETS = 7_500;

const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The start (YYYY-MM-DD) of the UTC day or week (from Monday) a day falls in. */
export function bucketOfDay(day: string, bucket: Bucket): string {
  if (bucket === 'day') return day;
  const t = Date.parse(`${day}T00:00:00Z`);
  const monday = t - ((new Date(t).getUTCDay() + 6) % 7) * DAY_MS;
  return dayOf(monday);
}

/**
 * Every bucket of [from, to) with its row: `rows`' own where it has one, else
 * `zero(bucket)`. `from` null (all time): from the earliest bucket in `rows`
 * (nothing at all: no bucket). Rows outside the period are left out.
 */
export function fillBuckets<T>({
  from,
  to,
  bucket,
  rows,
  zero,
}: {
  from: Date | null;
  to: Date;
  bucket: Bucket;
  rows: ReadonlyMap<string, T>;
  zero: (bucket: string) => T;
}): Array<{ bucket: string; row: T }> {
  if (to.getTime() <= (from?.getTime() ?? -Infinity)) return [];
  const last = bucketOfDay(dayOf(to.getTime() - 1), bucket);
  const first = from ? bucketOfDay(dayOf(from.getTime()), bucket) : [...rows.keys()].sort()[0];
  if (first === undefined || first > last) return [];
  const step = bucket === 'day' ? DAY_MS : 7 * DAY_MS;
  const out: Array<{ bucket: string; row: T }> = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); ; t += step) {
    const b = dayOf(t);
    if (b > last) break;
    if (out.length >= MAX_BUCKETS) throw new Error(`a period of more than ${MAX_BUCKETS} ${bucket}s`);
    out.push({ bucket: b, row: rows.get(b) ?? zero(b) });
  }
  return out;
}
