// Small helpers shared by the benchmarks: timing samples and summarising them.

export interface Summary {
  samples: number;
  p50: number;
  p95: number;
  max: number;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('percentile of no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** "42.0% (21/50)", or "—" of nothing. */
export function pct(n: number, d: number): string {
  return d === 0 ? '—' : `${((100 * n) / d).toFixed(1)}% (${n}/${d})`;
}

/** The q-quantile (q in 0..1) by rounding the rank; 0 of no samples (the repair benches' reports). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))];
}

export function summarise(samples: readonly number[]): Summary {
  return { samples: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), max: Math.max(...samples) };
}

/** Runs `fn` `warmup` times untimed, then `samples` times timed (ms). */
export async function timeAsync({ fn, warmup, samples }: { fn: () => Promise<unknown>; warmup: number; samples: number }): Promise<Summary> {
  for (let i = 0; i < warmup; i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return summarise(times);
}

export const ms = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(1));
