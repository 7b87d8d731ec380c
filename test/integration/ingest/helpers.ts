import { NextRequest } from 'next/server';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { generateToken } from '@/lib/tokens/auth';
import { POST } from '@/app/api/v1/failures/route';

// Shared set-up for the ingestion tests: a repository, tokens of every kind,
// and requests sent straight to the real route handler (no HTTP server).

export const URL_FAILURES = 'http://localhost:3000/api/v1/failures';

export interface Seeded {
  repositoryId: string;
  otherRepositoryId: string;
  tokens: { scoped: string; all: string; unscoped: string; revoked: string; expired: string };
}

async function issueToken({
  db,
  name,
  repositoryIds = [],
  allRepositories = false,
  revokedAt,
  expiresAt,
}: {
  db: PrismaClient;
  name: string;
  repositoryIds?: string[];
  allRepositories?: boolean;
  revokedAt?: Date;
  expiresAt?: Date;
}): Promise<string> {
  const { token, prefix, tokenHash } = generateToken();
  await db.ciToken.create({
    data: {
      name,
      prefix,
      tokenHash,
      allRepositories,
      revokedAt,
      expiresAt,
      scopes: { create: repositoryIds.map((repositoryId) => ({ repositoryId })) },
    },
  });
  return token;
}

export async function seed(db: PrismaClient): Promise<Seeded> {
  const repo = await db.repository.create({ data: { name: 'shop', gitUrl: '/tmp/shop.git' } });
  const other = await db.repository.create({ data: { name: 'other', gitUrl: '/tmp/other.git' } });
  return {
    repositoryId: repo.id,
    otherRepositoryId: other.id,
    tokens: {
      scoped: await issueToken({ db, name: 'ci-shop', repositoryIds: [repo.id] }),
      all: await issueToken({ db, name: 'ci-all', allRepositories: true }),
      unscoped: await issueToken({ db, name: 'ci-other', repositoryIds: [other.id] }),
      revoked: await issueToken({ db, name: 'ci-revoked', repositoryIds: [repo.id], revokedAt: new Date() }),
      expired: await issueToken({ db, name: 'ci-expired', repositoryIds: [repo.id], expiresAt: new Date(Date.now() - 1000) }),
    },
  };
}

export function metadata(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { change, ...rest } = overrides as { change?: Record<string, unknown> };
  return {
    repository: 'shop',
    baseRev: 'a'.repeat(40),
    headRev: 'b'.repeat(40),
    ciUrl: 'https://ci.example.com/build/1',
    ...rest,
    change: {
      externalId: 'PR-1',
      title: 'Fix the cart total',
      description: 'Sums prices with a loop.',
      author: 'Ada Lovelace',
      authorEmail: 'ada@example.com',
      branch: 'feature/cart',
      url: 'https://git.example.com/shop/pull/1',
      ...change,
    },
  };
}

export function jsonRequest({ token, body }: { token?: string; body: unknown }): NextRequest {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (token) headers.set('authorization', `Bearer ${token}`);
  return new NextRequest(URL_FAILURES, {
    method: 'POST',
    headers,
    body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
  });
}

export function multipartRequest({
  token,
  meta,
  junit = [],
  log,
}: {
  token?: string;
  meta: unknown;
  junit?: Array<string | Uint8Array>;
  log?: string | Uint8Array;
}): NextRequest {
  const form = new FormData();
  form.set('metadata', new Blob([JSON.stringify(meta)], { type: 'application/json' }), 'metadata.json');
  junit.forEach((xml, i) => form.append('junit', new Blob([xml as BlobPart], { type: 'application/xml' }), `report-${i}.xml`));
  if (log !== undefined) form.set('log', new Blob([log as BlobPart], { type: 'text/plain' }), 'ci.log');
  const headers = new Headers();
  if (token) headers.set('authorization', `Bearer ${token}`);
  return new NextRequest(URL_FAILURES, { method: 'POST', headers, body: form });
}

export interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; message: string } };
}

export async function send(req: NextRequest): Promise<Answer> {
  const res = await POST(req, { params: Promise.resolve({}) });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

/** Row counts that must not move when a request is refused. */
export async function counts(db: PrismaClient) {
  const [changes, revisions, failures, audits] = await Promise.all([
    db.change.count(),
    db.changeRevision.count(),
    db.failure.count(),
    db.auditLog.count({ where: { action: 'failure.ingest' } }),
  ]);
  return { changes, revisions, failures, audits };
}
