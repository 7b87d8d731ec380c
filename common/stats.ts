// Small statistics the dashboard shows beside a share: browser-safe, no imports.

/**
 * The Wilson score interval of a binomial proportion (successes out of n), the
 * interval that stays inside [0, 1] and behaves at small n and at 0 or n
 * successes; z = 1.96 is the 95% interval. null when n is 0 (nothing to estimate).
 */
export function wilson(successes: number, n: number, z = 1.96): { low: number; high: number } | null {
  if (!Number.isFinite(n) || n <= 0 || !Number.isFinite(successes)) return null;
  if (successes < 0 || successes > n) throw new RangeError(`wilson: ${successes} successes out of ${n}`);
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** A share with its interval; null where there was nothing to estimate. */
export interface ShareEstimate {
  share: number | null;
  low: number | null;
  high: number | null;
}

/**
 * How a share moved from one period to the next, as far as its 95% intervals
 * can tell: 'up' or 'down' only when the two intervals do not overlap (a
 * precision over 7 settled fixes can swing 25 points by chance alone),
 * 'unclear' when they do, 'same' when the share did not move, null when a
 * period has no share. Pages colour a trend only when it is 'up' or 'down'.
 */
export function shareChange(now: ShareEstimate | null, before: ShareEstimate | null): 'up' | 'down' | 'same' | 'unclear' | null {
  if (!now || !before || now.share === null || before.share === null) return null;
  if (now.low === null || now.high === null || before.low === null || before.high === null) return null;
  if (now.share === before.share) return 'same';
  if (now.low > before.high) return 'up';
  if (now.high < before.low) return 'down';
  return 'unclear';
}
