import type http from 'node:http';
import NextAuthImport from 'next-auth';
import { getAuthOptions } from '../../lib/auth/options';
import { clientAddress, installClientAddressStamp } from '../../lib/http/client-address';
import { listen } from './route-server';

// next-auth's own request handler (CSRF check, credentials provider, session
// cookie, sign-out) served over real HTTP on 127.0.0.1, as the server process
// serves it: the client-address stamp the server installs at start-up
// (instrumentation.ts) sees each request's socket. A test talks to it through
// AuthClient, a browser's cookie jar in miniature.

// CommonJS default export, as Node's loader hands it over
const NextAuth = ((NextAuthImport as unknown as { default?: typeof NextAuthImport }).default ?? NextAuthImport) as (...args: unknown[]) => Promise<unknown>;

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return out;
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

/** next-auth's endpoints (/api/auth/…) on 127.0.0.1, a free port. */
export async function serveNextAuth(): Promise<{ url: string; close(): Promise<void> }> {
  installClientAddressStamp();
  const { server, url } = await listen((req, res) => {
    const target = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/api\/auth\/(.+)$/.exec(target.pathname);
    if (!match) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    (async () => {
      const body = req.method === 'POST' ? await readBody(req) : {};
      // the Node-style response next-auth's API-route entry writes to
      const out = Object.assign(res, {
        status(code: number) {
          res.statusCode = code;
          return out;
        },
        json(value: unknown) {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(value));
        },
        send(value: unknown) {
          if (typeof value === 'string' || value === undefined) res.end(value);
          else out.json(value);
        },
      });
      await NextAuth(
        {
          query: { ...Object.fromEntries(target.searchParams), nextauth: match[1].split('/') },
          method: req.method,
          headers: req.headers,
          cookies: parseCookies(req.headers.cookie),
          body,
        },
        out,
        getAuthOptions({ address: clientAddress(req.headers) }),
      );
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One browser: its cookies, and next-auth's sign-in and sign-out as its pages call them. */
export class AuthClient {
  readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  /** The Cookie header this browser sends. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
  }

  /** The session cookie's value, if signed in. */
  sessionToken(): string | undefined {
    return [...this.cookies].find(([k]) => k.endsWith('next-auth.session-token'))?.[1];
  }

  private async call(
    path: string,
    init: { method: string; headers?: Record<string, string>; form?: Record<string, string> },
  ): Promise<{ status: number; body: unknown }> {
    const res = await fetch(new URL(path, this.baseUrl), {
      method: init.method,
      redirect: 'manual',
      headers: {
        cookie: this.cookieHeader(),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...init.headers,
      },
      body: init.form ? new URLSearchParams(init.form) : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = decodeURIComponent(pair.slice(eq + 1).trim());
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body };
  }

  /** next-auth's double-submit token: its cookie holds "token|hash", so a browser that has the cookie has the token. */
  async csrfToken(): Promise<string> {
    const cookie = [...this.cookies].find(([k]) => k.endsWith('next-auth.csrf-token'))?.[1];
    if (cookie) return cookie.split('|')[0];
    const { body } = await this.call('/api/auth/csrf', { method: 'GET' });
    return (body as { csrfToken: string }).csrfToken;
  }

  /**
   * One password sign-in; next-auth's error code, or null when it signed in.
   * `headers` go along (a forged X-Forwarded-For, say).
   */
  async signIn({ email, password, headers }: { email: string; password: string; headers?: Record<string, string> }): Promise<string | null> {
    const csrfToken = await this.csrfToken();
    const { status, body } = await this.call('/api/auth/callback/credentials', {
      method: 'POST',
      headers,
      form: { email, password, csrfToken, json: 'true' },
    });
    const url = (body as { url?: string } | undefined)?.url;
    if (!url) throw new Error(`next-auth answers a credentials callback with a redirect (got ${status} ${JSON.stringify(body)})`);
    const params = new URL(url, this.baseUrl).searchParams;
    if (params.get('csrf') === 'true') throw new Error('next-auth refused the CSRF token');
    const error = params.get('error');
    if (error === null && !this.sessionToken()) throw new Error('a sign-in without an error sets the session cookie');
    return error;
  }

  /** Signs out as the sign-out button does; the cookie jar then forgets the session cookie. */
  async signOut(): Promise<void> {
    const csrfToken = await this.csrfToken();
    const { status, body } = await this.call('/api/auth/signout', { method: 'POST', form: { csrfToken, json: 'true' } });
    if (status !== 200) throw new Error(`sign-out answered ${status} ${JSON.stringify(body)}`);
  }
}
