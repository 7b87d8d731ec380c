// Kept apart from personal-tokens.ts (which needs the database) so proxy.ts
// can tell a personal token's request without loading it.

export const PERSONAL_TOKEN_PREFIX = 'ffp_';

/** Is this Authorization header a personal token (whether or not it is valid)? */
export function isPersonalTokenHeader(authorization: string | null): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return Boolean(match && match[1].startsWith(PERSONAL_TOKEN_PREFIX));
}
