import type { Prisma } from './generated/prisma/client';
import { getDb } from './db';
import { AppError } from './errors';
import { csvCell } from '../common/csv';
import { AUDIT_EXPORT_MAX_ROWS, type AuditFilter } from '../common/audit-query';

export interface AuditEntry {
  actorId?: string | null;
  actorKind: 'user' | 'token' | 'system';
  action: string;
  targetType?: string;
  targetId?: string;
  data?: Prisma.InputJsonValue;
}

type AuditWriter = Pick<Prisma.TransactionClient, 'auditLog'>;

/**
 * Who acted, for an admin-facing service that may also be called by a script
 * or the seed without a signed-in user: that user, else the system.
 */
export function actorFrom(actorId: string | null | undefined): Pick<AuditEntry, 'actorId' | 'actorKind'> {
  return actorId ? { actorId, actorKind: 'user' } : { actorId: null, actorKind: 'system' };
}

/** Appends to the audit log; pass `tx` to make the entry part of the action's transaction. */
export async function writeAudit(entry: AuditEntry, tx?: AuditWriter): Promise<void> {
  await (tx ?? getDb()).auditLog.create({
    data: {
      actorId: entry.actorId ?? null,
      actorKind: entry.actorKind,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      data: entry.data ?? {},
    },
  });
}

// ───────────── reading the log (the admin audit page and its export) ─────────────

/** One entry as the admin page and the export show it. */
export interface AuditView {
  id: string;
  createdAt: Date;
  actorKind: string;
  actor: { id: string; name: string; email: string } | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  /** the target as a person reads it ("Ada <ada@example.com>", "acme/shop PR-7"); null when unknown or gone */
  targetName: string | null;
  data: unknown;
}

function auditWhere(filter: AuditFilter): Prisma.AuditLogWhereInput {
  return {
    ...(filter.actor ? { actorId: filter.actor } : {}),
    ...(filter.action ? { action: filter.action.endsWith('.') ? { startsWith: filter.action } : filter.action } : {}),
    ...(filter.from || filter.to ? { createdAt: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lte: filter.to } : {}) } } : {}),
  };
}

async function readAudit(filter: AuditFilter, { before, take }: { before?: bigint; take: number }): Promise<AuditView[]> {
  const rows = await getDb().auditLog.findMany({
    where: { AND: [auditWhere(filter), before !== undefined ? { id: { lt: before } } : {}] },
    // id is the insertion order, and unique: a stable keyset for paging
    orderBy: { id: 'desc' },
    take,
    include: { actor: { select: { id: true, name: true, email: true } } },
  });
  const names = await targetNames(rows);
  return rows.map((r) => ({
    id: r.id.toString(),
    createdAt: r.createdAt,
    actorKind: r.actorKind,
    actor: r.actor,
    action: r.action,
    targetType: r.targetType,
    targetId: r.targetId,
    targetName: (r.targetType && r.targetId && names.get(`${r.targetType}:${r.targetId}`)) ?? null,
    data: r.data,
  }));
}

const changeName = (c: { externalId: string; repository: { name: string } }) => `${c.repository.name} ${c.externalId}`;
const CHANGE_NAME = { select: { externalId: true, repository: { select: { name: true } } } } as const;

/**
 * Readable names of the entries' targets, `type:id` → name, one query per
 * target type on the page. An account's id is already its e-mail; a target
 * since deleted has no name (its id stays in the entry).
 */
