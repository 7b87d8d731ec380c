import NextAuth from 'next-auth';
import { NextResponse } from 'next/server';
import { getAuthOptions } from '@/lib/auth/options';
import { crossOriginReason, isSameOrigin } from '@/lib/http/route';
import { clientAddress } from '@/lib/http/client-address';

// next-auth's own endpoints (sign-in, callback, session, csrf, sign-out): public by design.
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(req as never, ctx as never, getAuthOptions({ address: clientAddress(req.headers) }));
}

// next-auth checks its own double-submit CSRF token on these POSTs; the
// origin check is a second lock (a page on a sibling port or subdomain can
// plant cookies, and with them a matching token). Its forms are url-encoded,
// so only the origin is checked, not the content type.
async function post(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) {
  if (!isSameOrigin(req)) {
    const action = (await ctx.params).nextauth?.[0];
    return NextResponse.json(
      { error: { code: 'forbidden', message: crossOriginReason(req, action === 'signout' ? 'Sign-out' : 'Sign-in') } },
      { status: 403, headers: { 'Cache-Control': 'no-store' } },
    );
  }
  return handler(req, ctx);
}

export { handler as GET, post as POST };
