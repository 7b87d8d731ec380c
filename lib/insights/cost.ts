import 'server-only';
import { ratio } from '../../common/insights-query';
import { COUNTER, NO_MODEL, RUN_TABLE, addAll, type Counts } from './tables';
import { percentiles } from './histogram';
import { fillBuckets } from './buckets';
import { readModelPrices } from '../models/prices';
import { OWN, bucketOfDay, histogramOf, n, type InsightsReader } from './read';
import { bucketIso, runCellWhere, type InsightsScope } from './scope';

// Effort and cost of the cohort's runs (scope.ts): every run the filter
// selects counts, re-validations of edited fixes included (they cost too).
// A re-validation is not a repair: `byTrigger` splits the runs, and its
// repair runs are the ones Quality's "why no fix" counts (quality.ts), so
// the two pages name the same number;
// and the cost per posted or applied fix divides that whole spend by the
// fixes posted or applied, because the runs that found nothing are part of
// the price of the ones that did. Grouped by policy and model; the offline
// tier's share is the posted fixes whose run cost nothing. Cost is summed in
// millionths of a dollar (each run's cost rounded to that), so sums are exact.
// A run whose model had no price has an unknown cost (null): the sums leave
// it out, `unpricedRuns` says how many were left out, and its fix is not one
// of the zero-cost ones.
//
// Where the figures come from: each run records its cost when it finishes,
// from the model price table an admin keeps (Admin → Model prices,
// lib/models/prices.ts) as it was then; Insights adds up those recorded
// costs and never re-prices a run. `prices` says, for each model the
// period's runs used, what the table says now, so the page can tell a price
// changed since (or removed: recorded costs stay) from a model never priced.

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

export interface ModelPriceNow {
  model: string;
  /** false: the table has no price for it now */
  priced: boolean;
  inputPerMTokUsd?: number;
  outputPerMTokUsd?: number;
}

export interface Cost {
  total: CostRow & {
    /** the runs split: repairs (automatic and manual) and re-validations of edited fixes */
    byTrigger: { repair: number; revalidation: number };
    p50ToolCalls: number | null;
    p90ToolCalls: number | null;
    p50Tokens: number | null;
    p90Tokens: number | null;
  };
  /** posted fixes at zero model cost, and their share of all posted fixes */
  zeroCost: { posted: number; share: number | null };
  byPolicyModel: Array<CostRow & { policy: string; model: string | null }>;
  trend: Array<{ bucket: string; runs: number; costUsd: number; posted: number; applied: number; costPerApplied: number | null }>;
  /** the models of the period's runs, with their price in the admin's table now */
  prices: ModelPriceNow[];
}

function costRow(runs: Counts | undefined, fixes: Counts | undefined): CostRow {
  const runCount = n(runs, 'runs');
  const toolCalls = n(runs, 'toolCalls');
  const tokens = n(runs, 'tokens');
  const costUsd = n(runs, 'costMicros') / 1_000_000;
  const posted = n(fixes, 'posted');
  const applied = n(fixes, 'applied');
  return {
    runs: runCount,
    toolCalls,
    tokens,
    costUsd,
    unpricedRuns: n(runs, 'unpriced'),
    posted,
    applied,
    toolCallsPerRun: ratio(toolCalls, runCount),
    tokensPerRun: ratio(tokens, runCount),
    costPerRun: ratio(costUsd, runCount),
    costPerPosted: ratio(costUsd, posted),
    costPerApplied: ratio(costUsd, applied),
    tokensPerPosted: ratio(tokens, posted),
    tokensPerApplied: ratio(tokens, applied),
    toolCallsPerPosted: ratio(toolCalls, posted),
    toolCallsPerApplied: ratio(toolCalls, applied),
  };
}

/** The period's spend and what it bought, alone (the overview's figures). */
export async function costTotal({ scope, reader }: { scope: InsightsScope; reader: InsightsReader }): Promise<CostRow> {
  const [runs, fixes] = await Promise.all([
    reader.total({ table: RUN_TABLE, where: runCellWhere(scope, { repairOnly: false }) }),
    reader.total({ table: RUN_TABLE, where: runCellWhere(scope, { repairOnly: true }) }),
  ]);
  return costRow(runs, fixes);
}

