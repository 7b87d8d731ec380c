import 'server-only';
import { getDb, type Db } from '../db';
import { ratio } from '../../common/insights-query';
import { DROP_REASON_SQL, SqlParams, cohortWhere, count, queryRows, runWhere, type InsightsScope } from './scope';

// FlowAgent's funnel for the cohort (scope.ts): changes with failures →
// skipped by pre-execution filters (by reason) → attempted (a repair run) →
// fix found → dropped by post-execution filters (by reason) → posted →
// previewed (any decision: a reviewer cannot decide unseen) → applied (accept
// or edit-accept). The first three steps count changes, the rest fixes (one
// per run): a change attempted on two revisions can yield two fixes.

export const FUNNEL_STEPS = ['changes', 'skipped', 'attempted', 'found', 'dropped', 'posted', 'previewed', 'applied'] as const;
export type FunnelStepKey = (typeof FUNNEL_STEPS)[number];

/** Which step each step's retention is measured against. */
const BASE: Record<FunnelStepKey, FunnelStepKey | null> = {
  changes: null,
  skipped: 'changes',
  attempted: 'changes',
  found: 'attempted',
  dropped: 'found',
  posted: 'found',
  previewed: 'posted',
  applied: 'previewed',
};

export interface FunnelReason {
  reason: string;
  count: number;
  /** of the step's count */
  share: number | null;
}

export interface FunnelStep {
  key: FunnelStepKey;
  count: number;
  /** the step this one is a share of (skipped and attempted: of changes; dropped and posted: of fixes found) */
  base: FunnelStepKey | null;
  /** count / the base step's count; null when the base is 0 */
  retention: number | null;
  /** count / changes with failures */
  ofChanges: number | null;
  /** skipped and dropped only, largest first */
  reasons?: FunnelReason[];
}

export interface Funnel {
  steps: FunnelStep[];
  /** changes neither skipped nor attempted (yet): waiting, or attempted only by runs the filter leaves out */
  notAttempted: number;
}

export async function funnel({ scope, db = getDb() }: { scope: InsightsScope; db?: Db }): Promise<Funnel> {
  const p = new SqlParams();
  const sql = `
WITH c AS (
  SELECT c.id, c.status::text AS status, c."statusReason" AS reason FROM "Change" c WHERE ${cohortWhere(scope, p)}
), r AS (
  SELECT DISTINCT r."changeId" FROM "Run" r JOIN c ON c.id = r."changeId" WHERE ${runWhere(scope, p, { repairOnly: true })}
), f AS (
  SELECT f.id, ${DROP_REASON_SQL} AS drop_reason
  FROM "Fix" f JOIN c ON c.id = f."changeId" JOIN "Run" r ON r.id = f."runId" JOIN "ChangeRevision" v ON v.id = f."revisionId"
  WHERE ${runWhere(scope, p, { repairOnly: true })}
), d AS (
  SELECT d."fixId", bool_or(d.kind IN ('ACCEPT', 'EDIT_ACCEPT')) AS applied
  FROM "Decision" d JOIN f ON f.id = d."fixId" AND f.drop_reason IS NULL GROUP BY d."fixId"
)
SELECT 'changes' AS step, NULL AS reason, count(*)::int AS n FROM c
UNION ALL SELECT 'skipped', COALESCE(reason, 'unknown'), count(*)::int FROM c
  WHERE status = 'SKIPPED' AND NOT EXISTS (SELECT 1 FROM "Run" x WHERE x."changeId" = c.id) GROUP BY 2
UNION ALL SELECT 'attempted', NULL, count(*)::int FROM r
UNION ALL SELECT 'found', NULL, count(*)::int FROM f
UNION ALL SELECT 'dropped', drop_reason, count(*)::int FROM f WHERE drop_reason IS NOT NULL GROUP BY 2
UNION ALL SELECT 'posted', NULL, count(*)::int FROM f WHERE drop_reason IS NULL
UNION ALL SELECT 'previewed', NULL, count(*)::int FROM d
UNION ALL SELECT 'applied', NULL, count(*)::int FROM d WHERE applied`;
  const rows = await queryRows<{ step: FunnelStepKey; reason: string | null; n: unknown }>(db, sql, p);

  const counts = new Map<FunnelStepKey, number>(FUNNEL_STEPS.map((k) => [k, 0]));
  const reasons = new Map<FunnelStepKey, FunnelReason[]>();
  for (const row of rows) {
    counts.set(row.step, counts.get(row.step)! + count(row.n));
    if (row.reason !== null) {
      const list = reasons.get(row.step) ?? [];
      list.push({ reason: row.reason, count: count(row.n), share: null });
      reasons.set(row.step, list);
    }
  }
  const changes = counts.get('changes')!;
  const steps = FUNNEL_STEPS.map((key): FunnelStep => {
    const n = counts.get(key)!;
    const base = BASE[key];
    const step: FunnelStep = {
      key,
      count: n,
      base,
      retention: base ? ratio(n, counts.get(base)!) : null,
      ofChanges: ratio(n, changes),
    };
    if (key === 'skipped' || key === 'dropped') {
      step.reasons = (reasons.get(key) ?? [])
        .map((r) => ({ ...r, share: ratio(r.count, n) }))
        .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
    }
    return step;
  });
  return { steps, notAttempted: changes - counts.get('skipped')! - counts.get('attempted')! };
}
