import 'server-only';
import { getDb, type Db } from '../db';
import { resolvePeriod, type Bucket, type InsightsQuery, type RunTriggerName } from '../../common/insights-query';

// What every Insights query module shares: the filter resolved into SQL.
//
// Definitions, once for every section:
// - The population is a cohort of changes: those whose first failure report
//   (Change.createdAt) falls in the period, in the repository and of the
//   author kind asked for. Everything that happened to them afterwards (runs,
//   fixes, decisions) belongs to them, so the funnel's steps always nest and
//   a chart's buckets are the weeks or days those changes first failed in.
// - policy, model and trigger select runs (and through them fixes): they
//   narrow the funnel from "attempted" on; the pre-run steps have no run.
// - Percentiles are continuous (PostgreSQL's percentile_cont): linear
//   interpolation between the two nearest ranks, so the p50 of 2, 4 is 3.
// - A ratio with nothing to divide by is null ("no data"), never 0 or NaN.

export interface InsightsScope {
  from: Date | null;
  to: Date;
  /** the repository asked for; undefined = all; null = a name that matches none */
  repositoryId: string | null | undefined;
  authorKind: 'HUMAN' | 'BOT' | undefined;
  policy: string | undefined;
  model: string | undefined;
  trigger: RunTriggerName | undefined;
  bucket: Bucket;
}

/** Resolves the URL filter (the repository by name) into a scope. */
export async function resolveScope({
  query,
  now = new Date(),
  db = getDb(),
}: {
  query: InsightsQuery;
  now?: Date;
  db?: Db;
}): Promise<InsightsScope> {
  let repositoryId: string | null | undefined;
  if (query.repo) {
    const repo = await db.repository.findUnique({ where: { name: query.repo }, select: { id: true } });
    repositoryId = repo?.id ?? null;
  }
  const { from, to } = resolvePeriod(query, now);
  return {
    from,
    to,
    repositoryId,
    authorKind: query.author,
    policy: query.policy,
    model: query.model,
    trigger: query.trigger,
    bucket: query.bucket,
  };
}

/** Positional parameters for $queryRawUnsafe: add() returns the placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

/**
 * An instant as a parameter comparable with our columns: they are
 * TIMESTAMP(3) without time zone holding UTC wall time, and PostgreSQL drops
 * the "Z" of an ISO string cast to timestamp, whatever the session's zone.
 */
export function utc(at: Date, p: SqlParams): string {
  return p.add(at.toISOString(), 'timestamp');
}

/** WHERE conditions on "Change" (alias c): the cohort. */
export function cohortWhere(scope: InsightsScope, p: SqlParams, alias = 'c'): string {
  const and: string[] = [`${alias}."createdAt" < ${utc(scope.to, p)}`];
  if (scope.from) and.push(`${alias}."createdAt" >= ${utc(scope.from, p)}`);
  if (scope.repositoryId !== undefined) and.push(`${alias}."repositoryId" = ${p.add(scope.repositoryId ?? '', 'text')}`);
  if (scope.authorKind) and.push(`${alias}."authorKind" = ${p.add(scope.authorKind, 'text')}::"AuthorKind"`);
  return and.join(' AND ');
}

/** WHERE conditions on "Run" (alias r): policy, model, trigger. `repairOnly` leaves out REVALIDATE runs unless asked for. */
export function runWhere(scope: InsightsScope, p: SqlParams, { alias = 'r', repairOnly }: { alias?: string; repairOnly: boolean }): string {
  const and: string[] = ['TRUE'];
  if (scope.policy) and.push(`${alias}.policy = ${p.add(scope.policy, 'text')}`);
  if (scope.model) and.push(`${alias}.model = ${p.add(scope.model, 'text')}`);
  if (scope.trigger) and.push(`${alias}.trigger = ${p.add(scope.trigger, 'text')}::"RunTrigger"`);
  else if (repairOnly) and.push(`${alias}.trigger <> 'REVALIDATE'`);
  return and.join(' AND ');
}

/** The UTC day or week (starting Monday) a timestamp falls in, as text YYYY-MM-DD. */
export function bucketExpr(scope: InsightsScope, column: string): string {
  return `to_char(date_trunc('${scope.bucket === 'day' ? 'day' : 'week'}', ${column}), 'YYYY-MM-DD')`;
}

/** A bucket's YYYY-MM-DD → its start as an ISO instant (UTC midnight). */
export function bucketIso(day: string): string {
  return `${day}T00:00:00.000Z`;
}

/** A number from the database (bigint, numeric text, double) or null. */
export function num(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'bigint' ? Number(value) : Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Like num, for counts: null → 0. */
export function count(value: unknown): number {
  return num(value) ?? 0;
}

export function queryRows<T>(db: Db, sql: string, p: SqlParams): Promise<T[]> {
  return db.$queryRawUnsafe<T[]>(sql, ...p.values);
}

/**
 * The SQL that names what became of each fix the cohort's repair runs found:
 * posted, or dropped with its reason. A fix whose revision was superseded
 * before the fix existed arrived stale: dropped as "stale" whatever its
 * status says. Needs aliases f (Fix) and v (its ChangeRevision).
 */
export const DROP_REASON_SQL = `CASE
  WHEN f.status = 'DROPPED' THEN COALESCE(NULLIF(regexp_replace(f."dropReason", '^dropped:', ''), ''), 'unknown')
  WHEN v."supersededAt" IS NOT NULL AND v."supersededAt" <= f."createdAt" THEN 'stale'
  ELSE NULL END`;

/**
 * CTE `fx`: every fix the cohort's repair runs found, with its change's
 * repository and first-failure time, its run, the revision's report time and
 * drop_reason (null: posted). Aliases used inside: c, r, f, v.
 */
export function fixesCte(scope: InsightsScope, p: SqlParams): string {
  return `fx AS (
  SELECT f.id, f."changeId", f."createdAt", c."repositoryId", c."createdAt" AS cohort_at, r.id AS run_id,
         r."costUsd" AS cost, v."createdAt" AS reported_at, v."supersededAt" AS superseded_at, ${DROP_REASON_SQL} AS drop_reason
  FROM "Fix" f JOIN "Change" c ON c.id = f."changeId" JOIN "Run" r ON r.id = f."runId" JOIN "ChangeRevision" v ON v.id = f."revisionId"
  WHERE ${cohortWhere(scope, p)} AND ${runWhere(scope, p, { repairOnly: true })}
)`;
}
