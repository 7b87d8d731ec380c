import { ApiError } from '@/components/api-client';

/** One line per issue, for an alert under a form. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const detail = err.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    return detail ? `${err.message} — ${detail}` : err.message;
  }
  return err instanceof Error ? err.message : 'Something went wrong';
}
