import { NextRequest } from 'next/server';
import { encode } from 'next-auth/jwt';
import { getAuthSecret, useSecureCookies } from '../../../lib/auth/secret';
import { startSession } from '../../../lib/auth/sessions';

// Calling route handlers in process, as Next would: a NextRequest, params as a
// promise, and a real next-auth session cookie minted with the app's secret,
// naming a live session recorded as a sign-in records it.

export const SESSION_COOKIE = useSecureCookies() ? '__Secure-next-auth.session-token' : 'next-auth.session-token';

export async function sessionCookie(user: { id: string; email?: string; name?: string }): Promise<string> {
  const sid = await startSession({ userId: user.id });
  const jwt = await encode({ token: { sub: user.id, email: user.email, name: user.name, sid }, secret: getAuthSecret() });
  return `${SESSION_COOKIE}=${jwt}`;
}

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

export async function callRoute({
  handler,
  url,
  method = 'GET',
  cookie,
  authorization,
  body,
  rawBody,
  params = {},
}: {
  handler: Handler;
  url: string;
  method?: string;
  cookie?: string;
  authorization?: string;
  body?: unknown;
  rawBody?: string;
  params?: Record<string, string | string[]>;
}): Promise<{ status: number; json: unknown; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (cookie) headers.cookie = cookie;
  if (authorization) headers.authorization = authorization;
  const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  // what the browser adds to our own pages' calls (lib/http/route.ts refuses
  // a cookie's state-changing request without them)
  if (cookie && method !== 'GET' && method !== 'HEAD') {
    headers.origin ??= 'http://localhost:3000';
    headers['content-type'] ??= 'application/json';
  }
  const res = await handler(new NextRequest(`http://localhost:3000${url}`, { method, headers, body: payload }), {
    params: Promise.resolve(params),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
}
