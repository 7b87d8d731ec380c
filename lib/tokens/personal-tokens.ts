import 'server-only';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { writeAudit } from '../audit';
import { getDb } from '../db';
import { AppError } from '../errors';
import { hashToken } from './auth';
import { PERSONAL_TOKEN_PREFIX } from './personal-token-header';
import type { SessionUser } from '../auth/session';

// Personal API tokens: "ffp_" + 32 random bytes (base64url). A token acts as
// its user, with the user's roles as they are at each request (a role removed
// or a user disabled takes effect at once), and only on the session routes
// that opt in (withRoute's allowPersonalToken). The distinct prefix keeps CI
// tokens (ffx_, lib/tokens/auth.ts) and personal tokens from ever standing in
// for each other. Only the sha256 is stored; the token is shown once.

export { PERSONAL_TOKEN_PREFIX, isPersonalTokenHeader } from './personal-token-header';

// What a token may do, on top of its user's roles (which still apply): `read`
// shows fixes and downloads patches (a preview counts as reading), `decide`
// also accepts, edits and rejects. A route that takes personal tokens says
// which scope it needs (withRoute); a leaked read token cannot change a branch.
export const PERSONAL_TOKEN_SCOPES = ['read', 'decide'] as const;
export type PersonalTokenScopeName = (typeof PERSONAL_TOKEN_SCOPES)[number];
const SCOPE_TO_DB = { read: 'READ', decide: 'DECIDE' } as const;
const SCOPE_FROM_DB = { READ: 'read', DECIDE: 'decide' } as const;

// Where the token is used: the command line (`flowfix fix …`) or the editor
// extension. The server records a decision made with it on that surface (CLI
// or IDE, lib/fixes/schemas.ts surfaceFor); the client never names it.
export const PERSONAL_TOKEN_KINDS = ['cli', 'ide'] as const;
export type PersonalTokenKindName = (typeof PERSONAL_TOKEN_KINDS)[number];
const KIND_TO_DB = { cli: 'CLI', ide: 'IDE' } as const;
const KIND_FROM_DB = { CLI: 'cli', IDE: 'ide' } as const;

/** Does a token with `held` scope cover what a route `needs`? (decide includes read) */
export function scopeCovers(held: PersonalTokenScopeName, needs: PersonalTokenScopeName): boolean {
  return held === 'decide' || needs === 'read';
}

export const IssuePersonalTokenSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the token after where you use it').max(100),
    expiresAt: z.coerce
      .date()
      .refine((d) => d.getTime() > Date.now(), 'The expiry must be in the future')
      .optional(),
    scope: z.enum(PERSONAL_TOKEN_SCOPES, { message: 'The scope is "read" or "decide"' }).default('read'),
    kind: z.enum(PERSONAL_TOKEN_KINDS, { message: 'The token is for "cli" (the command line) or "ide" (the editor extension)' }).default('cli'),
  })
  .strict();
export type IssuePersonalTokenInput = z.input<typeof IssuePersonalTokenSchema>;

export interface PersonalTokenView {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  scope: PersonalTokenScopeName;
  kind: PersonalTokenKindName;
}

const VIEW = { id: true, name: true, prefix: true, scope: true, kind: true, createdAt: true, lastUsedAt: true, expiresAt: true, revokedAt: true } as const;

function toView<T extends { scope: keyof typeof SCOPE_FROM_DB; kind: keyof typeof KIND_FROM_DB }>(
  row: T,
): Omit<T, 'scope' | 'kind'> & { scope: PersonalTokenScopeName; kind: PersonalTokenKindName } {
  return { ...row, scope: SCOPE_FROM_DB[row.scope], kind: KIND_FROM_DB[row.kind] };
}

export async function issuePersonalToken({
  userId,
  input,
}: {
  userId: string;
  input: IssuePersonalTokenInput;
}): Promise<{ token: string; record: PersonalTokenView }> {
  const data = IssuePersonalTokenSchema.parse(input);
  const token = PERSONAL_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const prefix = token.slice(0, PERSONAL_TOKEN_PREFIX.length + 6);
  const record = await getDb().$transaction(async (tx) => {
    const created = await tx.personalToken.create({
      data: {
        userId,
        name: data.name,
        prefix,
        tokenHash: hashToken(token),
        expiresAt: data.expiresAt ?? null,
        scope: SCOPE_TO_DB[data.scope],
        kind: KIND_TO_DB[data.kind],
      },
      select: VIEW,
    });
    await writeAudit(
      {
        actorId: userId,
        actorKind: 'user',
        action: 'personal_token.issue',
        targetType: 'personal_token',
        targetId: created.id,
        data: { name: created.name, prefix, scope: data.scope, kind: data.kind },
      },
      tx,
    );
    return toView(created);
  });
  return { token, record };
}

export async function listPersonalTokens({ userId }: { userId: string }): Promise<PersonalTokenView[]> {
  const rows = await getDb().personalToken.findMany({ where: { userId }, select: VIEW, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map(toView);
}

/** Revokes one of the user's own tokens; someone else's is "not found". Idempotent. */
export async function revokePersonalToken({ userId, id }: { userId: string; id: string }): Promise<PersonalTokenView> {
  return getDb().$transaction(async (tx) => {
    const { count } = await tx.personalToken.updateMany({ where: { id, userId, revokedAt: null }, data: { revokedAt: new Date() } });
    const row = await tx.personalToken.findFirst({ where: { id, userId }, select: VIEW });
    if (!row) throw new AppError('not_found', 'No such token');
    if (count === 1) {
      await writeAudit(
        {
          actorId: userId,
          actorKind: 'user',
          action: 'personal_token.revoke',
          targetType: 'personal_token',
          targetId: id,
          data: { name: row.name, prefix: row.prefix },
        },
        tx,
      );
    }
    return toView(row);
  });
}

/** "Authorization: Bearer ffp_…" → the user it acts as (re-read from the database), the token's scope and kind; else 401. */
export async function authenticatePersonalToken(
  authorization: string | null,
): Promise<{ user: SessionUser; scope: PersonalTokenScopeName; kind: PersonalTokenKindName }> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (!match || !match[1].startsWith(PERSONAL_TOKEN_PREFIX)) {
    throw new AppError('unauthenticated', 'Sign in, or send a personal token: Authorization: Bearer ffp_…');
  }
  const db = getDb();
  const row = await db.personalToken.findUnique({
    where: { tokenHash: hashToken(match[1]) },
    select: {
      id: true,
      revokedAt: true,
      expiresAt: true,
      scope: true,
      kind: true,
      user: { select: { id: true, email: true, name: true, roles: true, disabledAt: true, kind: true } },
    },
  });
  if (!row || row.user.kind === 'CODE_REVIEW') throw new AppError('unauthenticated', 'Unknown personal token');
  if (row.revokedAt) throw new AppError('unauthenticated', 'This personal token has been revoked');
  if (row.expiresAt && row.expiresAt.getTime() < Date.now()) throw new AppError('unauthenticated', 'This personal token has expired');
  if (row.user.disabledAt) throw new AppError('unauthenticated', 'This account is disabled');
  // informational only: must not fail the request
  await db.personalToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => undefined);
  return {
    user: { id: row.user.id, email: row.user.email, name: row.user.name, roles: row.user.roles },
    scope: SCOPE_FROM_DB[row.scope],
    kind: KIND_FROM_DB[row.kind],
  };
}
