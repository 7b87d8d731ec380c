import 'server-only';
import { randomBytes } from 'node:crypto';
import { Prisma } from '../generated/prisma/client';
import { getDb } from '../db';
import { AppError } from '../errors';
import { writeAudit } from '../audit';
import type { SessionUser } from '../auth/session';
import { GRADING_MANAGER_ROLES, GRADING_ROLES, hasRoleIn } from '../../common/roles';
import { QUEUE_MAX_ITEMS, QueueFilterSchema, type CreateQueueInput, type QueueFilter } from './schemas';

// Grading queues: built by a manager from a filter over fixes (sampled with
// a recorded seed, so the same queue can be built again), with their graders,
// instructions and whether graders may see the reviewers' decisions; their
// progress; closing and reopening; and who may do what in one.

export type QueueRow = Prisma.GradingQueueGetPayload<{ include: { graders: { select: { userId: true } } } }>;

export function canManageGrading(user: Pick<SessionUser, 'roles'>): boolean {
  return hasRoleIn(user.roles, GRADING_MANAGER_ROLES);
}

/** The queue, or 404. */
export async function loadQueue(queueId: string): Promise<QueueRow> {
  const queue = await getDb().gradingQueue.findUnique({ where: { id: queueId }, include: { graders: { select: { userId: true } } } });
  if (!queue) throw new AppError('not_found', 'No such grading queue');
  return queue;
}

export function isQueueGrader(queue: QueueRow, userId: string): boolean {
  return queue.graders.some((g) => g.userId === userId);
}

/** May this user settle disputes, read agreement and export? Managers, admins and the queue's lead grader. */
export function canLeadQueue(queue: QueueRow, user: SessionUser): boolean {
  return canManageGrading(user) || queue.leadGraderId === user.id;
}

/** The queue if this user may grade in it: 404 when absent, 403 when not one of its graders. */
export async function queueForGrader(queueId: string, user: SessionUser): Promise<QueueRow> {
  const queue = await loadQueue(queueId);
  if (!isQueueGrader(queue, user.id)) throw new AppError('forbidden', 'You are not one of this queue’s graders');
  return queue;
}

/** The queue if this user may see it at all (its graders, its lead, managers and admins). */
export async function queueForViewer(queueId: string, user: SessionUser): Promise<QueueRow> {
  const queue = await loadQueue(queueId);
  if (!isQueueGrader(queue, user.id) && !canLeadQueue(queue, user)) {
    throw new AppError('forbidden', 'You are not one of this queue’s graders');
  }
  return queue;
}

/** The queue if this user may lead it (settle, agreement, export). */
export async function queueForLead(queueId: string, user: SessionUser): Promise<QueueRow> {
  const queue = await loadQueue(queueId);
  if (!canLeadQueue(queue, user)) throw new AppError('forbidden', 'Only a manager, an admin or the queue’s lead grader may do this');
  return queue;
}

// ───── building a queue ─────

function filterSql(filter: QueueFilter): Prisma.Sql {
  const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.repositoryIds.length) parts.push(Prisma.sql`ch."repositoryId" IN (${Prisma.join(filter.repositoryIds)})`);
  if (filter.from) parts.push(Prisma.sql`f."createdAt" >= ${filter.from}`);
  if (filter.to) parts.push(Prisma.sql`f."createdAt" < ${filter.to}`);
  if (filter.policies.length) parts.push(Prisma.sql`r.policy IN (${Prisma.join(filter.policies)})`);
  if (filter.models.length) parts.push(Prisma.sql`r.model IN (${Prisma.join(filter.models)})`);
  if (filter.statuses.length) parts.push(Prisma.sql`f.status::text IN (${Prisma.join(filter.statuses)})`);
  if (!filter.includeHistory) parts.push(Prisma.sql`ch.origin <> 'DEMO_HISTORY'`);
  if (filter.ungradedOnly) {
    parts.push(Prisma.sql`NOT EXISTS (SELECT 1 FROM "Grade" g WHERE g."fixId" = f.id) AND NOT EXISTS (SELECT 1 FROM "Consensus" c WHERE c."fixId" = f.id)`);
  }
  if (filter.decisions.length) {
    const kinds = filter.decisions.filter((d) => d !== 'NONE');
    const latest = Prisma.sql`(SELECT d.kind::text FROM "Decision" d WHERE d."fixId" = f.id AND d.kind <> 'PREVIEW' ORDER BY d."createdAt" DESC, d.id DESC LIMIT 1)`;
    const alternatives: Prisma.Sql[] = [];
    if (kinds.length) alternatives.push(Prisma.sql`${latest} IN (${Prisma.join(kinds)})`);
    if (filter.decisions.includes('NONE')) alternatives.push(Prisma.sql`${latest} IS NULL`);
    parts.push(Prisma.sql`(${Prisma.join(alternatives, ' OR ')})`);
  }
  return Prisma.join(parts, ' AND ');
}

