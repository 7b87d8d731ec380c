import type { PrismaClient } from '../lib/generated/prisma/client';
import type { Role } from '../lib/generated/prisma/enums';
import { hashPassword, verifyPassword } from '../lib/auth/password';
import { generateToken, hashToken } from '../lib/tokens/auth';
import { RepositorySettingsSchema } from '../common/settings';
import type { BuiltRepo } from './build-repos';
import { generateHistory, HISTORY_MODEL, HISTORY_MODEL_PRICE, HISTORY_TITLE_PREFIX, type HistoryRows } from './history';
import { ensureModelPrices } from '../lib/models/prices';
import { DEMO_USERS, HISTORY_EMAIL_DOMAIN } from './users';
import { seedGradingQueue } from './grading';
import { ensureInsightsRollups, rebuildInsightsRollups } from '../lib/insights/rollup';

// Seeds the demo into a migrated database: the sign-in users, the demo
// repositories, a CI token for the demo reporter, and a few weeks of labelled
// history. Every step is idempotent: a second run finds what the first made
// and changes nothing (except re-issuing the CI token when the caller lost it).

export const DEMO_TOKEN_NAME = 'demo CI (npm run demo)';

/** History-only people: no password, so they cannot sign in. */
const HISTORY_PEOPLE: Array<{ email: string; name: string; roles: Role[] }> = [
  { email: `alice.moreau@${HISTORY_EMAIL_DOMAIN}`, name: 'Alice Moreau (history)', roles: ['REVIEWER'] },
  { email: `bram.visser@${HISTORY_EMAIL_DOMAIN}`, name: 'Bram Visser (history)', roles: ['REVIEWER'] },
  { email: `greta.lind@${HISTORY_EMAIL_DOMAIN}`, name: 'Greta Lind (history)', roles: ['REVIEWER'] },
  { email: `noor.haddad@${HISTORY_EMAIL_DOMAIN}`, name: 'Noor Haddad (history)', roles: ['GRADER'] },
  { email: `tomas.berg@${HISTORY_EMAIL_DOMAIN}`, name: 'Tomas Berg (history)', roles: ['GRADER'] },
];

export interface SeedRepository {
  name: string;
  /** absolute path of the git repository */
  gitUrl: string;
  language: string;
  defaultBranch: string;
  /** raw, partial settings (the .flowfix.json `settings` object) */
  settings: Record<string, unknown>;
}

export interface SeedResult {
  users: Array<{ id: string; email: string; roles: Role[] }>;
  repositories: Array<{ id: string; name: string }>;
  /** the plain CI token: only the caller ever sees it */
  ciToken: string;
  ciTokenReissued: boolean;
  history: { created: boolean; changes: number };
  grading: { created: boolean; items: number };
}

export function seedRepositoriesFrom(built: BuiltRepo[]): SeedRepository[] {
  return built.map((repo) => ({
    name: repo.spec.name,
    gitUrl: repo.dir,
    language: repo.spec.language,
    defaultBranch: 'main',
    settings: repo.spec.settings as Record<string, unknown>,
  }));
}

async function upsertUser({
  db,
  email,
  name,
  roles,
  password,
}: {
  db: PrismaClient;
  email: string;
  name: string;
  roles: Role[];
  password: string | null;
}): Promise<{ id: string; email: string; roles: Role[] }> {
  const existing = await db.user.findUnique({ where: { email } });
  // scrypt is slow on purpose: hash again only when the stored one does not match
  const keepHash =
    existing && (password === null ? existing.passwordHash === null : !!existing.passwordHash && (await verifyPassword(password, existing.passwordHash)));
  const passwordHash = keepHash ? existing!.passwordHash : password === null ? null : await hashPassword(password);
  const user = await db.user.upsert({
    where: { email },
    create: { email, name, roles, passwordHash },
    update: { name, roles, passwordHash, disabledAt: null },
    select: { id: true, email: true, roles: true },
  });
  return user;
}

async function upsertRepository({ db, repo }: { db: PrismaClient; repo: SeedRepository }): Promise<{ id: string; name: string }> {
  // validate before storing; store the raw object so defaults do not mask .flowfix.json
  RepositorySettingsSchema.parse(repo.settings);
  const data = {
    gitUrl: repo.gitUrl,
    language: repo.language,
    defaultBranch: repo.defaultBranch,
    settings: repo.settings as object,
    archivedAt: null,
  };
  return db.repository.upsert({
    where: { name: repo.name },
    create: { name: repo.name, ...data },
    update: data,
    select: { id: true, name: true },
  });
}

/**
 * The demo reporter's CI token. Only its hash is stored, so a token the
 * caller kept (in <dataDir>) is reused if it is still valid; otherwise the
 * old demo token is deleted and a new one issued.
 */
