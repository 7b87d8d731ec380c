import { generateHistory } from '../demo/history';
import {
  estimateRemaining,
  medianPhaseDurations,
  MIN_COMPARABLE,
  rangeCovers,
  readPhaseTimings,
  RUN_PHASES,
  type PhaseMedians,
  type RunPhase,
  type RunProgress,
} from '../common/run-estimate';
import { ESTIMATE_HISTORY_RUNS } from '../lib/runs/estimate';
import { summarise } from './stats';
import type { BenchFigure, BenchModule } from './types';

// How well the run page's "time left" range holds up, over the demo's
// generated history: every finished run is sampled at SAMPLES_PER_RUN moments
// spread through it (and at its start), each estimated from the runs that
// finished before it (same repository and policy, as the server picks them),
// and the true remaining time is checked against the range shown. Coverage is
// the share of moments whose truth fell inside the range; the width is
// high − low. Errors are the middle figure's absolute error in ms; "median" is
// the estimator before conditioning (per-phase medians) for comparison.

const SAMPLES_PER_RUN = 20;

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

/** Where a run stands `t` ms after its start: the phase, the progress, what is truly left. */
function momentOf(run: PastRun, t: number): { phase: RunPhase; progress: RunProgress; now: number; truth: number; spent: number } | null {
  let at = 0;
  const spentMs: Partial<Record<RunPhase, number>> = {};
  const completed: RunPhase[] = [];
  const total = RUN_PHASES.reduce((sum, p) => sum + (run.timings[p] ?? 0), 0);
  for (const phase of RUN_PHASES) {
    const duration = run.timings[phase] ?? 0;
    if (t < at + duration || (duration > 0 && t === at + duration && phase === 'summary')) {
      return {
        phase,
        progress: { currentPhase: phase, currentPhaseStartedAt: at, completedPhases: [...completed], spentMs: { ...spentMs } },
        now: t,
        truth: total - t,
        spent: t - at,
      };
    }
    spentMs[phase] = duration;
    completed.push(phase);
    at += duration;
  }
  return null;
}

const share = (hits: number, of: number) => (of === 0 ? 'n/a' : `${((100 * hits) / of).toFixed(1)}% (${hits}/${of})`);

export const estimateBench: BenchModule = {
  name: 'estimate',
  description: "coverage and width of the run page time-left range over the demo history, and the middle figure's error",
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
    // coverage by how many comparable runs stood behind the range
    const buckets = ['all', 'start of the run', '0 comparable (prior only)', '1–2 comparable', '3+ comparable', 'past every comparable run'] as const;
    const hits = new Map<string, { in: number; of: number }>(buckets.map((b) => [b, { in: 0, of: 0 }]));
    const count = (bucket: string, inside: boolean) => {
      const h = hits.get(bucket)!;
      h.of++;
      if (inside) h.in++;
    };
    const widths: number[] = [];
    const truths: number[] = [];
    for (const run of runs) {
      const estimate = comparable(runs, run);
      const total = RUN_PHASES.reduce((sum, p) => sum + (run.timings[p] ?? 0), 0);
      if (total <= 0) continue;
      for (let i = 0; i < SAMPLES_PER_RUN; i++) {
        const m = momentOf(run, Math.floor((total * i) / SAMPLES_PER_RUN));
        if (!m) continue;
        const e = estimateRemaining({ estimate, progress: m.progress, now: m.now });
        const inside = rangeCovers(e, m.truth);
        count('all', inside);
        if (i === 0) count('start of the run', inside);
        count(e.comparable === 0 ? '0 comparable (prior only)' : e.comparable < MIN_COMPARABLE ? '1–2 comparable' : '3+ comparable', inside);
        if (e.overdue) count('past every comparable run', inside);
        widths.push(e.highMs - e.lowMs);
        truths.push(m.truth);
        add(`${m.phase}: middle figure`, e.midMs - m.truth);
        add(`${m.phase}: per-phase medians (before)`, medianEstimate(estimate, m.phase, m.spent) - m.truth);
      }
    }
    const coverage = buckets.map((b) => `coverage, ${b}: ${share(hits.get(b)!.in, hits.get(b)!.of)}`);
    for (const line of coverage) log(`estimate: ${line}`);
    const figures: BenchFigure[] = [
      { name: 'range width (high − low)', ...summarise(widths) },
      { name: 'true time left at those moments (for scale)', ...summarise(truths) },
      ...[...errors.entries()]
        .sort(([a], [b]) => RUN_PHASES.indexOf(a.split(':')[0] as RunPhase) - RUN_PHASES.indexOf(b.split(':')[0] as RunPhase))
        .map(([name, values]) => ({ name, ...summarise(values) })),
    ];
    return {
      bench: 'Time-left range over the demo history: coverage, width and error (ms)',
      setup: `${runs.length} finished runs of 56 days of generated history, 2 repositories; ${SAMPLES_PER_RUN} moments through each run, each estimated from the up to ${ESTIMATE_HISTORY_RUNS} runs that finished before it (same repository and policy when ${MIN_COMPARABLE}+).`,
      figures,
      notes: [
        ...coverage,
        'Coverage: the share of moments whose true remaining time fell inside the range shown (p10–p90 of the comparable runs, widened by the prior while they are few: 80% if the runs were exchangeable and many).',
        '"middle figure" is the absolute error of the figure the range is built around; "per-phase medians" the estimator before conditioning.',
        'The demo history gives every run the same phase shares, so the comparable runs say a lot; real runs vary more.',
      ],
    };
  },
};
