import { getDb, type Db } from '../db';
import { AppError } from '../errors';
import { DEFAULT_MEDIANS, estimateRemaining, progressFromPhaseEvents, readPhaseTimings, type PhaseMedians, type RunPhase } from '../../common/run-estimate';
import { loadPhaseMedians } from './estimate';

// Reads of runs for pages and the run API. Writes (request, claim, append,
// finish, cancel) live in lib/runs/service.ts and lib/runs/events.ts.

export interface RunSummary {
  id: string;
  status: string;
  exitReason: string | null;
  exitDetail: string | null;
  trigger: string;
  policy: string;
  model: string | null;
  change: {
    id: string;
    externalId: string;
    title: string;
    branch: string;
    url: string | null;
    repository: { id: string; name: string };
  };
  revision: { id: string; number: number; headRev: string };
  counters: { toolCalls: number; promptTokens: number; completionTokens: number; costUsd: number | null };
  attempt: number;
  maxAttempts: number;
  phaseTimings: Partial<Record<RunPhase, number>>;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  cancelRequestedAt: string | null;
  requestedBy: string | null;
  fix: { id: string; status: string } | null;
  /** the last saved event's seq (-1: none yet) */
  lastSeq: number;
  /** median phase durations of this repository's past runs, for the time-left estimate */
  estimate: PhaseMedians;
}

const SUMMARY_SELECT = {
  id: true,
  status: true,
  exitReason: true,
  exitDetail: true,
  trigger: true,
  policy: true,
  model: true,
  toolCalls: true,
  promptTokens: true,
  completionTokens: true,
  costUsd: true,
  attempt: true,
  maxAttempts: true,
  phaseTimings: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  cancelRequestedAt: true,
  nextEventSeq: true,
  requestedBy: { select: { name: true } },
  fix: { select: { id: true, status: true } },
  revision: { select: { id: true, number: true, headRev: true } },
  change: {
    select: {
      id: true,
      externalId: true,
      title: true,
      branch: true,
      url: true,
      repository: { select: { id: true, name: true } },
    },
  },
} as const;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** One run as the run page and GET /api/runs/:id show it; null if there is no such run. */
export async function getRunById({ id, db = getDb() }: { id: string; db?: Db }): Promise<RunSummary | null> {
  const run = await db.run.findUnique({ where: { id }, select: SUMMARY_SELECT });
  if (!run) return null;
  const estimate = await loadPhaseMedians({ repositoryId: run.change.repository.id, policy: run.policy, db }).catch(() => DEFAULT_MEDIANS);
  const lastSeq = await lastEventSeq({ runId: run.id, db, hint: run.nextEventSeq });
  return {
    id: run.id,
    status: run.status,
    exitReason: run.exitReason,
    exitDetail: run.exitDetail,
    trigger: run.trigger,
    policy: run.policy,
    model: run.model,
    change: run.change,
    revision: run.revision,
    counters: {
      toolCalls: run.toolCalls,
      promptTokens: run.promptTokens,
      completionTokens: run.completionTokens,
      costUsd: run.costUsd,
    },
    attempt: run.attempt,
    maxAttempts: run.maxAttempts,
    phaseTimings: readPhaseTimings(run.phaseTimings),
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    cancelRequestedAt: iso(run.cancelRequestedAt),
    requestedBy: run.requestedBy?.name ?? null,
    fix: run.fix,
    lastSeq,
    estimate,
  };
}

/** Like getRunById, but a missing run is a 404. */
export async function getRunByIdOrThrow({ id, db = getDb() }: { id: string; db?: Db }): Promise<RunSummary> {
  const run = await getRunById({ id, db });
  if (!run) throw new AppError('not_found', 'No such run');
  return run;
}

async function lastEventSeq({ runId, db, hint }: { runId: string; db: Db; hint: number }): Promise<number> {
  // nextEventSeq is the counter the writers keep; the event table is the truth
  if (hint === 0) return -1;
  const last = await db.runEvent.findFirst({ where: { runId }, orderBy: { seq: 'desc' }, select: { seq: true } });
  return last?.seq ?? -1;
}

/** Does the run exist? (the SSE route's 404 before it starts streaming) */
export async function runExists({ id, db = getDb() }: { id: string; db?: Db }): Promise<boolean> {
  return (await db.run.count({ where: { id } })) > 0;
}

// ───── the triage list's running changes ─────

export interface ActiveRunInfo {
  id: string;
  status: 'QUEUED' | 'RUNNING';
  phase: RunPhase | null;
  /** estimated milliseconds until the run finishes (the whole run when queued), and the range around it */
  remainingMs: number;
  remainingLowMs: number;
  remainingHighMs: number;
  /** false: few comparable runs or a wide range, so the badge shows the range */
  sure: boolean;
  basis: PhaseMedians['basis'];
}

/**
 * The queued or running run of each of these changes (one page of the triage
 * list, so a few dozen ids at most), with its phase and time-left estimate.
 */
export async function getActiveRunsForChanges({
  changeIds,
  db = getDb(),
  now = Date.now(),
}: {
  changeIds: readonly string[];
  db?: Db;
  now?: number;
}): Promise<Map<string, ActiveRunInfo>> {
  const out = new Map<string, ActiveRunInfo>();
  if (changeIds.length === 0) return out;
  const runs = await db.run.findMany({
    where: { changeId: { in: [...changeIds] }, status: { in: ['QUEUED', 'RUNNING'] } },
    orderBy: { createdAt: 'desc' },
    select: { id: true, changeId: true, status: true, policy: true, change: { select: { repositoryId: true } } },
  });
  if (runs.length === 0) return out;
  const running = runs.filter((r) => r.status === 'RUNNING').map((r) => r.id);
  const phaseEvents = running.length
    ? await db.runEvent.findMany({
        where: { runId: { in: running }, type: 'phase' },
        orderBy: [{ runId: 'asc' }, { seq: 'asc' }],
        select: { runId: true, payload: true, createdAt: true },
      })
    : [];
  const medians = new Map<string, PhaseMedians>();
  for (const run of runs) {
    const key = `${run.change.repositoryId}:${run.policy}`;
    if (!medians.has(key))
      medians.set(key, await loadPhaseMedians({ repositoryId: run.change.repositoryId, policy: run.policy, db }).catch(() => DEFAULT_MEDIANS));
  }
  for (const run of runs) {
    if (out.has(run.changeId)) continue; // the newest active run of a change
    const estimate = medians.get(`${run.change.repositoryId}:${run.policy}`) ?? DEFAULT_MEDIANS;
    const progress = progressFromPhaseEvents(
      phaseEvents.filter((e) => e.runId === run.id).map((e) => ({ payload: (e.payload ?? {}) as Record<string, unknown>, at: e.createdAt.toISOString() })),
    );
    out.set(run.changeId, {
      id: run.id,
      status: run.status as ActiveRunInfo['status'],
      phase: progress.currentPhase,
      ...remainingOf(estimateRemaining({ estimate, progress, now })),
      basis: estimate.basis,
    });
  }
  return out;
}

function remainingOf(e: ReturnType<typeof estimateRemaining>) {
  return { remainingMs: e.midMs, remainingLowMs: e.lowMs, remainingHighMs: e.highMs, sure: e.sure };
}
