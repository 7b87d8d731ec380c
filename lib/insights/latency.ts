import 'server-only';
import { PHASES, type Phase } from '../../common/run-events';
import { ratio } from '../../common/insights-query';
import { COHORT_TABLE, COUNTER, RUN_TABLE } from './tables';
import { histogramCount, percentiles, type Histogram } from './histogram';
import { histogramOf, n, type InsightsReader } from './read';
import { cohortWhere, runCellWhere, type InsightsScope } from './scope';

// How fast, for the cohort (scope.ts). Fix latency: the failure report of the
// revision → the fix posted (Fix.createdAt), posted fixes only. The
// developer's own latency: a revision's failure report → the next revision of
// the same change (ChangeRevision.supersededAt is set when it arrives).
// Stale: fixes found after the developer had already pushed a newer revision.
// Run time per phase from Run.phaseTimings. Percentiles: the one definition
// of histogram.ts (percentile_cont over fixed buckets, within 1.6%).

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

const MINUTE_MS = 60_000;

/** A histogram of milliseconds as minutes, by the one percentile definition (histogram.ts). */
function distribution(h: Histogram): Distribution {
  const values = histogramCount(h);
  if (values === 0) return { count: 0, p10: null, p25: null, p50: null, p90: null, cdf: [] };
  const [p10, p25, p50, p90, ...cdf] = percentiles(h, [0.1, 0.25, 0.5, 0.9, ...CDF_QUANTILES]).map((ms) => ms! / MINUTE_MS);
  return { count: values, p10, p25, p50, p90, cdf: cdf.map((minutes, i) => ({ share: CDF_QUANTILES[i]!, minutes })) };
}

/** Failure reported → fix posted, alone (the overview's figure). */
export async function fixLatency({ scope, reader }: { scope: InsightsScope; reader: InsightsReader }): Promise<Distribution> {
  const runs = await reader.total({ table: RUN_TABLE, where: runCellWhere(scope, { repairOnly: true }), histograms: [COUNTER.fixMs] });
  return distribution(histogramOf(runs, COUNTER.fixMs));
}

export async function latency({ scope, reader }: { scope: InsightsScope; reader: InsightsReader }): Promise<Latency> {
  const [runs, cohort] = await Promise.all([
    reader.total({ table: RUN_TABLE, where: runCellWhere(scope, { repairOnly: true }), counters: true, histograms: [COUNTER.fixMs, COUNTER.phaseMs] }),
    reader.total({ table: COHORT_TABLE, where: cohortWhere(scope), histograms: [COUNTER.developerMs] }),
  ]);
  const found = n(runs, 'found');
  const stale = n(runs, COUNTER.drop + 'stale');
  return {
    fix: distribution(histogramOf(runs, COUNTER.fixMs)),
    developer: distribution(histogramOf(cohort, COUNTER.developerMs)),
    stale: { count: stale, found, share: ratio(stale, found) },
    phases: PHASES.map((phase) => {
      const h = histogramOf(runs, `${COUNTER.phaseMs}${phase}:`);
      const [p50, p90] = percentiles(h, [0.5, 0.9]);
      return { phase, runs: histogramCount(h), p50Ms: p50 ?? null, p90Ms: p90 ?? null };
    }),
  };
}
