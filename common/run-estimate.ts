import { PHASES } from './run-events';

// "It's working on it, 2–5 min left": FlowAgent's users asked for a visible
// signal with a time estimate. It is always a range (low–high), from the
// first moment, made from comparable past runs: the last finished runs of the
// same repository and policy (Run.phaseTimings, each phase's total over its
// repeats).
//
// - Conditioned on the time spent: for a run that has spent e in its current
//   phase, only the past runs that spent at least e there still say something
//   (the others had already moved on); each gives "what it still spent from
//   here", and the range is their p10–p90 (the middle figure their median;
//   p25–p90 covered the truth at 54% of the bench's moments, p10–p90 at 66%
//   for a tenth more width: `npm run bench -- --only estimate`).
// - Widened while comparable runs are few: a prior with a fixed spread (each
//   phase p10 = 0.6×, p50 = 1×, p90 = 2.5× its median, the defaults with no
//   history) counts as PRIOR_RUNS runs, and the samples replace it as they
//   accumulate (weight n / (n + PRIOR_RUNS) on n comparable runs).
// - Never below what has been spent: a phase that has run e is expected to
//   run on for a while yet, however short the comparable runs were. The
//   prior's remaining time in the current phase is at least that of a
//   heavy-tailed (Pareto, shape 2) duration that has survived e: p10 0.05 e,
//   p50 0.41 e, p90 2.16 e. So a phase past every comparable run is
//   estimated from its own elapsed time, the high end above what it has
//   spent, and the figure grows ahead of the run rather than behind it.
//
// Pure, so the run page's client components count down with the same math as
// the server; the comparable runs are loaded by lib/runs/estimate.ts.

export const RUN_PHASES = PHASES;
export type RunPhase = (typeof RUN_PHASES)[number];

export function isRunPhase(value: unknown): value is RunPhase {
  return typeof value === 'string' && (RUN_PHASES as readonly string[]).includes(value);
}

/**
 * With no history: a small repository's install + build, two target-test runs,
 * a few candidates through the compile gate and GREEN, a regression run and a
 * final rerun. About three minutes in all; the first real run replaces it.
 */
export const DEFAULT_PHASE_MS: Readonly<Record<RunPhase, number>> = {
  setup: 30_000,
  red: 20_000,
  localise: 10_000,
  patch: 75_000,
  verify: 45_000,
  summary: 10_000,
};

export interface PhaseMedians {
  /** median milliseconds per phase */
  medians: Record<RunPhase, number>;
  /** 'history' when at least one finished run of the repository had timings */
  basis: 'history' | 'default';
  /** how many finished runs the medians come from */
  runs: number;
  /** the timings of those runs, newest first: what the conditional estimate reads */
  samples: Array<Partial<Record<RunPhase, number>>>;
  /** 'policy': the runs share the run's policy; 'repository': too few did, so all of the repository's */
  scope?: 'policy' | 'repository';
}

export const DEFAULT_MEDIANS: PhaseMedians = { medians: { ...DEFAULT_PHASE_MS }, basis: 'default', runs: 0, samples: [] };

/** Below this many comparable runs the estimate says it is rough (the prior still weighs in above it). */
export const MIN_COMPARABLE = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** Reads one Run.phaseTimings JSON value: { setup: ms, red: ms, … }; anything else is ignored. */
export function readPhaseTimings(value: unknown): Partial<Record<RunPhase, number>> {
  const out: Partial<Record<RunPhase, number>> = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const phase of RUN_PHASES) {
    const ms = (value as Record<string, unknown>)[phase];
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) out[phase] = ms;
  }
  return out;
}

/** Median per phase over the runs that went through it; defaults for phases no run reached. */
export function medianPhaseDurations(timings: readonly unknown[]): PhaseMedians {
  const parsed = timings.map(readPhaseTimings).filter((t) => Object.keys(t).length > 0);
  if (parsed.length === 0) return { medians: { ...DEFAULT_PHASE_MS }, basis: 'default', runs: 0, samples: [] };
  const medians = { ...DEFAULT_PHASE_MS };
  for (const phase of RUN_PHASES) {
    const values = parsed.map((t) => t[phase]).filter((v): v is number => v !== undefined);
    if (values.length > 0) medians[phase] = median(values);
  }
  return { medians, basis: 'history', runs: parsed.length, samples: parsed };
}

