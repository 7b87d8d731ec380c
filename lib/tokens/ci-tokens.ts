import { getDb } from '../db';
import { actorFrom, writeAudit } from '../audit';
import { AppError } from '../errors';
import { generateToken } from './auth';
import type { Prisma } from '../generated/prisma/client';
import { CI_TOKEN_DEFAULT_DAYS, IssueTokenSchema, type IssueTokenInput } from './schemas';

// Issuing, listing and revoking CI tokens (authentication itself is in
// lib/tokens/auth.ts). The plain token exists only in the return value of
// issueCiToken: the database and the audit log hold its sha256 and prefix.

const TOKEN_SELECT = {
  id: true,
  name: true,
  prefix: true,
  allRepositories: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
  createdBy: { select: { id: true, name: true, email: true } },
  scopes: { select: { repository: { select: { id: true, name: true } } } },
} as const;

type SelectedToken = Prisma.CiTokenGetPayload<{ select: typeof TOKEN_SELECT }>;

export interface CiTokenView {
  id: string;
  name: string;
  prefix: string;
  allRepositories: boolean;
  repositories: Array<{ id: string; name: string }>;
  createdBy: { id: string; name: string; email: string } | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

function toView(t: SelectedToken): CiTokenView {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    allRepositories: t.allRepositories,
    repositories: t.scopes.map((s) => s.repository).sort((a, b) => a.name.localeCompare(b.name)),
    createdBy: t.createdBy,
    createdAt: t.createdAt,
    lastUsedAt: t.lastUsedAt,
    expiresAt: t.expiresAt,
    revokedAt: t.revokedAt,
  };
}

export async function listCiTokens(): Promise<CiTokenView[]> {
  const rows = await getDb().ciToken.findMany({ select: TOKEN_SELECT, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map(toView);
}

export async function issueCiToken({ actorId, input }: { actorId: string | null; input: IssueTokenInput }): Promise<{ token: string; record: CiTokenView }> {
  const data = IssueTokenSchema.parse(input);
  const repositoryIds = data.allRepositories ? [] : [...new Set(data.repositoryIds)];
  const expiresAt = data.expiresAt === undefined ? new Date(Date.now() + CI_TOKEN_DEFAULT_DAYS * 24 * 3600_000) : data.expiresAt;
  const { token, prefix, tokenHash } = generateToken();
  const record = await getDb().$transaction(async (tx) => {
    if (repositoryIds.length > 0) {
      const found = await tx.repository.findMany({
        where: { id: { in: repositoryIds }, archivedAt: null },
        select: { id: true },
      });
      const missing = repositoryIds.filter((id) => !found.some((r) => r.id === id));
      if (missing.length > 0) {
        throw new AppError('validation', 'Unknown or archived repositories', {
          details: [{ path: 'repositoryIds', message: `not found: ${missing.join(', ')}` }],
        });
      }
    }
    const created = await tx.ciToken.create({
      data: {
        name: data.name,
        prefix,
        tokenHash,
        allRepositories: data.allRepositories,
        expiresAt,
        createdById: actorId,
        scopes: { create: repositoryIds.map((repositoryId) => ({ repositoryId })) },
      },
      select: TOKEN_SELECT,
    });
    await writeAudit(
      {
        ...actorFrom(actorId),
        action: 'token.issue',
        targetType: 'ci_token',
        targetId: created.id,
        data: { name: created.name, prefix, allRepositories: created.allRepositories, repositoryIds, expiresAt: created.expiresAt?.toISOString() ?? null },
      },
      tx,
    );
    return toView(created);
  });
  return { token, record };
}

/** Revokes a token; revoking an already revoked token changes nothing and is not audited again. */
export async function revokeCiToken({ actorId, id }: { actorId: string | null; id: string }): Promise<CiTokenView> {
  return getDb().$transaction(async (tx) => {
    // conditional update: of two concurrent revokes exactly one writes the audit entry
    const { count } = await tx.ciToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    const row = await tx.ciToken.findUnique({ where: { id }, select: TOKEN_SELECT });
    if (!row) throw new AppError('not_found', 'No such CI token');
    if (count === 1) {
      await writeAudit(
        {
          ...actorFrom(actorId),
          action: 'token.revoke',
          targetType: 'ci_token',
          targetId: id,
          data: { name: row.name, prefix: row.prefix },
        },
        tx,
      );
    }
    return toView(row);
  });
}
