// Sign-in and sign-out as the pages do them, through next-auth's endpoints,
// with the server's own reason when it refuses. next-auth's client helpers
// expect every answer to be theirs: a refusal from flowfix's route (403 from
// another origin, say) made them throw, and the form could only guess
// "Could not reach the server". Here a refusal is read as the server wrote it
// (components/api-client.ts serverReason), and only a failed connection is
// called one.

import { serverReason } from '../api-client';
import { signInErrorMessage } from './messages';

export type AuthOutcome = { ok: true } | { ok: false; message: string };

export const UNREACHABLE = 'Could not reach the server. Check your connection and try again.';

class Refused extends Error {}

/** One call to next-auth's endpoints; a refusal throws Refused with the server's words. */
async function call(url: string, init?: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { cache: 'no-store', ...init, headers: { accept: 'application/json', ...init?.headers } });
  } catch {
    throw new Refused(UNREACHABLE);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  // next-auth refuses a sign-in with 401 and where it would send the browser (its ?error= says why): that is an answer, not a failure
  const nextAuthAnswer = json !== null && typeof json === 'object' && typeof (json as { url?: unknown }).url === 'string';
  if (!res.ok && !(res.status === 401 && nextAuthAnswer)) throw new Refused(serverReason(res.status, json));
  if (json === null || typeof json !== 'object') throw new Refused(`The server sent an answer flowfix cannot read (HTTP ${res.status})`);
  return json;
}

async function post(baseUrl: string, path: string, fields: Record<string, string>): Promise<{ url?: string }> {
  const { csrfToken } = (await call(`${baseUrl}/api/auth/csrf`)) as { csrfToken?: string };
  if (!csrfToken) throw new Refused('The server did not hand out a sign-in form token. Reload the page and try again.');
  return (await call(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, csrfToken, json: 'true' }),
  })) as { url?: string };
}

async function outcome(run: () => Promise<AuthOutcome>): Promise<AuthOutcome> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Refused) return { ok: false, message: err.message };
    throw err;
  }
}

/**
 * Signs in with an email and password; the session cookie is set on success.
 * `baseUrl` is empty in the browser (same origin).
 */
export function signInWithPassword({ email, password, baseUrl = '' }: { email: string; password: string; baseUrl?: string }): Promise<AuthOutcome> {
  return outcome(async () => {
    const { url } = await post(baseUrl, '/api/auth/callback/credentials', { email, password });
    // next-auth answers where it would send the browser: its ?error= says why not
    const params = new URL(url ?? '/', 'http://flowfix.invalid').searchParams;
    if (params.get('csrf') === 'true') return { ok: false, message: 'The sign-in form had expired. Try again.' };
    const error = params.get('error');
    if (error) return { ok: false, message: signInErrorMessage(error) ?? 'Sign-in failed. Try again.' };
    return { ok: true };
  });
}

/** Starts single sign-on with a provider: the address of its sign-in page to send the browser to. */
export function startSingleSignOn({
  provider,
  callbackUrl,
  baseUrl = '',
}: {
  provider: string;
  callbackUrl: string;
  baseUrl?: string;
}): Promise<AuthOutcome & { url?: string }> {
  return outcome(async () => {
    const { url } = await post(baseUrl, `/api/auth/signin/${encodeURIComponent(provider)}`, { callbackUrl });
    if (!url) return { ok: false, message: 'The server did not say where single sign-on continues. Try again.' };
    const error = new URL(url, 'http://flowfix.invalid').searchParams.get('error');
    if (error) return { ok: false, message: signInErrorMessage(error) ?? 'Single sign-on could not start. Try again.' };
    return { ok: true, url };
  });
}

/** Signs out: the server ends the session and clears its cookie. */
export function signOutNow({ baseUrl = '' }: { baseUrl?: string } = {}): Promise<AuthOutcome> {
  return outcome(async () => {
    await post(baseUrl, '/api/auth/signout', {});
    return { ok: true };
  });
}