export interface RunProgress {
  /** the phase running now (null: not started yet, or between phases) */
  currentPhase: RunPhase | null;
  /** when the current phase started (epoch ms) */
  currentPhaseStartedAt: number | null;
  /** phases already finished in this run */
  completedPhases: readonly RunPhase[];
  /** milliseconds spent in each phase's finished visits (patch and verify repeat); the current visit is not in it */
  spentMs?: Partial<Record<RunPhase, number>>;
}

/** Time spent in a phase so far, over all its visits: never jumps back when the loop comes round. */
export function phaseSpentMs(progress: RunProgress, phase: RunPhase, now: number): number {
  const before = progress.spentMs?.[phase] ?? 0;
  const current = phase === progress.currentPhase && progress.currentPhaseStartedAt !== null ? Math.max(0, now - progress.currentPhaseStartedAt) : 0;
  return before + current;
}

export interface RemainingEstimate {
  /** the middle figure, milliseconds */
  midMs: number;
  /** the range shown: p10–p90 of what comparable runs still took, widened by the prior while they are few */
  lowMs: number;
  highMs: number;
  /** at least MIN_COMPARABLE comparable runs behind the range */
  sure: boolean;
  /** how many past runs the figure comes from (0: the prior alone) */
  comparable: number;
  /** the run has spent longer in its phase than any comparable run did (or than the median, with no runs): estimated from its own elapsed time */
  overdue: boolean;
}

/** Percentile with linear interpolation between ranks. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return Math.round(sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo));
}

/** The range's percentiles. */
export const RANGE_QUANTILES = { low: 0.1, mid: 0.5, high: 0.9 } as const;
/** The prior's spread around a phase's median, at those percentiles. */
export const PRIOR_SPREAD = { low: 0.6, mid: 1, high: 2.5 } as const;
/** How many comparable runs the prior counts as. */
export const PRIOR_RUNS = 4;
/** Remaining time of a Pareto (shape 2) duration that has lasted e, at the range's percentiles, as multiples of e: (1 − q)^(−1/2) − 1. */
export const TAIL_FROM_ELAPSED = {
  low: 1 / Math.sqrt(1 - RANGE_QUANTILES.low) - 1,
  mid: 1 / Math.sqrt(1 - RANGE_QUANTILES.mid) - 1,
  high: 1 / Math.sqrt(1 - RANGE_QUANTILES.high) - 1,
} as const;

type Band = { low: number; mid: number; high: number };
const BANDS = ['low', 'mid', 'high'] as const;

/** The phases whose time still counts: the current one and every phase after it (or all, before the start). */
function phasesFromHere(progress: RunProgress): RunPhase[] {
  const done = new Set(progress.completedPhases);
  if (progress.currentPhase) return RUN_PHASES.slice(RUN_PHASES.indexOf(progress.currentPhase));
  const reached = RUN_PHASES.reduce((last, p, i) => (done.has(p) ? i : last), -1);
  return RUN_PHASES.slice(reached + 1);
}

/** What a run with these phase totals would still spend from where `progress` stands. */
function leftAfter(totals: Partial<Record<RunPhase, number>>, progress: RunProgress, now: number, phases: readonly RunPhase[]): number {
  return phases.reduce((sum, p) => sum + Math.max(0, (totals[p] ?? 0) - phaseSpentMs(progress, p, now)), 0);
}

/**
 * The prior's remaining time in one phase that has run `spent` so far: its
 * fixed spread around the median, less what is spent, but never below the
 * heavy tail's remaining time from the elapsed time itself.
 */
export function priorPhaseLeft(medianMs: number, spent: number): Band {
  const out = {} as Band;
  for (const b of BANDS) out[b] = Math.round(Math.max(medianMs * PRIOR_SPREAD[b] - spent, spent * TAIL_FROM_ELAPSED[b]));
  return out;
}

/**
 * Time left, as a range and a middle figure: the comparable past runs that
 * were still in the current phase after as long as this run has been,
 * blended with the prior while they are few (see the top of this module).
 */
