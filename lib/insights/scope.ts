import 'server-only';
import { getDb, type Db } from '../db';
import type { Prisma } from '../generated/prisma/client';
import { resolvePeriod, type Bucket, type InsightsQuery, type RunTriggerName } from '../../common/insights-query';
import { ALL, REPAIR } from './tables';
import { InsightsReader, OWN, type DimFilter } from './read';

// What every Insights query module shares: the filter resolved into a scope
// and the cells of the rollups it reads.
//
// Definitions, once for every section:
// - The population is a cohort of changes: those whose first failure report
//   (Change.createdAt) falls in the period, in the repository and of the
//   author kind asked for. Everything that happened to them afterwards (runs,
//   fixes, decisions) belongs to them, so the funnel's steps always nest and
//   a chart's buckets are the weeks or days those changes first failed in.
// - policy, model and trigger select runs (and through them fixes): they
//   narrow the funnel from "attempted" on; the pre-run steps have no run.
// - Percentiles have one definition (histogram.ts): each value is recorded in
//   a fixed bucket (exact below 64, else 1/32 of its power of two, in ms for
//   times) and the percentile is percentile_cont (linear interpolation
//   between the two nearest ranks) over the buckets' middles: within 1.6% of
//   the exact percentile_cont, exact for small counts. The p50 of 2, 4 is 3.
// - A ratio with nothing to divide by is null ("no data"), never 0 or NaN.
// - Every figure is read from the rollups (rollup.ts), whose counts are defined
//   once in facts.ts; read.ts adds the raw rows of a period's partial days.

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
export async function resolveScope({ query, now = new Date(), db = getDb() }: { query: InsightsQuery; now?: Date; db?: Db }): Promise<InsightsScope> {
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

/** A bucket's YYYY-MM-DD → its start as an ISO instant (UTC midnight). */
export function bucketIso(day: string): string {
  return `${day}T00:00:00.000Z`;
}

// a repository name that matches none: no repository has this id (not a cuid)
const NO_REPOSITORY = '';

/** The cohort table's cells of the scope: its repository (or every one), its author kind (or both, added up). */
export function cohortWhere(scope: InsightsScope): Record<string, DimFilter> {
  return {
    repositoryId: scope.repositoryId === undefined ? ALL : (scope.repositoryId ?? NO_REPOSITORY),
    authorKind: scope.authorKind ?? OWN,
  };
}

/**
 * The run table's cell of the scope. `repairOnly`: with no trigger asked for,
 * the repair runs (AUTO and MANUAL) rather than every run (re-validations too).
 */
export function runCellWhere(scope: InsightsScope, { repairOnly }: { repairOnly: boolean }): Record<string, DimFilter> {
  return {
    ...cohortWhere(scope),
    policy: scope.policy ?? ALL,
    model: scope.model ?? ALL,
    // every run: the repair runs' rows and the re-validations', added up
    trigger: scope.trigger ?? (repairOnly ? REPAIR : [REPAIR, 'REVALIDATE']),
  };
}

/** The reader of a scope's period (read.ts), in a snapshot transaction. */
export function scopeReader(tx: Prisma.TransactionClient, scope: Pick<InsightsScope, 'from' | 'to'>): InsightsReader {
  return new InsightsReader(tx, { from: scope.from, to: scope.to });
}
