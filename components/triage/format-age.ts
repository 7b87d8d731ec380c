// Relative ages for the triage list ("3 h ago"); the exact time goes in a
// title attribute so the short form never hides information.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function formatAge(ageMs: number): string {
  if (ageMs < MINUTE) return 'just now';
  if (ageMs < HOUR) return `${Math.floor(ageMs / MINUTE)} min ago`;
  if (ageMs < DAY) return `${Math.floor(ageMs / HOUR)} h ago`;
  if (ageMs < 60 * DAY) return `${Math.floor(ageMs / DAY)} d ago`;
  if (ageMs < 365 * DAY) return `${Math.floor(ageMs / (30 * DAY))} mo ago`;
  return `${Math.floor(ageMs / (365 * DAY))} y ago`;
}

export function formatExactTime(iso: string): string {
  const d = new Date(iso);
  return `${d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })} (${iso})`;
}
