import { NextResponse, type NextRequest } from 'next/server';
import { getToken } from 'next-auth/jwt';
import { getAuthSecret, useSecureCookies } from '@/lib/auth/secret';
import { isPersonalTokenHeader } from '@/lib/tokens/personal-token-header';
import { contentSecurityPolicy, newNonce } from '@/lib/http/csp';
import { getEnv } from '@/lib/env';

// First line of defence only: keeps anonymous visitors out of pages and APIs.
// Every route handler checks the session and role again next to the data
// (lib/http/route.ts), so a gap here is never a hole. It also gives every
// page its Content-Security-Policy nonce (lib/http/csp.ts).

// /api/hosts/: the code hosts' webhooks, authenticated by their signature (lib/hosts/webhooks.ts)
const PUBLIC_PREFIXES = ['/signin', '/api/auth/', '/api/v1/', '/api/hosts/', '/api/health'];

async function mayPass(req: NextRequest, pathname: string): Promise<boolean> {
  if (PUBLIC_PREFIXES.some((p) => pathname === p.replace(/\/$/, '') || pathname.startsWith(p))) return true;
  // a personal token (the CLI) has no cookie: its handler decides whether it
  // takes tokens at all, and checks the token, its scope and the user's roles
  if (pathname.startsWith('/api/') && isPersonalTokenHeader(req.headers.get('authorization'))) return true;
  const token = await getToken({ req, secret: getAuthSecret(), secureCookie: useSecureCookies() });
  return Boolean(token?.sub);
}

export async function proxy(req: NextRequest) {
  const { pathname, search } = req.nextUrl;
  const isApi = pathname.startsWith('/api/');
  if (!(await mayPass(req, pathname))) {
    if (isApi) {
      return NextResponse.json({ error: { code: 'unauthenticated', message: 'Sign in to continue' } }, { status: 401 });
    }
    const url = req.nextUrl.clone();
    url.pathname = '/signin';
    url.search = `?callbackUrl=${encodeURIComponent(pathname + search)}`;
    return NextResponse.redirect(url);
  }
  if (isApi) return NextResponse.next();

  // Next reads the nonce from the request's CSP header while rendering and
  // puts it on its scripts; the browser enforces the response's copy.
  const csp = contentSecurityPolicy(newNonce(), { development: getEnv().NODE_ENV === 'development' });
  const headers = new Headers(req.headers);
  headers.set('content-security-policy', csp);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set('Content-Security-Policy', csp);
  return res;
}

export const config = {
  // everything except Next's own assets, public files (public/: the icon), the CI API and the
  // code hosts' webhooks. /api/v1/ is token-authenticated and /api/hosts/ by
  // each delivery's signature, in their handlers; running the proxy on them
  // would turn a webhook (which has no session) away with 401, and make Next
  // buffer a copy of every body and cut it at its 10 MB proxy limit
  // (experimental.proxyClientMaxBodySize) before the route can answer 413.
  matcher: ['/((?!_next/static|_next/image|api/v1/|api/hosts/|.*\\.(?:svg|png|ico|css|js|map|woff2?)$).*)'],
};
