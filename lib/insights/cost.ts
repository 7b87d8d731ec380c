import 'server-only';
import { getDb, type Db } from '../db';
import { ratio } from '../../common/insights-query';
import { SqlParams, bucketExpr, bucketIso, cohortWhere, count, fixesCte, num, queryRows, runWhere, type InsightsScope } from './scope';

// Effort and cost of the cohort's runs (scope.ts): every run the filter
// selects counts, re-validations of edited fixes included (they cost too),
// and the cost per posted or applied fix divides that whole spend by the
// fixes posted or applied, because the runs that found nothing are part of
// the price of the ones that did. Grouped by policy and model; the offline
// tier's share is the posted fixes whose run cost nothing. A run whose model
// had no price has an unknown cost (null): the sums leave it out and
// `unpricedRuns` says how many were left out.

export interface CostRow {
  runs: number;
  toolCalls: number;
  tokens: number;
  /** the known costs only; `unpricedRuns` runs had no price for their model */
  costUsd: number;
  unpricedRuns: number;
  posted: number;
  applied: number;
  toolCallsPerRun: number | null;
  tokensPerRun: number | null;
  costPerRun: number | null;
  costPerPosted: number | null;
  costPerApplied: number | null;
  tokensPerPosted: number | null;
  tokensPerApplied: number | null;
  toolCallsPerPosted: number | null;
  toolCallsPerApplied: number | null;
}

export interface Cost {
  total: CostRow & { p50ToolCalls: number | null; p90ToolCalls: number | null; p50Tokens: number | null; p90Tokens: number | null };
  /** posted fixes at zero model cost, and their share of all posted fixes */
  zeroCost: { posted: number; share: number | null };
  byPolicyModel: Array<CostRow & { policy: string; model: string | null }>;
  trend: Array<{ bucket: string; runs: number; costUsd: number; posted: number; applied: number; costPerApplied: number | null }>;
}

function costRow(r: { runs: unknown; tool_calls: unknown; tokens: unknown; cost: unknown; unpriced: unknown; posted: unknown; applied: unknown } | undefined): CostRow {
  const runs = count(r?.runs);
  const toolCalls = count(r?.tool_calls);
  const tokens = count(r?.tokens);
  const costUsd = num(r?.cost) ?? 0;
  const posted = count(r?.posted);
  const applied = count(r?.applied);
  return {
    runs,
    toolCalls,
    tokens,
    costUsd,
    unpricedRuns: count(r?.unpriced),
    posted,
    applied,
    toolCallsPerRun: ratio(toolCalls, runs),
    tokensPerRun: ratio(tokens, runs),
    costPerRun: ratio(costUsd, runs),
    costPerPosted: ratio(costUsd, posted),
    costPerApplied: ratio(costUsd, applied),
    tokensPerPosted: ratio(tokens, posted),
    tokensPerApplied: ratio(tokens, applied),
    toolCallsPerPosted: ratio(toolCalls, posted),
    toolCallsPerApplied: ratio(toolCalls, applied),
  };
}

