import { NextResponse } from 'next/server';
import { readJson, withRoute } from '@/lib/http/route';
import { issueCiToken, listCiTokens } from '@/lib/tokens/ci-tokens';
import { IssueTokenSchema } from '@/lib/tokens/schemas';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

const ADMIN = ADMIN_ACCESS;

// GET /api/admin/tokens — CI tokens with prefix, scope, creator, last use, revocation
export const GET = withRoute(ADMIN, async () => ({ tokens: await listCiTokens() }));

// POST /api/admin/tokens — issue a token; the plain token is in this response only
export const POST = withRoute(ADMIN, async ({ req, user }) => {
  const input = await readJson(req, IssueTokenSchema);
  const { token, record } = await issueCiToken({ actorId: user.id, input });
  return NextResponse.json({ token, record }, { status: 201, headers: { 'Cache-Control': 'no-store' } });
});
