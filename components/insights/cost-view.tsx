'use client';

import { Bar, BarChart, CartesianGrid, ComposedChart, LabelList, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCost, formatCostExact, formatCount, formatPercent, formatTokens, formatUtcDay } from '@/common/format';
import { policyLabel } from '@/common/labels';
import { ChartCard } from './chart-card';
import { ACTIVE_DOT, AXIS, CATEGORY_AXIS, CHART_HEIGHT, DOT, GRID, LEGEND, PALETTE, SectionState, TOOLTIP, Tiles, dayTick, CHART, ZERO_BAR } from './charts';
import { useInsightsFilter, useInsightsSection } from './use-insights';

const usd = (v: unknown) => (v === null || v === undefined ? '—' : formatCost(Number(v)));
const tokens = (v: unknown) => (v === null || v === undefined ? '—' : formatTokens(Math.round(Number(v))));
const calls = (v: unknown) => (v === null || v === undefined ? '—' : Number(v).toFixed(1));

/** The runs counted: the repairs Quality counts too, and the re-validations of edited fixes (not repairs, but they cost). */
function runsText({ repair, revalidation }: { repair: number; revalidation: number }): string {
  const repairs = `${formatCount(repair)} repair ${repair === 1 ? 'run' : 'runs'}`;
  if (revalidation === 0) return repairs;
  const revalidations = `${formatCount(revalidation)} ${revalidation === 1 ? 're-validation' : 're-validations'} of edited fixes`;
  return repair === 0 ? revalidations : `${repairs} + ${revalidations}`;
}

