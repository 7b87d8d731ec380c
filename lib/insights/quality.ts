import 'server-only';
import { getDb, type Db } from '../db';
import { ratio } from '../../common/insights-query';
import { precision, reviewersVsGraders, type PrecisionFilter, type PrecisionRow } from '../grading/precision';
import { SqlParams, cohortWhere, count, queryRows, runWhere, type InsightsScope } from './scope';

// Quality: precision from the graders' settled labels (lib/grading/precision.ts
// computes it; only the filter is translated here), and why the cohort's finished repair runs (scope.ts) produced no fix, as
// categories of the run's exit reason. A policy that ran out of candidates
// ("no_candidate") is split by its trajectory: when no candidate ever reached
// the GREEN gate, the compile gate rejected them all; otherwise GREEN was
// never reached. Runs whose fix a post-execution filter dropped did produce a
// fix (the funnel's "dropped" step) and are not counted here.

export const NO_FIX_CATEGORIES = [
  'not_reproduced',
  'not_caused_by_change',
  'compile_rejected',
  'green_not_reached',
  'regression_failed',
  'budget_exhausted',
  'worker_lost',
  'setup_failed',
  'cancelled',
  'other',
] as const;
export type NoFixCategory = (typeof NO_FIX_CATEGORIES)[number];

/** exit reasons → category (no_candidate is decided by the trajectory) */
const CATEGORY_SQL = `CASE
  WHEN r."exitReason" = 'not_reproduced' THEN 'not_reproduced'
  WHEN r."exitReason" = 'not_caused_by_change' THEN 'not_caused_by_change'
  WHEN r."exitReason" = 'no_candidate' THEN
    CASE WHEN EXISTS (SELECT 1 FROM "RunEvent" e WHERE e."runId" = r.id AND e.type = 'gate' AND e.payload->>'gate' = 'green')
      THEN 'green_not_reached' ELSE 'compile_rejected' END
  WHEN r."exitReason" IN ('regression_failed', 'final_rerun_failed') THEN 'regression_failed'
  WHEN r."exitReason" IN ('tool_call_limit', 'time_limit', 'token_budget', 'cost_budget') THEN 'budget_exhausted'
  WHEN r."exitReason" = 'worker_lost' THEN 'worker_lost'
  WHEN r."exitReason" IN ('setup_failed', 'sandbox_unavailable') THEN 'setup_failed'
  WHEN r."exitReason" = 'cancelled' THEN 'cancelled'
  ELSE 'other' END`;

export interface NoFixReasons {
  /** finished repair runs in the cohort */
  finishedRuns: number;
  /** of which produced no fix */
  noFixRuns: number;
  categories: Array<{ category: NoFixCategory; count: number; share: number | null; exitReasons: Record<string, number> }>;
}

export async function noFixReasons({ scope, db = getDb() }: { scope: InsightsScope; db?: Db }): Promise<NoFixReasons> {
  const p = new SqlParams();
  const sql = `WITH rr AS (
  SELECT r.id, r."exitReason", (f.id IS NOT NULL) AS has_fix
  FROM "Run" r JOIN "Change" c ON c.id = r."changeId" LEFT JOIN "Fix" f ON f."runId" = r.id
  WHERE ${cohortWhere(scope, p)} AND ${runWhere(scope, p, { repairOnly: true })}
    AND r.status IN ('FIXED', 'NO_FIX', 'FAILED', 'CANCELLED')
)
SELECT NULL AS category, NULL AS exit_reason, count(*)::int AS n, count(*) FILTER (WHERE NOT has_fix)::int AS no_fix FROM rr
UNION ALL
SELECT ${CATEGORY_SQL}, COALESCE(r."exitReason", 'unknown'), count(*)::int, NULL
FROM rr r WHERE NOT r.has_fix GROUP BY 1, 2`;
  const rows = await queryRows<{ category: NoFixCategory | null; exit_reason: string | null; n: unknown; no_fix: unknown }>(db, sql, p);
  const head = rows.find((r) => r.category === null);
  const noFixRuns = count(head?.no_fix);
  const categories = NO_FIX_CATEGORIES.map((category) => {
    const mine = rows.filter((r) => r.category === category);
    const n = mine.reduce((s, r) => s + count(r.n), 0);
    return {
      category,
      count: n,
      share: ratio(n, noFixRuns),
      exitReasons: Object.fromEntries(mine.map((r) => [r.exit_reason ?? 'unknown', count(r.n)])),
    };
  });
  return { finishedRuns: count(head?.n), noFixRuns, categories };
}

/** The grading module's filter for a scope: the period is the fix's creation time there. */
export function precisionFilter(scope: InsightsScope): PrecisionFilter {
  return {
    from: scope.from ?? undefined,
    to: scope.to,
    // a repository name that matches none must match no fix, not every fix
    repositoryId: scope.repositoryId === null ? NO_REPOSITORY : scope.repositoryId,
    policy: scope.policy,
    model: scope.model,
  };
}

// not a cuid: no repository has this id
const NO_REPOSITORY = '(no such repository)';

export interface GradedPrecision {
  /** settled fixes (a consensus label) created in the period: label shares with 95% Wilson intervals */
  overall: PrecisionRow;
  byRepository: PrecisionRow[];
  byPolicy: PrecisionRow[];
  byModel: PrecisionRow[];
  reviewersVsGraders: Awaited<ReturnType<typeof reviewersVsGraders>>;
}

/** Precision from the graders' settled labels, as the grading module computes it. */
export async function gradedPrecision({ scope }: { scope: InsightsScope }): Promise<GradedPrecision> {
  const filter = precisionFilter(scope);
  const [[overall], byRepository, byPolicy, byModel, vs] = await Promise.all([
    precision(filter),
    precision(filter, 'repository'),
    precision(filter, 'policy'),
    precision(filter, 'model'),
    reviewersVsGraders(filter),
  ]);
  return { overall, byRepository, byPolicy, byModel, reviewersVsGraders: vs };
}
