import { getDb, type Db } from '../db';
import type { Prisma } from '../generated/prisma/client';
import { getActiveRunsForChanges, type ActiveRunInfo } from '../runs/queries';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { funnelReasonChangeIds } from '../insights/drill-down';
import {
  funnelDrillDown,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  TOTAL_COUNT_CAP,
  parseDuration,
  type AuthorKindName,
  type ChangeListFilters,
  type ChangeStatusName,
} from '../../common/change-query';

// The triage list: failing changes, newest failure first, with keyset
// pagination so page 2,000 costs what page 1 costs. Every filter maps onto an
// index of Change (prisma/schema.prisma): the order (lastFailureAt desc, id
// desc), status or repository followed by that order, author, and trigram GIN
// indexes for the substring search. There is deliberately no COUNT(*) of the
// whole match set: the first page carries a count bounded at TOTAL_COUNT_CAP,
// except for text searches, where finding 1,001 matches of a common word
// means reading thousands of rows (~250 ms at a million changes, bench/).
// Those pages say "more" through nextCursor alone.

export interface ChangeListItem {
  id: string;
  externalId: string;
  title: string;
  url: string | null;
  branch: string;
  repository: { id: string; name: string };
  status: ChangeStatusName;
  /** why a change was skipped (or another status's short reason) */
  statusReason: string | null;
  author: string;
  authorKind: AuthorKindName;
  /** true for generated demo history */
  isHistory: boolean;
  /** ISO time of the latest failure report: the age shown and the sort key */
  lastFailureAt: string;
  ageMs: number;
  failingTestCount: number;
  revisionNumber: number;
  /** the queued or running repair run, with its phase and time-left estimate */
  activeRun: ActiveRunInfo | null;
}

export interface ChangeListPage {
  items: ChangeListItem[];
  /** pass back as `cursor` for the next page; null on the last page */
  nextCursor: string | null;
  /** first page without text search: matches counted up to the cap (capped → "1000+") */
  total: { count: number; capped: boolean } | null;
}

