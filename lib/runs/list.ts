import { getDb, type Db } from '../db';
import { decodeCursor, encodeCursor } from '../http/cursor';
import type { Prisma } from '../generated/prisma/client';
import type { RunListPage, RunListQuery } from '../../common/run-list';

export { RunListQuerySchema, type RunListItem, type RunListPage, type RunListQuery } from '../../common/run-list';

// The list of every run (the Runs page), newest first, keyset-paged on
// (createdAt desc, id desc) so a deep page costs what the first one does.

export async function listRuns({ query, db = getDb() }: { query: RunListQuery; db?: Db }): Promise<RunListPage> {
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  const where: Prisma.RunWhereInput = {
    ...(query.status?.length ? { status: { in: query.status } } : {}),
    ...(query.repository ? { change: { repository: { name: query.repository } } } : {}),
    ...(query.policy ? { policy: query.policy } : {}),
    ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {}),
  };
  const [rows, repositories, policies] = await Promise.all([
    db.run.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
      select: {
        id: true,
        status: true,
        exitReason: true,
        trigger: true,
        policy: true,
        model: true,
        createdAt: true,
        startedAt: true,
        finishedAt: true,
        costUsd: true,
        toolCalls: true,
        change: { select: { id: true, externalId: true, title: true, origin: true, repository: { select: { name: true } } } },
        fix: { select: { id: true, status: true } },
      },
    }),
    db.repository.findMany({ where: { archivedAt: null }, orderBy: { name: 'asc' }, select: { name: true } }),
    db.run.groupBy({ by: ['policy'], orderBy: { policy: 'asc' } }),
  ]);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ({
      id: r.id,
      status: r.status,
      exitReason: r.exitReason,
      trigger: r.trigger,
      policy: r.policy,
      model: r.model,
      createdAt: r.createdAt.toISOString(),
      startedAt: r.startedAt?.toISOString() ?? null,
      finishedAt: r.finishedAt?.toISOString() ?? null,
      durationMs: r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
      costUsd: r.costUsd,
      toolCalls: r.toolCalls,
      change: { id: r.change.id, externalId: r.change.externalId, title: r.change.title, isHistory: r.change.origin === 'DEMO_HISTORY' },
      repository: r.change.repository.name,
      fix: r.fix,
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
    repositories: repositories.map((r) => r.name),
    policies: policies.map((p) => p.policy),
  };
}
