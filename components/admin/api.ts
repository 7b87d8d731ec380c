import { ApiError, requestJson } from '../api-client';

// The admin panels call the API through the shared client (components/api-client.ts).
export const apiFetch = requestJson;

/** One line per issue, for an alert under a form. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const detail = err.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    return detail ? `${err.message} — ${detail}` : err.message;
  }
  return err instanceof Error ? err.message : 'Something went wrong';
}
