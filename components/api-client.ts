// The browser's one way to call flowfix's API: JSON in and out, and the
// server's own error message (lib/errors.ts body: 409 "Ada applied it first",
// a field that failed validation…) surfaced as the error, since that is what
// the person needs to read.

export interface FieldIssue {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** per-field problems of a 422 (zod issues as lib/errors.ts reports them) */
  get issues(): FieldIssue[] {
    return Array.isArray(this.details) ? (this.details as FieldIssue[]) : [];
  }
}

export async function requestJson<T>(
  url: string,
  { method = 'GET', body, signal }: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      signal,
      cache: 'no-store',
      // every state-changing call says JSON, body or not: the server refuses
      // any other type from a cookie session (a form cannot forge it)
      headers: { accept: 'application/json', ...(method === 'GET' || method === 'HEAD' ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError('The server could not be reached', 0, null);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const error = (json as { error?: { code?: string; details?: unknown } } | null)?.error;
    throw new ApiError(serverReason(res.status, json), res.status, error?.code ?? null, error?.details);
  }
  return json as T;
}

/** The server's own words for a refusal (its JSON `error.message`), or a plain line naming the status. */
export function serverReason(status: number, json: unknown): string {
  const message = (json as { error?: { message?: unknown } } | null)?.error?.message;
  if (typeof message === 'string' && message.trim()) return message;
  return status === 404 ? 'Not found' : `Request failed (${status})`;
}

/** A 4xx will not get better by asking again. */
export function retryUnlessClientError(count: number, error: Error): boolean {
  return !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 1;
}
