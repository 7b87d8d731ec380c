import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import { getDb } from '../db';
import { AppError } from '../errors';

// CI tokens: "ffx_" + 32 random bytes (base64url). Only the sha256 is stored;
// a token is 256 bits of entropy so a slow hash buys nothing. The plain token
// is returned once, at issue time.

const PREFIX = 'ffx_';

export function generateToken(): { token: string; prefix: string; tokenHash: string } {
  const token = PREFIX + randomBytes(32).toString('base64url');
  return { token, prefix: token.slice(0, PREFIX.length + 6), tokenHash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface TokenPrincipal {
  tokenId: string;
  name: string;
  allRepositories: boolean;
  repositoryIds: string[];
}

/** Reads "Authorization: Bearer ffx_…" and returns the token's principal, or throws 401. */
export async function authenticateToken(authorization: string | null): Promise<TokenPrincipal> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (!match || !match[1].startsWith(PREFIX)) {
    throw new AppError('unauthenticated', 'A CI token is required: Authorization: Bearer ffx_…');
  }
  const db = getDb();
  const row = await db.ciToken.findUnique({
    where: { tokenHash: hashToken(match[1]) },
    include: { scopes: { select: { repositoryId: true } } },
  });
  if (!row) throw new AppError('unauthenticated', 'Unknown CI token');
  if (row.revokedAt) throw new AppError('unauthenticated', 'This CI token has been revoked');
  if (row.expiresAt && row.expiresAt.getTime() < Date.now()) {
    throw new AppError('unauthenticated', 'This CI token has expired');
  }
  // lastUsedAt is informational: do not let it fail or slow the request much
  await db.ciToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => undefined);
  return {
    tokenId: row.id,
    name: row.name,
    allRepositories: row.allRepositories,
    repositoryIds: row.scopes.map((s) => s.repositoryId),
  };
}

export function tokenCoversRepository(principal: TokenPrincipal, repositoryId: string): boolean {
  return principal.allRepositories || principal.repositoryIds.includes(repositoryId);
}

export function assertTokenCoversRepository(principal: TokenPrincipal, repositoryId: string): void {
  if (!tokenCoversRepository(principal, repositoryId)) {
    throw new AppError('forbidden', 'This CI token is not scoped to that repository');
  }
}
