import { NextResponse } from 'next/server';
import { readJson, withRoute } from '@/lib/http/route';
import { IssuePersonalTokenSchema, issuePersonalToken, listPersonalTokens } from '@/lib/tokens/personal-tokens';

export const dynamic = 'force-dynamic';

// Personal tokens are managed with the session cookie only: a token never mints tokens.
const SIGNED_IN = { auth: 'session', roles: 'any' } as const;

// GET /api/me/tokens — the signed-in user's personal API tokens (never the tokens themselves)
export const GET = withRoute(SIGNED_IN, async ({ user }) => ({ tokens: await listPersonalTokens({ userId: user.id }) }));

// POST /api/me/tokens — issue a personal token (for the CLI); the plain token is in this response only
export const POST = withRoute(SIGNED_IN, async ({ req, user }) => {
  const input = await readJson(req, IssuePersonalTokenSchema);
  const { token, record } = await issuePersonalToken({ userId: user.id, input });
  return NextResponse.json({ token, record }, { status: 201, headers: { 'Cache-Control': 'no-store' } });
});
