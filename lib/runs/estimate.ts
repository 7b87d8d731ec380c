import 'server-only';
import type { Db } from '../db';
import { MIN_COMPARABLE, medianPhaseDurations, type PhaseMedians } from '../../common/run-estimate';

// The comparable runs behind a run's time-left range (common/run-estimate.ts).

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
  policy,
  db,
  limit = ESTIMATE_HISTORY_RUNS,
  now = Date.now(),
}: {
  repositoryId: string;
  /** the run's policy: its own runs are the comparable ones when there are enough of them */
  policy?: string;
  db: Db;
  limit?: number;
  now?: number;
}): Promise<PhaseMedians> {
  const key = `${repositoryId}:${policy ?? '*'}:${limit}`;
  const hit = cache.get(key);
  if (hit && now - hit.at < CACHE_MS) return hit.value;
  const load = async (byPolicy: string | undefined) =>
    db.run.findMany({
      // generated demo history (FlowAgent-shaped, minutes long) says nothing about how long this server takes
      where: {
        status: { in: [...FINISHED_FOR_ESTIMATE] },
        finishedAt: { not: null },
        ...(byPolicy ? { policy: byPolicy } : {}),
        change: { repositoryId, origin: { not: 'DEMO_HISTORY' } },
      },
      orderBy: { finishedAt: 'desc' },
      take: limit,
      select: { phaseTimings: true },
    });
  let rows = policy ? await load(policy) : [];
  let scope: PhaseMedians['scope'] = 'policy';
  if (rows.length < MIN_COMPARABLE) {
    rows = await load(undefined);
    scope = 'repository';
  }
  const value = { ...medianPhaseDurations(rows.map((r) => r.phaseTimings)), scope };
  cache.set(key, { at: now, value });
  return value;
}

/** Tests and callers that just finished a run may want fresh medians. */
export function clearPhaseMediansCache(): void {
  cache.clear();
}
