import { generateHistory } from '../demo/history';
import {
  ESTIMATE_HISTORY_RUNS,
  estimateRemaining,
  medianPhaseDurations,
  MIN_COMPARABLE,
  readPhaseTimings,
  RUN_PHASES,
  type PhaseMedians,
  type RunPhase,
  type RunProgress,
} from '../lib/runs/estimate';
import { summarise } from './stats';
import type { BenchFigure, BenchModule } from './types';

// How far the run page's "time left" is from the truth, over the demo's
// generated history: for every finished run, at the start of each phase and
// half-way through it, the estimate made from the runs that finished before
// it (same repository and policy, as the server picks them) against the time
// the run really still took. Figures are absolute errors in ms; "median" is
// the former estimator (per-phase medians, no conditioning) for comparison.

interface PastRun {
  repositoryId: string;
  policy: string;
  finishedAt: number;
  timings: Partial<Record<RunPhase, number>>;
}

function comparable(runs: readonly PastRun[], run: PastRun): PhaseMedians {
  const before = runs.filter((r) => r.repositoryId === run.repositoryId && r.finishedAt < run.finishedAt);
  const samePolicy = before.filter((r) => r.policy === run.policy);
  const pool = (samePolicy.length >= MIN_COMPARABLE ? samePolicy : before).slice(-ESTIMATE_HISTORY_RUNS).reverse();
  return medianPhaseDurations(pool.map((r) => r.timings));
}

/** The former estimator: medians of the phases from here, minus what the current one spent. */
function medianEstimate(estimate: PhaseMedians, phase: RunPhase, spent: number): number {
  const from = RUN_PHASES.indexOf(phase);
  return RUN_PHASES.slice(from).reduce((sum, p, i) => sum + (i === 0 ? Math.max(0, estimate.medians[p] - spent) : estimate.medians[p]), 0);
}

export const estimateBench: BenchModule = {
  name: 'estimate',
  description: 'error of the run page time-left estimate over the demo history (median absolute error per phase)',
  async run({ log }) {
    const repositories = [
      { id: 'repo-node', name: 'checkout-ts', kind: 'node' as const },
      { id: 'repo-py', name: 'ledger-py', kind: 'python' as const },
    ];
    const rows = generateHistory({
      now: new Date('2026-12-01T00:00:00Z'),
      repositories,
      people: { reviewers: ['r1', 'r2'], graders: ['g1', 'g2', 'g3'], settler: 'g1' },
      days: 56,
    });
    const repoOf = new Map(rows.changes.map((c) => [c.id!, c.repositoryId]));
    const runs: PastRun[] = rows.runs
      .filter((r) => (r.status === 'FIXED' || r.status === 'NO_FIX') && r.finishedAt)
      .map((r) => ({
        repositoryId: repoOf.get(r.changeId)!,
        policy: r.policy,
        finishedAt: new Date(r.finishedAt as Date | string).getTime(),
        timings: readPhaseTimings(r.phaseTimings),
      }))
      .sort((a, b) => a.finishedAt - b.finishedAt);
    log(`estimate: ${runs.length} finished history runs`);

    const errors = new Map<string, number[]>();
    const add = (name: string, value: number) => errors.set(name, [...(errors.get(name) ?? []), Math.abs(value)]);
    const T0 = 0;
    for (const run of runs) {
      const estimate = comparable(runs, run);
      if (estimate.runs < MIN_COMPARABLE) continue;
      let at = T0;
      const spentSoFar: Partial<Record<RunPhase, number>> = {};
      const completed: RunPhase[] = [];
      for (const phase of RUN_PHASES) {
        const duration = run.timings[phase] ?? 0;
        for (const [point, fraction] of [['start', 0], ['half-way', 0.5]] as const) {
          const spent = duration * fraction;
          const progress: RunProgress = { currentPhase: phase, currentPhaseStartedAt: at, completedPhases: [...completed], spentMs: { ...spentSoFar } };
          const now = at + spent;
          const truth = RUN_PHASES.slice(RUN_PHASES.indexOf(phase)).reduce((sum, p) => sum + (run.timings[p] ?? 0), 0) - spent;
          add(`${phase} ${point}: comparable runs`, estimateRemaining({ estimate, progress, now }).midMs - truth);
          add(`${phase} ${point}: per-phase medians (before)`, medianEstimate(estimate, phase, spent) - truth);
        }
        spentSoFar[phase] = duration;
        completed.push(phase);
        at += duration;
      }
    }
    const figures: BenchFigure[] = [...errors.entries()].map(([name, values]) => ({ name, ...summarise(values) }));
    return {
      bench: 'Time-left estimate error over the demo history (absolute error, ms)',
      setup: `${runs.length} finished runs of 56 days of generated history, 2 repositories; each estimated from the up to ${ESTIMATE_HISTORY_RUNS} runs that finished before it (same repository and policy when ${MIN_COMPARABLE}+).`,
      figures,
      notes: [
        '"p50" is the median absolute error; "comparable runs" is the estimator the run page uses, "per-phase medians" the one it replaced.',
        'The demo history gives every run the same phase shares, so half-way through a phase the comparable runs say a lot; real runs vary more.',
      ],
    };
  },
};
