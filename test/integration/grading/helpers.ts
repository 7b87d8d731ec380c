import type { PrismaClient } from '../../../lib/generated/prisma/client';
import type { FixStatus, GradeLabel, RejectReason, Role } from '../../../lib/generated/prisma/enums';

// Rows of fixes for the grading tests: a repository, and per fix its change,
// revision and run, with the fields grading filters on. No git repository:
// grading reads only the database.

let counter = 0;
const uid = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export async function createRepo(db: PrismaClient, name = `repo-${uid()}`) {
  return db.repository.create({ data: { name, gitUrl: `/nonexistent/${name}`, language: 'typescript' } });
}

export async function createUser(db: PrismaClient, name: string, roles: Role[] = ['GRADER']) {
  return db.user.create({ data: { email: `${name.toLowerCase().replace(/\W+/g, '-')}-${uid()}@example.com`, name, roles } });
}

export interface FixSpec {
  repositoryId: string;
  policy?: string;
  model?: string | null;
  status?: FixStatus;
  createdAt?: Date;
  title?: string;
  diff?: string;
}

export async function createFix(db: PrismaClient, spec: FixSpec) {
  const id = uid();
  const change = await db.change.create({
    data: {
      repositoryId: spec.repositoryId,
      externalId: `PR-${id}`,
      title: spec.title ?? `Change ${id}`,
      description: 'Make the totals start at zero',
      author: 'Dev Eloper',
      branch: `feature/${id}`,
      baseRev: 'a'.repeat(40),
      headRev: 'b'.repeat(40),
      status: 'FIX_READY',
    },
  });
  const revision = await db.changeRevision.create({
    data: { changeId: change.id, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: change.branch },
  });
  const run = await db.run.create({
    data: {
      changeId: change.id,
      revisionId: revision.id,
      policy: spec.policy ?? 'offline',
      model: spec.model ?? null,
      status: 'FIXED',
      exitReason: 'fixed',
      finishedAt: new Date(),
    },
  });
  return db.fix.create({
    data: {
      runId: run.id,
      changeId: change.id,
      revisionId: revision.id,
      diff: spec.diff ?? 'diff --git a/cart.js b/cart.js\n--- a/cart.js\n+++ b/cart.js\n@@ -1 +1 @@\n-a + 1\n+a + 0\n',
      files: ['cart.js'],
      status: spec.status ?? 'READY',
      ...(spec.createdAt ? { createdAt: spec.createdAt } : {}),
    },
  });
}

/** A settled label on a fix, settled by `by` (a person). */
export async function settle(db: PrismaClient, fixId: string, label: GradeLabel, by: string) {
  return db.consensus.create({ data: { fixId, label, settledById: by } });
}

export async function reject(db: PrismaClient, fixId: string, userId: string, reason: RejectReason | null) {
  await db.decision.create({ data: { fixId, userId, kind: 'REJECT', reason } });
}