export function CostView() {
  const [query] = useInsightsFilter();
  const { data, isLoading, error } = useInsightsSection('cost', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const c = data.data;
  const t = c.total;
  const groups = c.byPolicyModel.map((g) => ({ ...g, label: g.model ? `${policyLabel(g.policy)} · ${g.model}` : policyLabel(g.policy) }));
  return (
    <div className="stack">
      <Tiles
        tiles={[
          {
            label: 'Total model cost',
            value: formatCost(t.costUsd),
            detail: (
              <span title={formatCostExact(t.costUsd)} data-testid="cost-runs">
                {runsText(t.byTrigger)}
                {t.unpricedRuns > 0 ? ` · ${formatCount(t.unpricedRuns)} of unknown cost (no price for their model)` : ''}
              </span>
            ),
            testId: 'cost-total',
          },
          { label: 'Per run', value: usd(t.costPerRun), detail: `${tokens(t.tokensPerRun)} tokens · ${calls(t.toolCallsPerRun)} tool calls` },
          {
            label: 'Per posted fix',
            value: usd(t.costPerPosted),
            detail: `${tokens(t.tokensPerPosted)} tokens · ${calls(t.toolCallsPerPosted)} tool calls · ${formatCount(t.posted)} posted`,
          },
          {
            label: 'Per applied fix',
            value: usd(t.costPerApplied),
            detail: `${tokens(t.tokensPerApplied)} tokens · ${calls(t.toolCallsPerApplied)} tool calls · ${formatCount(t.applied)} applied`,
            testId: 'cost-per-applied',
          },
          { label: 'Posted at zero model cost', value: formatPercent(c.zeroCost.share), detail: `${formatCount(c.zeroCost.posted)} fixes by the offline tier` },
          {
            label: 'Tool calls per run, p50 / p90',
            value: `${calls(t.p50ToolCalls)} / ${calls(t.p90ToolCalls)}`,
            detail: `tokens p50 ${tokens(t.p50Tokens)} · p90 ${tokens(t.p90Tokens)}`,
          },
        ]}
      />
      <p className="insights-note" data-testid="cost-source">
        Where these figures come from: each run records its model cost when it finishes, priced with the model price table an admin keeps (Admin → Model prices)
        as it was then; this page adds up those recorded costs and never re-prices a run. A run whose model had no price counts as unknown cost, not as $0.{' '}
        {c.prices.length === 0
          ? 'No run in this period used a priced model.'
          : `Prices now: ${c.prices
              .map((p) =>
                p.priced
                  ? `${p.model} ${formatCost(p.inputPerMTokUsd!)} input / ${formatCost(p.outputPerMTokUsd!)} output per million tokens`
                  : `${p.model} has no price set now`,
              )
              .join('; ')}.`}
      </p>
      <ChartCard
        id="cost-policy-model"
        title="Cost by policy and model"
        subtitle="Every run's cost divided by the fixes posted and applied: runs that found nothing are part of the price."
        table={{
          columns: [
            { label: 'policy' },
            { label: 'model' },
            { label: 'runs', numeric: true, format: (v) => formatCount(Number(v)) },
            { label: 'tool calls/run', numeric: true, format: calls },
            { label: 'tokens/run', numeric: true, format: tokens },
            { label: 'cost (USD)', numeric: true, format: usd },
            { label: 'cost/run', numeric: true, format: usd },
            { label: 'posted', numeric: true, format: (v) => formatCount(Number(v)) },
            { label: 'tool calls/posted', numeric: true, format: calls },
            { label: 'tokens/posted', numeric: true, format: tokens },
            { label: 'cost/posted', numeric: true, format: usd },
            { label: 'applied', numeric: true, format: (v) => formatCount(Number(v)) },
            { label: 'tool calls/applied', numeric: true, format: calls },
            { label: 'tokens/applied', numeric: true, format: tokens },
            { label: 'cost/applied', numeric: true, format: usd },
          ],
          rows: c.byPolicyModel.map((g) => [
            policyLabel(g.policy),
            g.model,
            g.runs,
            g.toolCallsPerRun,
            g.tokensPerRun,
            g.costUsd,
            g.costPerRun,
            g.posted,
            g.toolCallsPerPosted,
            g.tokensPerPosted,
            g.costPerPosted,
            g.applied,
            g.toolCallsPerApplied,
            g.tokensPerApplied,
            g.costPerApplied,
          ]),
        }}
        empty={t.runs === 0 ? 'No run in this period.' : null}
      >
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <BarChart {...CHART} data={groups} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid {...GRID} />
            <XAxis dataKey="label" {...AXIS} {...CATEGORY_AXIS} />
            <YAxis tickFormatter={(v: number) => formatCost(v)} {...AXIS} width={56} />
            <Tooltip {...TOOLTIP} formatter={usd} />
            <Legend {...LEGEND} />
            <Bar
              isAnimationActive={false}
              dataKey="costPerRun"
              name="Cost per run"
              minPointSize={ZERO_BAR}
              fill={PALETTE.slate}
              radius={[4, 4, 0, 0]}
              maxBarSize={36}
            >
              <LabelList dataKey="costPerRun" position="top" className="insights-bar-label" formatter={usd} />
            </Bar>
            <Bar
              isAnimationActive={false}
              dataKey="costPerPosted"
              name="Cost per posted fix"
              minPointSize={ZERO_BAR}
              fill={PALETTE.violet}
              radius={[4, 4, 0, 0]}
              maxBarSize={36}
            >
              <LabelList dataKey="costPerPosted" position="top" className="insights-bar-label" formatter={usd} />
            </Bar>
            <Bar
              isAnimationActive={false}
              dataKey="costPerApplied"
              name="Cost per applied fix"
              minPointSize={ZERO_BAR}
              fill={PALETTE.green}
              radius={[4, 4, 0, 0]}
              maxBarSize={36}
            >
              <LabelList dataKey="costPerApplied" position="top" className="insights-bar-label" formatter={usd} />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
      <ChartCard
        id="cost-trend"
        title="Spend over time"
        subtitle={`Model cost per ${query.bucket === 'day' ? 'day' : 'week'} of first failure, and the cost per applied fix.`}
        table={{
          columns: [
            { label: query.bucket === 'day' ? 'day (UTC)' : 'week of (UTC)' },
            { label: 'runs', numeric: true },
            { label: 'cost (USD)', numeric: true, format: usd },
            { label: 'posted', numeric: true },
            { label: 'applied', numeric: true },
            { label: 'cost/applied', numeric: true, format: usd },
          ],
          rows: c.trend.map((b) => [b.bucket.slice(0, 10), b.runs, b.costUsd, b.posted, b.applied, b.costPerApplied]),
        }}
        empty={c.trend.length === 0 ? 'No run in this period.' : null}
      >
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <ComposedChart {...CHART} data={c.trend} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid {...GRID} />
            <XAxis dataKey="bucket" tickFormatter={dayTick} {...AXIS} />
            <YAxis yAxisId="c" tickFormatter={(v: number) => formatCost(v)} {...AXIS} width={56} />
            <YAxis yAxisId="a" orientation="right" tickFormatter={(v: number) => formatCost(v)} {...AXIS} width={56} />
            <Tooltip {...TOOLTIP} labelFormatter={(l) => `${query.bucket === 'day' ? '' : 'Week of '}${formatUtcDay(String(l))} (UTC)`} formatter={usd} />
            <Legend {...LEGEND} />
            <Bar
              isAnimationActive={false}
              yAxisId="c"
              dataKey="costUsd"
              name="Model cost"
              minPointSize={ZERO_BAR}
              fill={PALETTE.blue}
              fillOpacity={0.75}
              stroke={PALETTE.blue}
              radius={[4, 4, 0, 0]}
              maxBarSize={36}
            />
            <Line
              isAnimationActive={false}
              yAxisId="a"
              dataKey="costPerApplied"
              name="Cost per applied fix"
              stroke={PALETTE.green}
              strokeWidth={2}
              dot={DOT}
              activeDot={ACTIVE_DOT}
              connectNulls
            />
          </ComposedChart>
        </ResponsiveContainer>
      </ChartCard>
    </div>
  );
}