export interface ListChangesInput {
  filters: Partial<ChangeListFilters>;
  cursor?: string;
  limit?: number;
  /** the clock for age filters and ages (tests pin it) */
  now?: Date;
  db?: Db;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function ageWindow({ filters, now }: { filters: Partial<ChangeListFilters>; now: Date }): Prisma.ChangeWhereInput[] {
  const out: Prisma.ChangeWhereInput[] = [];
  const min = filters.minAge ? parseDuration(filters.minAge) : undefined;
  const max = filters.maxAge ? parseDuration(filters.maxAge) : undefined;
  // older than minAge: failed at or before now - minAge
  if (min !== undefined) out.push({ lastFailureAt: { lte: new Date(now.getTime() - min) } });
  if (max !== undefined) out.push({ lastFailureAt: { gte: new Date(now.getTime() - max) } });
  return out;
}

function textSearch(q: string): Prisma.ChangeWhereInput {
  // ILIKE '%q%': served by the gin_trgm_ops indexes for q of 3+ characters
  const pattern = escapeLike(q);
  const contains = { contains: pattern, mode: 'insensitive' as const };
  return { OR: [{ title: contains }, { externalId: contains }, { author: contains }, { branch: contains }] };
}

function historyFilter(mode: ChangeListFilters['history'] | undefined): Prisma.ChangeWhereInput | undefined {
  if (mode === 'exclude') return { origin: { not: 'DEMO_HISTORY' } };
  return undefined;
}

function buildWhere({
  filters,
  repositoryId,
  now,
}: {
  filters: Partial<ChangeListFilters>;
  repositoryId: string | undefined;
  now: Date;
}): Prisma.ChangeWhereInput[] {
  const and: Prisma.ChangeWhereInput[] = [];
  if (filters.status?.length) and.push({ status: filters.status.length === 1 ? filters.status[0] : { in: filters.status } });
  if (repositoryId) and.push({ repositoryId });
  if (filters.kind) and.push({ authorKind: filters.kind });
  const history = historyFilter(filters.history);
  if (history) and.push(history);
  if (filters.author) and.push({ author: filters.author });
  if (filters.reason) and.push({ statusReason: filters.reason });
  if (filters.q) and.push(textSearch(filters.q));
  and.push(...ageWindow({ filters, now }));
  return and;
}

function afterCursor(encoded: string): Prisma.ChangeWhereInput[] {
  const { at: lastFailureAt, id } = decodeCursor(encoded);
  // (lastFailureAt, id) < (t, id): the redundant `<= t` bound is what lets the
  // planner start the index scan at the cursor instead of filtering from the top
  return [{ lastFailureAt: { lte: lastFailureAt } }, { OR: [{ lastFailureAt: { lt: lastFailureAt } }, { id: { lt: id } }] }];
}

const ITEM_SELECT = {
  id: true,
  externalId: true,
  title: true,
  url: true,
  branch: true,
  status: true,
  statusReason: true,
  author: true,
  authorKind: true,
  origin: true,
  lastFailureAt: true,
  failingTestCount: true,
  revisionNumber: true,
  repository: { select: { id: true, name: true } },
} satisfies Prisma.ChangeSelect;

type SelectedChange = Prisma.ChangeGetPayload<{ select: typeof ITEM_SELECT }>;

function toItem({ row, now }: { row: SelectedChange; now: Date }): ChangeListItem {
  return {
    id: row.id,
    externalId: row.externalId,
    title: row.title,
    url: row.url,
    branch: row.branch,
    repository: row.repository,
    status: row.status,
    statusReason: row.statusReason,
    author: row.author,
    authorKind: row.authorKind,
    isHistory: row.origin === 'DEMO_HISTORY',
    lastFailureAt: row.lastFailureAt.toISOString(),
    ageMs: Math.max(0, now.getTime() - row.lastFailureAt.getTime()),
    failingTestCount: row.failingTestCount,
    revisionNumber: row.revisionNumber,
    activeRun: null,
  };
}

/** The active runs of this page's queued/running rows only: a second small query, never a join over every change. */
async function withActiveRuns({ items, db, now }: { items: ChangeListItem[]; db: Db; now: Date }): Promise<ChangeListItem[]> {
  const waiting = items.filter((i) => i.status === 'QUEUED' || i.status === 'RUNNING').map((i) => i.id);
  if (waiting.length === 0) return items;
  const runs = await getActiveRunsForChanges({ changeIds: waiting, db, now: now.getTime() });
  return items.map((i) => (runs.has(i.id) ? { ...i, activeRun: runs.get(i.id)! } : i));
}

const EMPTY_PAGE: ChangeListPage = { items: [], nextCursor: null, total: null };

/** One page of the triage list. An invalid cursor is an AppError('validation') (422). */
export async function listChanges({ filters, cursor, limit = DEFAULT_PAGE_SIZE, now = new Date(), db = getDb() }: ListChangesInput): Promise<ChangeListPage> {
  const take = Math.min(Math.max(1, Math.trunc(limit)), MAX_PAGE_SIZE);
  // decode before any query so a bad cursor fails fast and alike everywhere
  const keyset = cursor ? afterCursor(cursor) : [];

  let repositoryId: string | undefined;
  if (filters.repo) {
    const repo = await db.repository.findUnique({ where: { name: filters.repo }, select: { id: true } });
    if (!repo) return cursor ? EMPTY_PAGE : { ...EMPTY_PAGE, total: { count: 0, capped: false } };
    repositoryId = repo.id;
  }

  const matching = buildWhere({ filters, repositoryId, now });
  const drill = funnelDrillDown(filters);
  if (drill) matching.push({ id: { in: await funnelReasonChangeIds({ drill, repositoryId, authorKind: filters.kind, db }) } });
  const pageQuery = db.change.findMany({
    where: { AND: [...matching, ...keyset] },
    orderBy: [{ lastFailureAt: 'desc' }, { id: 'desc' }],
    // one extra row says whether another page exists, without counting
    take: take + 1,
    select: ITEM_SELECT,
  });
  const countQuery = cursor || filters.q ? Promise.resolve(null) : db.change.count({ where: { AND: matching }, take: TOTAL_COUNT_CAP + 1 });
  const [rows, counted] = await Promise.all([pageQuery, countQuery]);

  const pageRows = rows.slice(0, take);
  const last = pageRows.at(-1);
  return {
    items: await withActiveRuns({ items: pageRows.map((row) => toItem({ row, now })), db, now }),
    nextCursor: rows.length > take && last ? encodeCursor({ at: last.lastFailureAt, id: last.id }) : null,
    total: counted === null ? null : { count: Math.min(counted, TOTAL_COUNT_CAP), capped: counted > TOTAL_COUNT_CAP },
  };
}

/** Repository names for the filter's select (archived ones last). */
export async function listRepositoryOptions({ db = getDb() }: { db?: Db } = {}): Promise<Array<{ id: string; name: string; archived: boolean }>> {
  const rows = await db.repository.findMany({
    select: { id: true, name: true, archivedAt: true },
    orderBy: [{ name: 'asc' }],
  });
  return rows.map((r) => ({ id: r.id, name: r.name, archived: r.archivedAt !== null })).sort((a, b) => Number(a.archived) - Number(b.archived));
}