async function targetNames(rows: Array<{ targetType: string | null; targetId: string | null }>): Promise<Map<string, string>> {
  const ids = new Map<string, Set<string>>();
  for (const r of rows) if (r.targetType && r.targetId) (ids.get(r.targetType) ?? ids.set(r.targetType, new Set()).get(r.targetType)!).add(r.targetId);
  const of = (type: string) => [...(ids.get(type) ?? [])];
  const db = getDb();
  const names = new Map<string, string>();
  const put = (type: string, list: Array<{ id: string; name: string }>) => list.forEach((x) => names.set(`${type}:${x.id}`, x.name));
  const lookups: Array<Promise<void>> = [];
  const look = <T>(type: string, read: (id: string[]) => Promise<T[]>, name: (row: T) => { id: string; name: string }) => {
    const list = of(type);
    if (list.length > 0) lookups.push(read(list).then((found) => put(type, found.map(name))));
  };
  look(
    'user',
    (id) => db.user.findMany({ where: { id: { in: id } }, select: { id: true, name: true, email: true } }),
    (u) => ({ id: u.id, name: `${u.name} <${u.email}>` }),
  );
  look(
    'repository',
    (id) => db.repository.findMany({ where: { id: { in: id } }, select: { id: true, name: true } }),
    (r) => r,
  );
  look(
    'change',
    (id) => db.change.findMany({ where: { id: { in: id } }, select: { id: true, ...CHANGE_NAME.select } }),
    (c) => ({ id: c.id, name: changeName(c) }),
  );
  look(
    'fix',
    (id) => db.fix.findMany({ where: { id: { in: id } }, select: { id: true, change: CHANGE_NAME } }),
    (f) => ({ id: f.id, name: `fix of ${changeName(f.change)}` }),
  );
  look(
    'run',
    (id) => db.run.findMany({ where: { id: { in: id } }, select: { id: true, change: CHANGE_NAME } }),
    (r) => ({ id: r.id, name: `run of ${changeName(r.change)}` }),
  );
  look(
    'ci_token',
    (id) => db.ciToken.findMany({ where: { id: { in: id } }, select: { id: true, name: true } }),
    (t) => t,
  );
  look(
    'personal_token',
    (id) => db.personalToken.findMany({ where: { id: { in: id } }, select: { id: true, name: true, user: { select: { name: true } } } }),
    (t) => ({ id: t.id, name: `${t.name} (${t.user.name})` }),
  );
  look(
    'code_host',
    (id) => db.codeHost.findMany({ where: { id: { in: id } }, select: { id: true, name: true } }),
    (h) => h,
  );
  look(
    'grading_queue',
    (id) => db.gradingQueue.findMany({ where: { id: { in: id } }, select: { id: true, name: true } }),
    (q) => q,
  );
  for (const email of of('account')) names.set(`account:${email}`, email);
  await Promise.all(lookups);
  return names;
}

/** The audit route's answer: a keyset page and the actions the filter offers. */
export interface AuditPage {
  entries: AuditView[];
  nextCursor: string | null;
  actions: string[];
}

/** A page of the log, newest first; `nextCursor` continues after its last entry. */
export async function queryAudit({ filter, cursor, limit }: { filter: AuditFilter; cursor?: string; limit: number }): Promise<Omit<AuditPage, 'actions'>> {
  const rows = await readAudit(filter, { before: cursor ? BigInt(cursor) : undefined, take: limit + 1 });
  const entries = rows.slice(0, limit);
  return { entries, nextCursor: rows.length > limit ? entries[entries.length - 1].id : null };
}

/** Every entry the filter matches, newest first (the export); refuses more than AUDIT_EXPORT_MAX_ROWS. */
export async function exportAudit({ filter }: { filter: AuditFilter }): Promise<AuditView[]> {
  const all: AuditView[] = [];
  let before: bigint | undefined;
  for (;;) {
    const batch = await readAudit(filter, { before, take: 1000 });
    all.push(...batch);
    if (all.length > AUDIT_EXPORT_MAX_ROWS) {
      throw new AppError('validation', `More than ${AUDIT_EXPORT_MAX_ROWS} entries match: narrow the filter (actor, action or period) to export`);
    }
    if (batch.length < 1000) return all;
    before = BigInt(batch[batch.length - 1].id);
  }
}

/** The action names in the log, for the page's filter. */
export async function auditActions(): Promise<string[]> {
  const rows = await getDb().auditLog.findMany({ distinct: ['action'], select: { action: true }, orderBy: { action: 'asc' } });
  return rows.map((r) => r.action);
}

// columns are only ever added at the end, so a reader of older exports keeps working
const CSV_COLUMNS = ['id', 'createdAt', 'actorKind', 'actorId', 'actorEmail', 'action', 'targetType', 'targetId', 'data', 'targetName'] as const;

export function auditCsv(entries: AuditView[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const e of entries) {
    lines.push(
      [
        e.id,
        e.createdAt.toISOString(),
        e.actorKind,
        e.actor?.id ?? '',
        e.actor?.email ?? '',
        e.action,
        e.targetType ?? '',
        e.targetId ?? '',
        JSON.stringify(e.data ?? {}),
        e.targetName ?? '',
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return lines.join('\r\n') + '\r\n';
}
