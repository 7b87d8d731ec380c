// The dashboard's display formatters: durations, token counts, costs, dates
// and relative ages, the same on every page. A short form that drops detail
// has an exact companion for a title attribute (formatCostExact,
// formatExactTime), so hovering never hides information.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "850 ms", "4.2 s", "3 min 5 s", "2 h 10 min"; "—" when unknown. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  if (m < 60) return rest ? `${m} min ${rest} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return `${h} h ${m - h * 60} min`;
}

/** "950", "1.2k", "340k", "1.25M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** "$0", "<$0.01" under a cent, else cents: "$1.37"; "unknown" when the model had no price. The exact figure is formatCostExact. */
export function formatCost(usd: number | null): string {
  if (usd === null) return 'unknown';
  if (usd === 0) return '$0';
  if (usd < 0.01) return '<$0.01';
  return `$${usd.toFixed(2)}`;
}

/** The figure formatCost rounds: "$0.0043", "$1.3712" (for a title attribute). */
export function formatCostExact(usd: number | null): string {
  if (usd === null) return 'unknown: no price for the model in the admin price table';
  return `$${usd.toFixed(4)}`;
}

/** A point in time in the reader's locale; "—" when there is none. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** To the second, with the ISO form (for a title attribute beside a relative age). */
export function formatExactTime(iso: string): string {
  const d = new Date(iso);
  return `${d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })} (${iso})`;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", "4 mo ago", "1 y ago". */
export function formatAge(ageMs: number): string {
  if (ageMs < MINUTE) return 'just now';
  if (ageMs < HOUR) return `${Math.floor(ageMs / MINUTE)} min ago`;
  if (ageMs < DAY) return `${Math.floor(ageMs / HOUR)} h ago`;
  if (ageMs < 60 * DAY) return `${Math.floor(ageMs / DAY)} d ago`;
  if (ageMs < 365 * DAY) return `${Math.floor(ageMs / (30 * DAY))} mo ago`;
  return `${Math.floor(ageMs / (365 * DAY))} y ago`;
}

/** formatAge of a timestamp; "never" when there is none. */
export function formatAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  return formatAge(Math.max(0, now - new Date(iso).getTime()));
}

export function shortSha(sha: string | null | undefined): string {
  return sha ? sha.slice(0, 10) : '—';
}

/**
 * A share as a percentage: "37.8%", "100%"; `none` when there is no figure:
 * "—" for no data, "n/a" for a statistic undefined on its data (grading).
 * The one percent formatter of the product.
 */
export function formatPercent(share: number | null | undefined, digits = 1, none = '—'): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return none;
  const pct = share * 100;
  return `${Number.isInteger(pct) ? pct : pct.toFixed(digits)}%`;
}

/** A count with thousands separators in the reader's locale: "1,785,955". */
export function formatCount(n: number): string {
  return n.toLocaleString();
}

/** A UTC day (an ISO instant at midnight UTC) as a short date, without shifting it into the reader's zone. */
export function formatUtcDay(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** The reader's time zone name ("Europe/Paris"), to label times with. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
}

/** Minutes to one decimal, as latency figures are quoted: "9.9 min"; "—" when unknown. */
export function formatMinutes(minutes: number | null | undefined): string {
  if (minutes === null || minutes === undefined || !Number.isFinite(minutes)) return '—';
  return `${minutes < 10 ? minutes.toFixed(1) : Math.round(minutes)} min`;
}