export async function cost({ scope, reader }: { scope: InsightsScope; reader: InsightsReader }): Promise<Cost> {
  // runs: every trigger unless one is asked for (re-validations cost too); fixes: the repair runs'
  const runWhere = runCellWhere(scope, { repairOnly: false });
  const fixWhere = runCellWhere(scope, { repairOnly: true });
  const perGroup = { policy: scope.policy ?? OWN, model: scope.model ?? OWN };
  const [table, runs, runDays, fixDays, runGroups, fixGroups] = await Promise.all([
    readModelPrices(reader.tx),
    reader.total({ table: RUN_TABLE, where: runWhere, histograms: [COUNTER.toolCalls, COUNTER.tokens] }),
    reader.sums({ table: RUN_TABLE, where: runWhere }, ['day']),
    reader.sums({ table: RUN_TABLE, where: fixWhere }, ['day']),
    reader.sums({ table: RUN_TABLE, where: { ...runWhere, ...perGroup } }, ['policy', 'model']),
    reader.sums({ table: RUN_TABLE, where: { ...fixWhere, ...perGroup } }, ['policy', 'model']),
  ]);
  const fixes: Counts = new Map();
  for (const { counts } of fixDays.values()) addAll(fixes, counts);
  const [p50ToolCalls, p90ToolCalls] = percentiles(histogramOf(runs, COUNTER.toolCalls), [0.5, 0.9]);
  const [p50Tokens, p90Tokens] = percentiles(histogramOf(runs, COUNTER.tokens), [0.5, 0.9]);
  const totalRow = costRow(runs, fixes);
  // the fix cell is the repair runs' unless a trigger was asked for (then both cells are that trigger's)
  const repairRuns = scope.trigger === 'REVALIDATE' ? 0 : scope.trigger ? totalRow.runs : n(fixes, 'runs');
  const byTrigger = { repair: repairRuns, revalidation: totalRow.runs - repairRuns };

  const byPolicyModel = [...runGroups.entries()]
    .filter(([, g]) => n(g.counts, 'runs') > 0)
    .map(([key, g]) => ({
      policy: g.group.policy!,
      model: g.group.model === NO_MODEL ? null : g.group.model!,
      ...costRow(g.counts, fixGroups.get(key)?.counts),
    }))
    .sort((a, b) => b.runs - a.runs || a.policy.localeCompare(b.policy));

  const byBucket = (days: Map<string, { group: Record<string, string>; counts: Counts }>) => {
    const out = new Map<string, Counts>();
    for (const { group, counts } of days.values()) {
      const bucket = bucketOfDay(group.day!, scope.bucket);
      let sum = out.get(bucket);
      if (!sum) out.set(bucket, (sum = new Map()));
      addAll(sum, counts);
    }
    return out;
  };
  const runBuckets = byBucket(runDays);
  const fixBuckets = byBucket(fixDays);
  const zero = n(fixes, 'postedZeroCost');
  const models = [...new Set(byPolicyModel.flatMap((g) => (g.model === null ? [] : [g.model])))];
  const prices = models.map((model): ModelPriceNow => {
    const price = Object.hasOwn(table, model) ? table[model] : undefined;
    return price ? { model, priced: true, inputPerMTokUsd: price.inputPerMTokUsd, outputPerMTokUsd: price.outputPerMTokUsd } : { model, priced: false };
  });
  return {
    total: {
      ...totalRow,
      byTrigger,
      p50ToolCalls: p50ToolCalls ?? null,
      p90ToolCalls: p90ToolCalls ?? null,
      p50Tokens: p50Tokens ?? null,
      p90Tokens: p90Tokens ?? null,
    },
    zeroCost: { posted: zero, share: ratio(zero, totalRow.posted) },
    byPolicyModel,
    // every bucket of the period (buckets.ts), one without runs at zero
    trend: fillBuckets({ from: scope.from, to: scope.to, bucket: scope.bucket, rows: runBuckets, zero: (): Counts => new Map() }).map(({ bucket, row: r }) => {
      const f = fixBuckets.get(bucket);
      const costUsd = n(r, 'costMicros') / 1_000_000;
      const applied = n(f, 'applied');
      return { bucket: bucketIso(bucket), runs: n(r, 'runs'), costUsd, posted: n(f, 'posted'), applied, costPerApplied: ratio(costUsd, applied) };
    }),
    prices,
  };
}