export async function cost({ scope, db = getDb() }: { scope: InsightsScope; db?: Db }): Promise<Cost> {
  const p = new SqlParams();
  const sql = `WITH rr AS (
  SELECT r.policy, r.model, r."toolCalls" AS tc, (r."promptTokens" + r."completionTokens")::bigint AS tok, r."costUsd" AS cost,
         ${bucketExpr(scope, 'c."createdAt"')} AS bucket
  FROM "Run" r JOIN "Change" c ON c.id = r."changeId"
  WHERE ${cohortWhere(scope, p)} AND ${runWhere(scope, p, { repairOnly: false })}
), ${fixesCte(scope, p)},
pf AS (
  SELECT fx.id, r.policy, r.model, fx.cost, ${bucketExpr(scope, 'fx.cohort_at')} AS bucket,
    EXISTS (SELECT 1 FROM "Decision" d WHERE d."fixId" = fx.id AND d.kind IN ('ACCEPT', 'EDIT_ACCEPT')) AS applied
  FROM fx JOIN "Run" r ON r.id = fx.run_id WHERE fx.drop_reason IS NULL
)
SELECT 'runs' AS part, GROUPING(policy, model) AS g, policy, model, NULL AS bucket, count(*)::int AS runs,
  sum(tc)::float8 AS tool_calls, sum(tok)::float8 AS tokens, sum(cost)::float8 AS cost,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY tc) AS p50_tc, percentile_cont(0.9) WITHIN GROUP (ORDER BY tc) AS p90_tc,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY tok) AS p50_tok, percentile_cont(0.9) WITHIN GROUP (ORDER BY tok) AS p90_tok,
  NULL::int AS posted, NULL::int AS applied, NULL::int AS zero, count(*) FILTER (WHERE cost IS NULL)::int AS unpriced
FROM rr GROUP BY GROUPING SETS ((policy, model), ())
UNION ALL
SELECT 'fixes', GROUPING(policy, model), policy, model, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  count(*)::int, count(*) FILTER (WHERE applied)::int, count(*) FILTER (WHERE cost = 0)::int, NULL
FROM pf GROUP BY GROUPING SETS ((policy, model), ())
UNION ALL
SELECT 'trend_runs', 0, NULL, NULL, bucket, count(*)::int, NULL, NULL, sum(cost)::float8, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM rr GROUP BY bucket
UNION ALL
SELECT 'trend_fixes', 0, NULL, NULL, bucket, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  count(*)::int, count(*) FILTER (WHERE applied)::int, NULL, NULL
FROM pf GROUP BY bucket`;
  type Row = {
    part: string;
    g: unknown;
    policy: string | null;
    model: string | null;
    bucket: string | null;
    runs: unknown;
    tool_calls: unknown;
    tokens: unknown;
    cost: unknown;
    p50_tc: unknown;
    p90_tc: unknown;
    p50_tok: unknown;
    p90_tok: unknown;
    posted: unknown;
    applied: unknown;
    zero: unknown;
    unpriced: unknown;
  };
  const rows = await queryRows<Row>(db, sql, p);

  const isTotal = (r: Row) => count(r.g) !== 0;
  const runTotal = rows.find((r) => r.part === 'runs' && isTotal(r));
  const fixTotal = rows.find((r) => r.part === 'fixes' && isTotal(r));
  const total = costRow({ ...runTotal!, posted: fixTotal?.posted, applied: fixTotal?.applied } as Row);

  const key = (r: Row) => `${r.policy}\u0000${r.model ?? ''}`;
  const groups = new Map<string, { policy: string; model: string | null; runs?: Row; fixes?: Row }>();
  for (const r of rows) {
    if ((r.part !== 'runs' && r.part !== 'fixes') || isTotal(r)) continue;
    const g = groups.get(key(r)) ?? { policy: r.policy ?? '', model: r.model };
    if (r.part === 'runs') g.runs = r;
    else g.fixes = r;
    groups.set(key(r), g);
  }
  const byPolicyModel = [...groups.values()]
    .map((g) => ({
      policy: g.policy,
      model: g.model,
      ...costRow({
        runs: g.runs?.runs,
        tool_calls: g.runs?.tool_calls,
        tokens: g.runs?.tokens,
        cost: g.runs?.cost,
        unpriced: g.runs?.unpriced,
        posted: g.fixes?.posted,
        applied: g.fixes?.applied,
      }),
    }))
    .sort((a, b) => b.runs - a.runs || a.policy.localeCompare(b.policy));

  const buckets = new Map<string, { runs: number; costUsd: number; posted: number; applied: number }>();
  for (const r of rows) {
    if (r.part !== 'trend_runs' && r.part !== 'trend_fixes') continue;
    const b = buckets.get(r.bucket!) ?? { runs: 0, costUsd: 0, posted: 0, applied: 0 };
    if (r.part === 'trend_runs') {
      b.runs = count(r.runs);
      b.costUsd = num(r.cost) ?? 0;
    } else {
      b.posted = count(r.posted);
      b.applied = count(r.applied);
    }
    buckets.set(r.bucket!, b);
  }
  const zero = count(fixTotal?.zero);
  return {
    total: {
      ...total,
      p50ToolCalls: num(runTotal?.p50_tc),
      p90ToolCalls: num(runTotal?.p90_tc),
      p50Tokens: num(runTotal?.p50_tok),
      p90Tokens: num(runTotal?.p90_tok),
    },
    zeroCost: { posted: zero, share: ratio(zero, total.posted) },
    byPolicyModel,
    trend: [...buckets.entries()]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([bucket, b]) => ({ bucket: bucketIso(bucket), ...b, costPerApplied: ratio(b.costUsd, b.applied) })),
  };
}
