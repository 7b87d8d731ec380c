// fetch for the admin panels: JSON in and out, and the server's error message
// (lib/errors.ts body) surfaced as the thrown Error so forms can show it.

export interface FieldIssue {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export async function apiFetch<T>(url: string, init?: { method?: string; body?: unknown }): Promise<T> {
  const res = await fetch(url, {
    method: init?.method ?? 'GET',
    headers: init?.body === undefined ? undefined : { 'content-type': 'application/json' },
    body: init?.body === undefined ? undefined : JSON.stringify(init.body),
    cache: 'no-store',
  });
  const text = await res.text();
  const data: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const error = (data as { error?: { message?: string; details?: unknown } } | null)?.error;
    const issues = Array.isArray(error?.details) ? (error.details as FieldIssue[]) : [];
    throw new ApiError(error?.message ?? `Request failed (${res.status})`, res.status, issues);
  }
  return data as T;
}

/** One line per issue, for an alert under a form. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const detail = err.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    return detail ? `${err.message} — ${detail}` : err.message;
  }
  return err instanceof Error ? err.message : 'Something went wrong';
}
