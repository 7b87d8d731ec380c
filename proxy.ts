import { NextResponse, type NextRequest } from 'next/server';
import { getToken } from 'next-auth/jwt';
import { getAuthSecret, useSecureCookies } from '@/lib/auth/secret';

// First line of defence only: keeps anonymous visitors out of pages and APIs.
// Every route handler checks the session and role again next to the data
// (lib/http/route.ts), so a gap here is never a hole.

const PUBLIC_PREFIXES = ['/signin', '/api/auth/', '/api/v1/', '/api/health'];

export async function proxy(req: NextRequest) {
  const { pathname, search } = req.nextUrl;
  if (PUBLIC_PREFIXES.some((p) => pathname === p.replace(/\/$/, '') || pathname.startsWith(p))) {
    return NextResponse.next();
  }
  const token = await getToken({ req, secret: getAuthSecret(), secureCookie: useSecureCookies() });
  if (token?.sub) return NextResponse.next();
  if (pathname.startsWith('/api/')) {
    return NextResponse.json({ error: { code: 'unauthenticated', message: 'Sign in to continue' } }, { status: 401 });
  }
  const url = req.nextUrl.clone();
  url.pathname = '/signin';
  url.search = `?callbackUrl=${encodeURIComponent(pathname + search)}`;
  return NextResponse.redirect(url);
}

export const config = {
  // everything except Next's own assets, public files and the CI API. /api/v1/
  // is token-authenticated by its handlers; running the proxy on it would make
  // Next buffer a copy of every upload and cut bodies at its 10 MB proxy limit
  // (experimental.proxyClientMaxBodySize) before the route can answer 413.
  matcher: ['/((?!_next/static|_next/image|favicon.ico|monaco/|api/v1/|.*\\.(?:svg|png|ico|css|js|map|woff2?)$).*)'],
};