export function estimateRemaining({ estimate, progress, now }: { estimate: PhaseMedians; progress: RunProgress; now: number }): RemainingEstimate {
  const phases = phasesFromHere(progress);
  const current = progress.currentPhase;
  const spent = current ? phaseSpentMs(progress, current, now) : 0;

  // the prior: the current phase conditioned on what it spent, the later phases whole
  const prior: Band = { low: 0, mid: 0, high: 0 };
  for (const p of phases) {
    const left = priorPhaseLeft(estimate.medians[p], phaseSpentMs(progress, p, now));
    for (const b of BANDS) prior[b] += left[b];
  }

  const survivors = estimate.samples.filter((s) => !current || (s[current] !== undefined && s[current]! >= spent));
  const n = survivors.length;
  const w = n / (n + PRIOR_RUNS);
  const band: Band = { ...prior };
  if (n > 0) {
    const left = survivors.map((s) => leftAfter(s, progress, now, phases)).sort((a, b) => a - b);
    for (const b of BANDS) band[b] = Math.round(w * quantile(left, RANGE_QUANTILES[b]) + (1 - w) * prior[b]);
  }
  const lowMs = Math.max(0, band.low);
  const midMs = Math.max(lowMs, band.mid);
  const highMs = Math.max(midMs, band.high);
  const overdue = current !== null && n === 0 && (estimate.samples.length > 0 || spent > estimate.medians[current]);
  return { midMs, lowMs, highMs, sure: n >= MIN_COMPARABLE, comparable: n, overdue };
}

/** Whether `truthMs` fell inside the range shown (the bench's coverage). */
export function rangeCovers(e: Pick<RemainingEstimate, 'lowMs' | 'highMs'>, truthMs: number): boolean {
  return truthMs >= e.lowMs && truthMs <= e.highMs;
}

function roundedDuration(ms: number): { value: number; unit: 's' | 'min' } {
  if (ms < 60_000) return { value: Math.max(5, Math.round(ms / 5_000) * 5), unit: 's' };
  return { value: Math.max(1, Math.round(ms / 60_000)), unit: 'min' };
}

/** "~2–5 min left", "~30 s–3 min left": always the range; one figure only when both ends round to it; "finishing…" when nothing is left. */
export function formatRemainingRange(e: Pick<RemainingEstimate, 'lowMs' | 'highMs'>): string {
  if (e.highMs <= 0) return 'finishing…';
  const low = roundedDuration(Math.max(e.lowMs, 5_000));
  const high = roundedDuration(Math.max(e.highMs, e.lowMs, 5_000));
  if (low.unit === high.unit) return low.value === high.value ? `~${high.value} ${high.unit} left` : `~${low.value}–${high.value} ${high.unit} left`;
  return `~${low.value} ${low.unit}–${high.value} ${high.unit} left`;
}

/** Phase progress from the run's phase events ({ phase, status: 'started' | 'finished' }) in seq order. */
export function progressFromPhaseEvents(events: ReadonlyArray<{ payload: Record<string, unknown>; at: string }>): RunProgress {
  const completed = new Set<RunPhase>();
  const spentMs: Partial<Record<RunPhase, number>> = {};
  let currentPhase: RunPhase | null = null;
  let currentPhaseStartedAt: number | null = null;
  for (const event of events) {
    const phase = event.payload.phase;
    if (!isRunPhase(phase)) continue;
    if (event.payload.status === 'finished') {
      completed.add(phase);
      // the worker's own measure when it sent one, else the gap between the two events
      const measured = event.payload.durationMs;
      const visit =
        typeof measured === 'number' && Number.isFinite(measured) && measured >= 0
          ? measured
          : currentPhase === phase && currentPhaseStartedAt !== null
            ? Math.max(0, Date.parse(event.at) - currentPhaseStartedAt)
            : 0;
      spentMs[phase] = (spentMs[phase] ?? 0) + visit;
      if (currentPhase === phase) {
        currentPhase = null;
        currentPhaseStartedAt = null;
      }
    } else {
      // patch and verify repeat when the regression suite rejects a candidate
      completed.delete(phase);
      currentPhase = phase;
      currentPhaseStartedAt = Date.parse(event.at);
    }
  }
  return { currentPhase, currentPhaseStartedAt, completedPhases: [...completed], spentMs };
}

/** "~3 min left", "~40 s left", "finishing…" (past every median). */
export function formatRemaining(ms: number): string {
  if (ms <= 0) return 'finishing…';
  if (ms < 60_000) return `~${Math.max(5, Math.round(ms / 5_000) * 5)} s left`;
  return `~${Math.round(ms / 60_000)} min left`;
}
