import 'server-only';
import { ratio } from '../../common/insights-query';
import { precision, reviewersVsGraders, settledSources, type PrecisionFilter, type PrecisionRow, type SettledSources } from './precision';
import { COUNTER, RUN_TABLE } from './tables';
import { NO_FIX_CATEGORIES, type NoFixCategory } from '../../common/exit-reasons';
import { keyedCounts, n, type InsightsReader } from './read';
import { runCellWhere, type InsightsScope } from './scope';

// Quality: precision from the graders' settled labels (lib/insights/precision.ts
// computes it; only the filter is translated here), and why the cohort's finished repair runs (scope.ts) produced no fix, as
// categories of the run's exit reason. A policy that ran out of candidates
// ("no_candidate") is split by its trajectory: when no candidate ever reached
// the GREEN gate, the compile gate rejected them all; otherwise GREEN was
// never reached. Runs whose fix a post-execution filter dropped did produce a
// fix (the funnel's "dropped" step) and are not counted here. Re-validations
// of edited fixes are not repairs: they are left out unless asked for.

export { NO_FIX_CATEGORIES, type NoFixCategory } from '../../common/exit-reasons';

export interface NoFixReasons {
  /**
   * repair runs in the cohort (automatic and manual, or the trigger asked
   * for), finished or not: the repairs Cost counts (cost.ts byTrigger)
   */
  runs: number;
  /** finished repair runs in the cohort */
  finishedRuns: number;
  /** of which produced no fix */
  noFixRuns: number;
  categories: Array<{ category: NoFixCategory; count: number; share: number | null; exitReasons: Record<string, number> }>;
}

export async function noFixReasons({ scope, reader }: { scope: InsightsScope; reader: InsightsReader }): Promise<NoFixReasons> {
  const runs = await reader.total({ table: RUN_TABLE, where: runCellWhere(scope, { repairOnly: true }), counters: true });
  const noFixRuns = n(runs, 'noFix');
  // `<category>:<exit reason>` → runs
  const keyed = [...keyedCounts(runs, COUNTER.noFix).entries()].map(([key, count]) => {
    const at = key.indexOf(':');
    return { category: key.slice(0, at), exitReason: key.slice(at + 1), count };
  });
  const categories = NO_FIX_CATEGORIES.map((category) => {
    const mine = keyed.filter((k) => k.category === category);
    const count = mine.reduce((s, k) => s + k.count, 0);
    return { category, count, share: ratio(count, noFixRuns), exitReasons: Object.fromEntries(mine.map((k) => [k.exitReason, k.count])) };
  });
  return { runs: n(runs, 'runs'), finishedRuns: n(runs, 'finished'), noFixRuns, categories };
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
  /** where the settled fixes come from (grading queues, the demo's history) */
  sources: SettledSources;
}

/** Precision from the graders' settled labels, as the grading module computes it. */
export async function gradedPrecision({ scope, reader }: { scope: InsightsScope; reader: InsightsReader }): Promise<GradedPrecision> {
  const filter = precisionFilter(scope);
  const [[overall], byRepository, byPolicy, byModel, vs, sources] = await Promise.all([
    precision(filter, undefined, { reader }),
    precision(filter, 'repository', { reader }),
    precision(filter, 'policy', { reader }),
    precision(filter, 'model', { reader }),
    reviewersVsGraders(filter, { reader }),
    settledSources(filter, { reader }),
  ]);
  return { overall: overall!, byRepository, byPolicy, byModel, reviewersVsGraders: vs, sources };
}