/**
 * The fix ids a filter selects, in hand-out order: a sample orders every match
 * by a hash of the fix id seeded with the seed and keeps the first N, so the same seed over the same
 * fixes gives the same queue; without a sample, oldest first.
 */
export async function selectFixes(filter: QueueFilter): Promise<string[]> {
  const where = filterSql(filter);
  const limit = Math.min(filter.sample ?? QUEUE_MAX_ITEMS, QUEUE_MAX_ITEMS);
  // PostgreSQL's own 64-bit text hash, seeded: stable across servers and versions (hash partitioning relies on it)
  const order = filter.sample ? Prisma.sql`hashtextextended(f.id, hashtext(${filter.seed ?? ''})::bigint), f.id` : Prisma.sql`f."createdAt", f.id`;
  // join only what the filter reads
  const needsRun = filter.policies.length > 0 || filter.models.length > 0;
  const needsChange = filter.repositoryIds.length > 0 || !filter.includeHistory;
  const rows = await getDb().$queryRaw<Array<{ id: string }>>`
    SELECT f.id FROM "Fix" f
    ${needsRun ? Prisma.sql`JOIN "Run" r ON r.id = f."runId"` : Prisma.empty}
    ${needsChange ? Prisma.sql`JOIN "Change" ch ON ch.id = f."changeId"` : Prisma.empty}
    WHERE ${where}
    ORDER BY ${order}
    LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

export async function createQueue({
  actor,
  input,
}: {
  actor: SessionUser;
  input: CreateQueueInput;
}): Promise<{ id: string; items: number; seed: string | null }> {
  const filter: QueueFilter = { ...input.filter, seed: input.filter.sample ? (input.filter.seed ?? randomBytes(8).toString('hex')) : undefined };
  const graderIds = [...new Set(input.graderIds)];
  // code-review identities never grade, whatever roles a row carries (lib/users/code-review.ts)
  const graders = await getDb().user.findMany({ where: { id: { in: graderIds }, disabledAt: null, kind: 'PERSON' }, select: { id: true, roles: true } });
  const unfit = graderIds.filter((id) => !graders.some((g) => g.id === id && hasRoleIn(g.roles, GRADING_ROLES)));
  if (unfit.length) throw new AppError('validation', 'Every grader must be an active user with the grader, manager or admin role', { details: { unfit } });
  if (input.leadGraderId && !graderIds.includes(input.leadGraderId)) {
    throw new AppError('validation', 'The lead grader must be one of the queue’s graders');
  }
  if (input.gradersPerFix > graderIds.length) {
    throw new AppError('validation', `Each fix needs ${input.gradersPerFix} graders but the queue has ${graderIds.length}: add graders or lower the number`);
  }
  const fixIds = await selectFixes(filter);
  if (fixIds.length === 0) {
    throw new AppError(
      'validation',
      'No fix matches this filter: widen it (repository, period, policy, model, status or decision) — an empty queue was not created',
    );
  }
  const queue = await getDb().$transaction(
    async (tx) => {
      const q = await tx.gradingQueue.create({
        data: {
          name: input.name,
          instructions: input.instructions,
          gradersPerFix: input.gradersPerFix,
          showDecisions: input.showDecisions,
          filter: QueueFilterSchema.parse(filter) as unknown as Prisma.InputJsonValue,
          leadGraderId: input.leadGraderId,
          createdById: actor.id,
          graders: { create: graderIds.map((userId) => ({ userId })) },
        },
      });
      await tx.gradingItem.createMany({ data: fixIds.map((fixId, position) => ({ queueId: q.id, fixId, position })) });
      await writeAudit(
        {
          actorId: actor.id,
          actorKind: 'user',
          action: 'grading.queue_create',
          targetType: 'grading_queue',
          targetId: q.id,
          data: { items: fixIds.length, seed: filter.seed ?? null },
        },
        tx,
      );
      return q;
    },
    { maxWait: 15_000, timeout: 60_000 },
  );
  return { id: queue.id, items: fixIds.length, seed: filter.seed ?? null };
}

export async function setQueueStatus({ actor, queueId, status }: { actor: SessionUser; queueId: string; status: 'OPEN' | 'CLOSED' }) {
  await loadQueue(queueId);
  await getDb().$transaction(async (tx) => {
    await tx.gradingQueue.update({ where: { id: queueId }, data: { status, closedAt: status === 'CLOSED' ? new Date() : null } });
    if (status === 'CLOSED') await tx.gradingLease.deleteMany({ where: { item: { queueId } } });
    await writeAudit(
      {
        actorId: actor.id,
        actorKind: 'user',
        action: status === 'CLOSED' ? 'grading.queue_close' : 'grading.queue_reopen',
        targetType: 'grading_queue',
        targetId: queueId,
      },
      tx,
    );
  });
}

// ───── progress ─────

export interface QueueProgress {
  items: number;
  /**
   * settled (a consensus on the fix); for a grader who does not lead the
   * queue, every item with all its labels, settled or not (see blindProgress)
   */
  complete: number;
  /** enough labels, not unanimous, not yet settled; null for a grader who does not lead the queue */
  disputed: number | null;
  /** some labels or reservations, not enough yet */
  inProgress: number;
  waiting: number;
}

export interface QueueSummary {
  id: string;
  name: string;
  status: 'OPEN' | 'CLOSED';
  gradersPerFix: number;
  showDecisions: boolean;
  instructions: string;
  createdAt: string;
  createdBy: string;
  leadGrader: { id: string; name: string } | null;
  progress: QueueProgress;
  /** what the signed-in user may do here */
  you: { grader: boolean; lead: boolean; manager: boolean; labelled: number };
}

async function progressOf(queueIds: string[]): Promise<Map<string, QueueProgress>> {
  const out = new Map<string, QueueProgress>();
  if (queueIds.length === 0) return out;
  const rows = await getDb().$queryRaw<Array<{ queueId: string; items: number; complete: number; disputed: number; inProgress: number }>>`
    SELECT s."queueId", count(*)::int AS items,
      count(*) FILTER (WHERE s.settled)::int AS complete,
      count(*) FILTER (WHERE NOT s.settled AND s.labels >= s.needed)::int AS disputed,
      count(*) FILTER (WHERE NOT s.settled AND s.labels < s.needed AND (s.labels > 0 OR s.leases > 0))::int AS "inProgress"
    FROM (
      SELECT i."queueId", q."gradersPerFix" AS needed,
        EXISTS (SELECT 1 FROM "Consensus" c WHERE c."fixId" = i."fixId") AS settled,
        (SELECT count(*) FROM "Grade" g WHERE g."fixId" = i."fixId") AS labels,
        (SELECT count(*) FROM "GradingLease" l WHERE l."itemId" = i.id AND l."expiresAt" > now()) AS leases
      FROM "GradingItem" i JOIN "GradingQueue" q ON q.id = i."queueId"
      WHERE i."queueId" IN (${Prisma.join(queueIds)})
    ) s
    GROUP BY s."queueId"`;
  for (const r of rows) {
    const items = Number(r.items);
    const complete = Number(r.complete);
    const disputed = Number(r.disputed);
    const inProgress = Number(r.inProgress);
    out.set(r.queueId, { items, complete, disputed, inProgress, waiting: items - complete - disputed - inProgress });
  }
  return out;
}

async function labelledBy(userId: string, queueIds: string[]): Promise<Map<string, number>> {
  if (queueIds.length === 0) return new Map();
  const rows = await getDb().$queryRaw<Array<{ queueId: string; n: number }>>`
    SELECT i."queueId", count(*)::int AS n FROM "GradingItem" i
    JOIN "Grade" g ON g."fixId" = i."fixId" AND g."graderId" = ${userId}
    WHERE i."queueId" IN (${Prisma.join(queueIds)})
    GROUP BY 1`;
  return new Map(rows.map((r) => [r.queueId, Number(r.n)]));
}

const SUMMARY_INCLUDE = {
  graders: { select: { userId: true } },
  createdBy: { select: { name: true } },
  leadGrader: { select: { id: true, name: true } },
} satisfies Prisma.GradingQueueInclude;

/** The queues this user may see (managers and admins: all; graders: those they are seated in), newest first. */
export async function listQueues({ user }: { user: SessionUser }): Promise<QueueSummary[]> {
  const manager = canManageGrading(user);
  const queues = await getDb().gradingQueue.findMany({
    where: manager ? {} : { OR: [{ graders: { some: { userId: user.id } } }, { leadGraderId: user.id }] },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 200,
    include: SUMMARY_INCLUDE,
  });
  const ids = queues.map((q) => q.id);
  const [progress, mine] = await Promise.all([progressOf(ids), labelledBy(user.id, ids)]);
  return queues.map((q) => toSummary(q, user, progress.get(q.id), mine.get(q.id) ?? 0));
}

/**
 * The progress a grader who does not lead the queue sees. Which complete
 * items settled themselves and which wait for the lead says whether their
 * labels agreed, and the label that completes an item would learn it at once:
 * so they see one count of items with all their labels.
 */
function blindProgress(p: QueueProgress): QueueProgress {
  return { ...p, complete: p.complete + (p.disputed ?? 0), disputed: null };
}

function toSummary(
  q: Prisma.GradingQueueGetPayload<{ include: typeof SUMMARY_INCLUDE }>,
  user: SessionUser,
  progress: QueueProgress | undefined,
  labelled: number,
): QueueSummary {
  const lead = canManageGrading(user) || q.leadGraderId === user.id;
  const counts = progress ?? { items: 0, complete: 0, disputed: 0, inProgress: 0, waiting: 0 };
  return {
    id: q.id,
    name: q.name,
    status: q.status,
    gradersPerFix: q.gradersPerFix,
    showDecisions: q.showDecisions,
    instructions: q.instructions,
    createdAt: q.createdAt.toISOString(),
    createdBy: q.createdBy.name,
    leadGrader: q.leadGrader,
    progress: lead ? counts : blindProgress(counts),
    you: {
      grader: q.graders.some((g) => g.userId === user.id),
      lead: q.leadGraderId === user.id,
      manager: canManageGrading(user),
      labelled,
    },
  };
}

export interface GraderProgress {
  id: string;
  name: string;
  labelled: number;
  skipped: number;
  /** items reserved for them right now */
  reserved: number;
}

export interface QueueDetail extends QueueSummary {
  filter: QueueFilter;
  graders: GraderProgress[];
}

/** One queue with its progress and each grader's. */
export async function getQueueDetail({ queueId, user }: { queueId: string; user: SessionUser }): Promise<QueueDetail> {
  await queueForViewer(queueId, user);
  const q = await getDb().gradingQueue.findUniqueOrThrow({ where: { id: queueId }, include: SUMMARY_INCLUDE });
  const [progress, mine] = await Promise.all([progressOf([queueId]), labelledBy(user.id, [queueId])]);
  const graders = await getDb().$queryRaw<Array<{ id: string; name: string; labelled: number; skipped: number; reserved: number }>>`
    SELECT u.id, u.name,
      (SELECT count(*) FROM "GradingItem" i JOIN "Grade" g ON g."fixId" = i."fixId" AND g."graderId" = u.id WHERE i."queueId" = ${queueId})::int AS labelled,
      (SELECT count(*) FROM "GradingSkip" s JOIN "GradingItem" i ON i.id = s."itemId" WHERE i."queueId" = ${queueId} AND s."graderId" = u.id)::int AS skipped,
      (SELECT count(*) FROM "GradingLease" l JOIN "GradingItem" i ON i.id = l."itemId" WHERE i."queueId" = ${queueId} AND l."graderId" = u.id AND l."expiresAt" > now())::int AS reserved
    FROM "GradingQueueGrader" qg JOIN "User" u ON u.id = qg."userId"
    WHERE qg."queueId" = ${queueId}
    ORDER BY u.name, u.id`;
  return {
    ...toSummary(q, user, progress.get(queueId), mine.get(queueId) ?? 0),
    filter: QueueFilterSchema.parse(q.filter),
    graders: graders.map((g) => ({ ...g, labelled: Number(g.labelled), skipped: Number(g.skipped), reserved: Number(g.reserved) })),
  };
}

/** What the queue form offers: the users a manager may seat (active graders, managers, admins), repositories, policies, models. */
export async function queueFormOptions(): Promise<{
  graders: Array<{ id: string; name: string; email: string; roles: string[] }>;
  repositories: Array<{ id: string; name: string }>;
  policies: string[];
  models: string[];
}> {
  const db = getDb();
  const [graders, repositories, policies, models] = await Promise.all([
    // (a list filter on an enum array is written in SQL: the embedded driver cannot bind it)
    db.$queryRaw<Array<{ id: string; name: string; email: string; roles: string[] }>>`
      SELECT id, name, email, roles::text[] AS roles FROM "User"
      WHERE "disabledAt" IS NULL AND kind = 'PERSON' AND roles && ARRAY[${Prisma.join([...GRADING_ROLES])}]::"Role"[]
      ORDER BY name, id`,
    db.repository.findMany({ where: { archivedAt: null }, select: { id: true, name: true }, orderBy: { name: 'asc' } }),
    db.$queryRaw<Array<{ v: string }>>`SELECT DISTINCT policy AS v FROM "Run" ORDER BY 1 LIMIT 20`,
    db.$queryRaw<Array<{ v: string }>>`SELECT DISTINCT model AS v FROM "Run" WHERE model IS NOT NULL ORDER BY 1 LIMIT 50`,
  ]);
  return { graders, repositories, policies: policies.map((r) => r.v), models: models.map((r) => r.v) };
}
