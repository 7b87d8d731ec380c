// A small seeded PRNG (mulberry32) so the demo's history is the same on every
// machine and every run: the same seed gives the same changes, runs and grades.

export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  /** integer in [min, max] */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** picks by weight: [[value, weight], ...] */
  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T;
  /** log-normal with the given median and sigma (of the underlying normal) */
  logNormal(median: number, sigma: number): number;
  /** n lowercase hex characters */
  hex(n: number): string;
  /** a cuid-shaped id ("c" + 24 base-36 characters) */
  cuid(): string;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[int(0, alphabet.length - 1)]).join('');
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => items[int(0, items.length - 1)],
    weighted: (items) => {
      const total = items.reduce((sum, [, w]) => sum + w, 0);
      let r = next() * total;
      for (const [value, weight] of items) {
        r -= weight;
        if (r < 0) return value;
      }
      return items[items.length - 1][0];
    },
    logNormal: (median, sigma) => {
      // Box-Muller; 1 - next() keeps the logarithm finite
      const z = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      return median * Math.exp(sigma * z);
    },
    hex: (n) => chars('0123456789abcdef', n),
    cuid: () => 'c' + chars('0123456789abcdefghijklmnopqrstuvwxyz', 24),
  };
}