async function ensureCiToken({
  db,
  knownToken,
  repositoryIds,
  adminId,
}: {
  db: PrismaClient;
  knownToken?: string;
  repositoryIds: string[];
  adminId: string;
}): Promise<{ token: string; reissued: boolean }> {
  if (knownToken) {
    const row = await db.ciToken.findUnique({ where: { tokenHash: hashToken(knownToken) }, include: { scopes: true } });
    const covers = row && repositoryIds.every((id) => row.scopes.some((s) => s.repositoryId === id));
    if (row && !row.revokedAt && (!row.expiresAt || row.expiresAt > new Date()) && covers) {
      return { token: knownToken, reissued: false };
    }
  }
  const { token, prefix, tokenHash } = generateToken();
  await db.$transaction(async (tx) => {
    await tx.ciToken.deleteMany({ where: { name: DEMO_TOKEN_NAME } });
    await tx.ciToken.create({
      data: {
        name: DEMO_TOKEN_NAME,
        prefix,
        tokenHash,
        allRepositories: false,
        createdById: adminId,
        scopes: { create: repositoryIds.map((repositoryId) => ({ repositoryId })) },
      },
    });
    await tx.auditLog.create({
      data: { actorId: adminId, actorKind: 'system', action: 'token.issue', targetType: 'ciToken', data: { name: DEMO_TOKEN_NAME, prefix } },
    });
  });
  return { token, reissued: true };
}

async function insertHistory({ db, rows }: { db: PrismaClient; rows: HistoryRows }): Promise<void> {
  // one transaction: an interrupted seed leaves no history at all, and the
  // next run (which looks for any history) starts it again
  await db.$transaction(
    async (tx) => {
      await tx.change.createMany({ data: rows.changes });
      await tx.changeRevision.createMany({ data: rows.revisions });
      await tx.failure.createMany({ data: rows.failures });
      await tx.run.createMany({ data: rows.runs });
      await tx.runEvent.createMany({ data: rows.events });
      await tx.fix.createMany({ data: rows.fixes });
      await tx.decision.createMany({ data: rows.decisions });
      await tx.grade.createMany({ data: rows.grades });
      await tx.consensus.createMany({ data: rows.consensus });
      await tx.gradeReveal.createMany({ data: rows.reveals });
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
}

export async function seedDemo({
  db,
  repositories,
  knownCiToken,
  now = new Date(),
  history = true,
}: {
  db: PrismaClient;
  repositories: SeedRepository[];
  /** a token from an earlier seed, reused if still valid */
  knownCiToken?: string;
  now?: Date;
  history?: boolean;
}): Promise<SeedResult> {
  const users = [];
  for (const u of DEMO_USERS) {
    users.push(await upsertUser({ db, email: u.email, name: u.name, roles: [u.role], password: u.password }));
  }
  const historyUsers = [];
  for (const p of HISTORY_PEOPLE) historyUsers.push(await upsertUser({ db, ...p, password: null }));

  const repos = [];
  for (const repo of repositories) repos.push(await upsertRepository({ db, repo }));

  const admin = users.find((u) => u.roles.includes('ADMIN'))!;
  const { token, reissued } = await ensureCiToken({
    db,
    knownToken: knownCiToken,
    repositoryIds: repos.map((r) => r.id),
    adminId: admin.id,
  });

  // the prices the history's run costs were computed with, so Admin and Insights agree (an admin's own table is kept)
  if (history) await ensureModelPrices({ db, prices: { [HISTORY_MODEL]: { ...HISTORY_MODEL_PRICE } }, actorId: admin.id });

  let created = false;
  if (history && repos.length > 0) {
    const existing = await db.change.count({ where: { origin: 'DEMO_HISTORY' } });
    if (existing === 0) {
      const grader = users.find((u) => u.roles.includes('GRADER'))!;
      const rows = generateHistory({
        now,
        repositories: repos.map((r, i) => ({
          id: r.id,
          name: r.name,
          kind: repositories[i].language === 'python' ? 'python' : 'node',
        })),
        people: {
          reviewers: historyUsers.filter((u) => u.roles.includes('REVIEWER')).map((u) => u.id),
          graders: [...historyUsers.filter((u) => u.roles.includes('GRADER')).map((u) => u.id), grader.id],
          settler: grader.id,
        },
      });
      await insertHistory({ db, rows });
      created = true;
    }
  }
  const grading =
    history && repos.length > 0
      ? await seedGradingQueue({
          db,
          historyGraderIds: historyUsers.filter((u) => u.roles.includes('GRADER')).map((u) => u.id),
          graderId: users.find((u) => u.roles.includes('GRADER'))!.id,
          managerId: users.find((u) => u.roles.includes('MANAGER'))!.id,
          now,
        })
      : { created: false, items: 0 };
  const historyChanges = await db.change.count({ where: { origin: 'DEMO_HISTORY', title: { startsWith: HISTORY_TITLE_PREFIX } } });
  // the history went straight into the tables, past the writers that keep
  // the Insights rollups: build them from it (else only if never built)
  if (created) await rebuildInsightsRollups({ db });
  else await ensureInsightsRollups({ db });

  return {
    users: users.map((u) => ({ id: u.id, email: u.email, roles: u.roles })),
    repositories: repos,
    ciToken: token,
    ciTokenReissued: reissued,
    history: { created, changes: historyChanges },
    grading,
  };
}
