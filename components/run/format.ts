// Small formatters for the run page.

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}

export function formatTokens(n: number): string {
  if (n < 10_000) return n.toLocaleString('en-US');
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export const STATUS_TEXT: Record<string, string> = {
  QUEUED: 'Queued',
  RUNNING: 'Running',
  FIXED: 'Fixed',
  NO_FIX: 'No fix',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
  GONE: 'Deleted',
};

export const PHASE_TEXT: Record<string, string> = {
  setup: 'Setup',
  red: 'RED',
  localise: 'Localise',
  patch: 'Patch',
  verify: 'Verify',
  summary: 'Summary',
};

/** Pretty-prints a JSON string (tool arguments); anything else as is. */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? '';
}
