import { PHASES } from '../../common/run-events';
import type { Db } from '../db';

// "It's working on it, about 3 minutes left": FlowAgent's users asked for a
// visible signal with a time estimate. The estimate is the median duration of
// each phase over the last finished runs of the same repository
// (Run.phaseTimings), minus what the current phase has already spent, plus
// the medians of the phases still ahead. With no history, fixed defaults.
//
// Everything here except loadPhaseMedians is pure and imports only the
// browser-safe run-event contract (the phases) at run time, so the run page's
// client components count down with the same math.

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
}

export const DEFAULT_MEDIANS: PhaseMedians = { medians: { ...DEFAULT_PHASE_MS }, basis: 'default', runs: 0 };

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
  if (parsed.length === 0) return { medians: { ...DEFAULT_PHASE_MS }, basis: 'default', runs: 0 };
  const medians = { ...DEFAULT_PHASE_MS };
  for (const phase of RUN_PHASES) {
    const values = parsed.map((t) => t[phase]).filter((v): v is number => v !== undefined);
    if (values.length > 0) medians[phase] = median(values);
  }
  return { medians, basis: 'history', runs: parsed.length };
}

export interface RunProgress {
  /** the phase running now (null: not started yet, or between phases) */
  currentPhase: RunPhase | null;
  /** when the current phase started (epoch ms) */
  currentPhaseStartedAt: number | null;
  /** phases already finished in this run */
  completedPhases: readonly RunPhase[];
}

/** Milliseconds left: the rest of the current phase's median plus the medians of the phases ahead. */
export function estimateRemainingMs({
  medians,
  progress,
  now,
}: {
  medians: Record<RunPhase, number>;
  progress: RunProgress;
  now: number;
}): number {
  const done = new Set(progress.completedPhases);
  const currentIndex = progress.currentPhase ? RUN_PHASES.indexOf(progress.currentPhase) : -1;
  let remaining = 0;
  for (const [index, phase] of RUN_PHASES.entries()) {
    if (phase === progress.currentPhase) {
      const elapsed = progress.currentPhaseStartedAt === null ? 0 : Math.max(0, now - progress.currentPhaseStartedAt);
      remaining += Math.max(0, medians[phase] - elapsed);
    } else if (!done.has(phase) && index > currentIndex) {
      remaining += medians[phase];
    }
  }
  return remaining;
}

/** Phase progress from the run's phase events ({ phase, status: 'started' | 'finished' }) in seq order. */
export function progressFromPhaseEvents(
  events: ReadonlyArray<{ payload: Record<string, unknown>; at: string }>,
): RunProgress {
  const completed = new Set<RunPhase>();
  let currentPhase: RunPhase | null = null;
  let currentPhaseStartedAt: number | null = null;
  for (const event of events) {
    const phase = event.payload.phase;
    if (!isRunPhase(phase)) continue;
    if (event.payload.status === 'finished') {
      completed.add(phase);
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
  return { currentPhase, currentPhaseStartedAt, completedPhases: [...completed] };
}

/** "~3 min left", "~40 s left", "finishing…" (past every median). */
export function formatRemaining(ms: number): string {
  if (ms <= 0) return 'finishing…';
  if (ms < 60_000) return `~${Math.max(5, Math.round(ms / 5_000) * 5)} s left`;
  return `~${Math.round(ms / 60_000)} min left`;
}

// ───── history ─────

/** Runs whose timings describe a normal run: the ones that reached a verdict. */
const FINISHED_FOR_ESTIMATE = ['FIXED', 'NO_FIX'] as const;
export const ESTIMATE_HISTORY_RUNS = 20;
const CACHE_MS = 60_000;
const cache = new Map<string, { at: number; value: PhaseMedians }>();

/**
 * Median phase durations of the last `limit` finished runs of a repository.
 * Cached for a minute per repository: the triage list asks on every page.
 */
export async function loadPhaseMedians({
  repositoryId,
  db,
  limit = ESTIMATE_HISTORY_RUNS,
  now = Date.now(),
}: {
  repositoryId: string;
  db: Db;
  limit?: number;
  now?: number;
}): Promise<PhaseMedians> {
  const key = `${repositoryId}:${limit}`;
  const hit = cache.get(key);
  if (hit && now - hit.at < CACHE_MS) return hit.value;
  const rows = await db.run.findMany({
    // generated demo history (FlowAgent-shaped, minutes long) says nothing about how long this server takes
    where: { status: { in: [...FINISHED_FOR_ESTIMATE] }, finishedAt: { not: null }, change: { repositoryId, origin: { not: 'DEMO_HISTORY' } } },
    orderBy: { finishedAt: 'desc' },
    take: limit,
    select: { phaseTimings: true },
  });
  const value = medianPhaseDurations(rows.map((r) => r.phaseTimings));
  cache.set(key, { at: now, value });
  return value;
}

/** Tests and callers that just finished a run may want fresh medians. */
export function clearPhaseMediansCache(): void {
  cache.clear();
}
