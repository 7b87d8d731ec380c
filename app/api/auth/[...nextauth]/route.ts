import NextAuth from 'next-auth';
import { getAuthOptions } from '@/lib/auth/options';

// next-auth's own endpoints (sign-in, callback, session, csrf, sign-out): public by design.
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(req as never, ctx as never, getAuthOptions());
}

export { handler as GET, handler as POST };
