import { isTerminalRunStatus } from '@/common/run-status';
import type { PublicRunEvent, PublicRunEventOf, RunStreamEnd } from '@/common/run-events';
import { RUN_PHASES, isRunPhase, progressFromPhaseEvents, type RunPhase, type RunProgress } from '@/common/run-estimate';

// What the run page shows, derived from the trajectory and the run row.
// Pure functions: the row is the truth once the run is over, the events are
// fresher while it runs.

export type PhaseState = 'done' | 'current' | 'pending' | 'skipped' | 'stopped';

export interface PhaseView {
  phase: RunPhase;
  state: PhaseState;
  /** milliseconds spent in the phase's finished visits, summed over repeats (the current visit is not in it) */
  durationMs: number | null;
  /** when the phase's current visit started (current phase) */
  startedAt: number | null;
}

/** A run that ended, or whose row is gone (GONE: deleted while the page was open). */
export function isFinishedStatus(status: string): boolean {
  return status === 'GONE' || isTerminalRunStatus(status);
}

export function phaseEvents(events: readonly PublicRunEvent[]): Array<PublicRunEventOf<'phase'>> {
  return events.filter((e): e is PublicRunEventOf<'phase'> => e.type === 'phase');
}

export function runProgress(events: readonly PublicRunEvent[]): RunProgress {
  return progressFromPhaseEvents(phaseEvents(events));
}

/** The phase bar: each phase done, current, pending, or (once over) skipped / where it stopped. */
export function phaseViews({
  events,
  finished,
  timings,
}: {
  events: readonly PublicRunEvent[];
  finished: boolean;
  /** Run.phaseTimings once the run is over */
  timings?: Partial<Record<RunPhase, number>>;
}): PhaseView[] {
  const durations = new Map<RunPhase, number>();
  const seen = new Set<RunPhase>();
  for (const e of phaseEvents(events)) {
    const phase = e.payload.phase;
    if (!isRunPhase(phase)) continue;
    seen.add(phase);
    if (e.payload.status === 'finished' && typeof e.payload.durationMs === 'number') {
      durations.set(phase, (durations.get(phase) ?? 0) + e.payload.durationMs);
    }
  }
  const progress = runProgress(events);
  const done = new Set(progress.completedPhases);
  return RUN_PHASES.map((phase) => {
    const durationMs = timings?.[phase] ?? durations.get(phase) ?? progress.spentMs?.[phase] ?? null;
    let state: PhaseState;
    if (phase === progress.currentPhase) state = finished ? 'stopped' : 'current';
    else if (done.has(phase) || (finished && timings?.[phase] !== undefined)) state = 'done';
    else if (finished) state = seen.has(phase) ? 'stopped' : 'skipped';
    else state = 'pending';
    return { phase, state, durationMs, startedAt: phase === progress.currentPhase ? progress.currentPhaseStartedAt : null };
  });
}

export interface Counters {
  toolCalls: number;
  tokens: number;
  promptTokens: number;
  completionTokens: number;
  /** null: a model call had no price, so the cost is unknown */
  costUsd: number | null;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * Live counters. Tool calls: the model's tool_call events, and for the
 * offline policy each candidate it validated (its "tool calls" are compile
 * gate + GREEN runs). Tokens and cost: the model's usage events. The run row
 * (and the final event's totals) win when they are ahead. One unpriced call
 * (or an unknown total) makes the cost unknown: a partial sum is no total.
 */
export function liveCounters({ events, row }: { events: readonly PublicRunEvent[]; row: Counters | null }): Counters {
  let toolCalls = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let costUsd = 0;
  let costUnknown = false;
  let final: Partial<Counters> | null = null;
  for (const e of events) {
    if (e.type === 'tool_call') toolCalls += 1;
    else if (e.type === 'candidate' && e.payload.outcome !== 'compile_failed') toolCalls += 1;
    else if (e.type === 'usage') {
      promptTokens += num(e.payload.promptTokens);
      completionTokens += num(e.payload.completionTokens);
      if (e.payload.costUsd === null || e.payload.priced === false) costUnknown = true;
      else costUsd += num(e.payload.costUsd);
    } else if (e.type === 'final' && e.payload.usage) {
      const u = e.payload.usage;
      if (u.costUsd === null) costUnknown = true;
      final = { toolCalls: u.toolCalls, promptTokens: u.promptTokens, completionTokens: u.completionTokens, costUsd: u.costUsd };
    }
  }
  if (row && row.costUsd === null) costUnknown = true;
  const pick = (live: number, key: keyof Counters) => Math.max(live, num(final?.[key]), num(row?.[key]));
  const p = pick(promptTokens, 'promptTokens');
  const c = pick(completionTokens, 'completionTokens');
  return {
    toolCalls: pick(toolCalls, 'toolCalls'),
    promptTokens: p,
    completionTokens: c,
    tokens: p + c,
    costUsd: costUnknown ? null : pick(costUsd, 'costUsd'),
  };
}

/** The status to show: the stream's end, else the latest status event, else the row. */
export function liveStatus({ events, rowStatus, end }: { events: readonly PublicRunEvent[]; rowStatus: string; end: RunStreamEnd | null }): string {
  if (end) return end.status;
  if (isFinishedStatus(rowStatus)) return rowStatus;
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const e = events[i]!;
    if (e.type === 'final' && e.payload.runStatus) return e.payload.runStatus;
    if (e.type === 'status') {
      if (e.payload.status === 'running') return 'RUNNING';
      if (e.payload.status === 'queued' || e.payload.status === 'requeued') return 'QUEUED';
      if (e.payload.status === 'cancel_requested') return rowStatus === 'QUEUED' ? 'QUEUED' : 'RUNNING';
    }
    if (e.type === 'phase') return 'RUNNING';
  }
  return rowStatus;
}

/** The fix a finished run produced, from the stream's end, a final event, or the row. */
export function fixIdOf({ events, end, rowFixId }: { events: readonly PublicRunEvent[]; end: RunStreamEnd | null; rowFixId: string | null }): string | null {
  if (end?.fixId) return end.fixId;
  if (rowFixId) return rowFixId;
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const e = events[i]!;
    if (e.type === 'final' && e.payload.fixId) return e.payload.fixId;
  }
  return null;
}

/** True when the event's text (type, phase, payload) contains the query, ignoring case. */
export function eventMatches(event: PublicRunEvent, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  const name = event.type === 'unknown' ? event.name : event.type;
  return `${name} ${event.phase ?? ''} ${JSON.stringify(event.payload)}`.toLowerCase().includes(q);
}

/** Adds events to a list sorted by seq, dropping seqs already present. */
export function mergeEvents(existing: readonly PublicRunEvent[], incoming: readonly PublicRunEvent[]): PublicRunEvent[] {
  if (incoming.length === 0) return existing as PublicRunEvent[];
  const last = existing.at(-1)?.seq ?? -1;
  // the common case: the next events in order
  if (incoming.every((e, i) => e.seq > (i === 0 ? last : incoming[i - 1]!.seq))) return [...existing, ...incoming];
  const bySeq = new Map(existing.map((e) => [e.seq, e]));
  for (const e of incoming) if (!bySeq.has(e.seq)) bySeq.set(e.seq, e);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
