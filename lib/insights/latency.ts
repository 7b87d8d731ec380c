import 'server-only';
import { getDb, type Db } from '../db';
import { PHASES, type Phase } from '../../common/run-events';
import { ratio } from '../../common/insights-query';
import { SqlParams, cohortWhere, count, fixesCte, num, queryRows, runWhere, type InsightsScope } from './scope';

// How fast, for the cohort (scope.ts). Fix latency: the failure report of the
// revision → the fix posted (Fix.createdAt), posted fixes only. The
// developer's own latency: a revision's failure report → the next revision of
// the same change (ChangeRevision.supersededAt is set when it arrives).
// Stale: fixes found after the developer had already pushed a newer revision.
// Run time per phase from Run.phaseTimings. Percentiles: percentile_cont.

/** The quantiles the CDF is drawn through: 0, 5%, …, 100%. */
export const CDF_QUANTILES = Array.from({ length: 21 }, (_, i) => i / 20);

export interface Distribution {
  count: number;
  p10: number | null;
  p25: number | null;
  p50: number | null;
  p90: number | null;
  /** minutes at each CDF_QUANTILES share; empty when there is no data */
  cdf: Array<{ share: number; minutes: number }>;
}

export interface PhaseTime {
  phase: Phase;
  runs: number;
  p50Ms: number | null;
  p90Ms: number | null;
}

export interface Latency {
  /** failure reported → fix posted, minutes */
  fix: Distribution;
  /** failure reported → the developer's next revision, minutes */
  developer: Distribution;
  /** fixes found after the revision was superseded */
  stale: { count: number; found: number; share: number | null };
  phases: PhaseTime[];
}

const QUANTILE_SQL = `ARRAY[${CDF_QUANTILES.join(',')}]::float8[]`;

function toNumbers(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number);
  if (typeof value === 'string') return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number);
  return [];
}

function distribution(row: { n: unknown; q: unknown; p10: unknown; p25: unknown; p50: unknown; p90: unknown } | undefined): Distribution {
  const n = count(row?.n);
  if (!row || n === 0) return { count: 0, p10: null, p25: null, p50: null, p90: null, cdf: [] };
  const q = toNumbers(row.q);
  return {
    count: n,
    p10: num(row.p10),
    p25: num(row.p25),
    p50: num(row.p50),
    p90: num(row.p90),
    cdf: q.map((minutes, i) => ({ share: CDF_QUANTILES[i], minutes })),
  };
}

function percentiles(expr: string): string {
  return `count(${expr})::int AS n,
  percentile_cont(0.1) WITHIN GROUP (ORDER BY ${expr}) AS p10,
  percentile_cont(0.25) WITHIN GROUP (ORDER BY ${expr}) AS p25,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY ${expr}) AS p50,
  percentile_cont(0.9) WITHIN GROUP (ORDER BY ${expr}) AS p90,
  percentile_cont(${QUANTILE_SQL}) WITHIN GROUP (ORDER BY ${expr}) AS q`;
}

const minutesBetween = (a: string, b: string) => `(EXTRACT(EPOCH FROM (${b} - ${a})) / 60.0)::float8`;

export async function latency({ scope, db = getDb() }: { scope: InsightsScope; db?: Db }): Promise<Latency> {
  const fp = new SqlParams();
  const fixSql = `WITH ${fixesCte(scope, fp)}
SELECT ${percentiles(`CASE WHEN drop_reason IS NULL THEN ${minutesBetween('reported_at', '"createdAt"')} END`)},
  count(*)::int AS found, count(*) FILTER (WHERE drop_reason = 'stale')::int AS stale
FROM fx`;

  const dp = new SqlParams();
  const devSql = `SELECT ${percentiles(minutesBetween('v."createdAt"', 'v."supersededAt"'))}
FROM "ChangeRevision" v JOIN "Change" c ON c.id = v."changeId"
WHERE ${cohortWhere(scope, dp)} AND v."supersededAt" IS NOT NULL`;

  const pp = new SqlParams();
  const phaseSql = `SELECT key AS phase, count(*)::int AS runs,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY value::text::float8) AS p50,
  percentile_cont(0.9) WITHIN GROUP (ORDER BY value::text::float8) AS p90
FROM "Run" r JOIN "Change" c ON c.id = r."changeId", jsonb_each(r."phaseTimings") AS t(key, value)
WHERE ${cohortWhere(scope, pp)} AND ${runWhere(scope, pp, { repairOnly: true })} AND r."finishedAt" IS NOT NULL
  AND jsonb_typeof(value) = 'number'
GROUP BY key`;

  type DistRow = { n: unknown; q: unknown; p10: unknown; p25: unknown; p50: unknown; p90: unknown };
  const [[fixRow], [devRow], phaseRows] = await Promise.all([
    queryRows<DistRow & { found: unknown; stale: unknown }>(db, fixSql, fp),
    queryRows<DistRow>(db, devSql, dp),
    queryRows<{ phase: string; runs: unknown; p50: unknown; p90: unknown }>(db, phaseSql, pp),
  ]);
  const found = count(fixRow?.found);
  const stale = count(fixRow?.stale);
  return {
    fix: distribution(fixRow),
    developer: distribution(devRow),
    stale: { count: stale, found, share: ratio(stale, found) },
    phases: PHASES.map((phase) => {
      const r = phaseRows.find((x) => x.phase === phase);
      return { phase, runs: count(r?.runs), p50Ms: num(r?.p50), p90Ms: num(r?.p90) };
    }),
  };
}
