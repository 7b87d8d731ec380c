'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { Bar, BarChart, CartesianGrid, Cell as BarCell, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { toChangeListSearchParams } from '@/common/change-query';
import { formatCount, formatPercent } from '@/common/format';
import { funnelReasonFilters, type InsightsQuery } from '@/common/insights-query';
import { dropReasonLabel, skipReasonLabel } from '@/common/labels';
import type { Funnel } from '@/lib/insights';
import { ChartCard, type Cell } from './chart-card';
import { AXIS, CHART, GRID, PALETTE, SERIES, SectionState, TOOLTIP, ZERO_BAR, countOf, useNarrow } from './charts';
import { useInsightsFilter, useInsightsSection } from './use-insights';

const STEP_LABELS: Record<string, string> = {
  changes: 'Changes with failures',
  skipped: 'Skipped by pre-execution filters',
  attempted: 'Attempted',
  found: 'Fix found',
  dropped: 'Dropped by post-execution filters',
  posted: 'Posted',
  previewed: 'Previewed',
  applied: 'Applied',
};
/** The step's count named with its unit, for the tooltip: "Fixes applied: 140". */
const STEP_SERIES: Record<string, string> = {
  changes: 'Changes with failures',
  skipped: 'Changes skipped',
  attempted: 'Changes attempted',
  found: 'Fixes found',
  dropped: 'Fixes dropped',
  posted: 'Fixes posted',
  previewed: 'Fixes previewed',
  applied: 'Fixes applied',
};
/** On a phone the axis holds one word a step. */
const SHORT_LABELS: Record<string, string> = {
  changes: 'Failing',
  skipped: 'Skipped',
  attempted: 'Attempted',
  found: 'Fix found',
  dropped: 'Dropped',
  posted: 'Posted',
  previewed: 'Previewed',
  applied: 'Applied',
};
const STEP_COLOURS: Record<string, string> = {
  changes: PALETTE.slate,
  skipped: PALETTE.amber,
  attempted: PALETTE.blue,
  found: PALETTE.blue,
  dropped: PALETTE.red,
  posted: PALETTE.violet,
  previewed: PALETTE.teal,
  applied: PALETTE.green,
};

/**
 * The triage list showing exactly the changes a funnel reason's bar counted:
 * the same cohort (first failing in the answer's period) and runs, selected
 * with the bar's own SQL (common/insights-query.ts funnelReasonFilters).
 */
export function triageHref({
  step,
  reason,
  query,
  period,
}: {
  step: 'skipped' | 'dropped';
  reason: string;
  query: InsightsQuery;
  period: { from: string | null; to: string };
}): string {
  return `/changes?${toChangeListSearchParams(funnelReasonFilters({ step, reason, period, query }))}`;
}

function ReasonCard({
  funnel,
  step,
  query,
  period,
}: {
  funnel: Funnel;
  step: 'skipped' | 'dropped';
  query: InsightsQuery;
  period: { from: string | null; to: string };
}) {
  const router = useRouter();
  const narrow = useNarrow();
  const s = funnel.steps.find((x) => x.key === step)!;
  const reasons = s.reasons ?? [];
  const labelOf = step === 'skipped' ? skipReasonLabel : dropReasonLabel;
  const data = reasons.map((r) => ({ ...r, label: labelOf(r.reason), href: triageHref({ step, reason: r.reason, query, period }) }));
  const rows: Cell[][] = reasons.map((r) => [r.reason, r.count, r.share]);
  const series = step === 'skipped' ? 'Changes skipped' : 'Changes with a fix dropped';
  return (
    <ChartCard
      id={`funnel-${step}-reasons`}
      title={step === 'skipped' ? 'Why changes were skipped' : 'Why fixes were dropped'}
      subtitle={
        step === 'skipped'
          ? 'Pre-execution filters, before any run; changes. Click a reason to see its changes.'
          : 'Post-execution filters, after a fix was found; changes (a change with two fixes dropped for one reason counts once). Click a reason to see its changes.'
      }
      table={{
        columns: [
          { label: 'reason', format: (v) => labelOf(String(v)) },
          { label: 'changes', numeric: true, format: (v) => formatCount(Number(v)) },
          { label: 'share', numeric: true, format: (v) => formatPercent(v as number | null) },
        ],
        rows,
      }}
      empty={reasons.length === 0 ? (step === 'skipped' ? 'No change was skipped in this period.' : 'No fix was dropped in this period.') : null}
      footer={
        <ul className="insights-reason-links" data-testid={`funnel-${step}-links`}>
          {data.map((r) => (
            <li key={r.reason}>
              <Link href={r.href} data-reason={r.reason} data-count={r.count}>
                {r.label}
              </Link>{' '}
              <span className="muted">
                {countOf('change', 'changes')(r.count)} · {formatPercent(r.share)}
              </span>
            </li>
          ))}
        </ul>
      }
    >
      <ResponsiveContainer width="100%" height={Math.max(120, 36 * data.length + 30)}>
        <BarChart {...CHART} data={data} layout="vertical" margin={{ left: 8, right: 40, top: 4, bottom: 4 }}>
          <CartesianGrid {...GRID} horizontal={false} vertical />
          <XAxis type="number" {...AXIS} allowDecimals={false} />
          <YAxis type="category" dataKey="label" width={narrow ? 120 : 190} {...AXIS} />
          <Tooltip {...TOOLTIP} formatter={(v) => formatCount(Number(v))} />
          <Bar
            isAnimationActive={false}
            dataKey="count"
            name={series}
            fill={step === 'skipped' ? PALETTE.amber : PALETTE.red}
            radius={[0, 4, 4, 0]}
            cursor="pointer"
            maxBarSize={36}
            minPointSize={ZERO_BAR}
            onClick={(entry: { payload?: { href?: string } }) => entry.payload?.href && router.push(entry.payload.href)}
          >
            <LabelList dataKey="count" position="right" className="insights-bar-label" />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

export function FunnelView() {
  const [query] = useInsightsFilter();
  const narrow = useNarrow();
  const { data, isLoading, error } = useInsightsSection('funnel', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const funnel = data.data;
  const steps = funnel.steps.map((s) => ({
    ...s,
    label: narrow ? SHORT_LABELS[s.key] : STEP_LABELS[s.key],
    text: `${formatCount(s.count)}${s.retention === null ? '' : ` (${formatPercent(s.retention, narrow ? 0 : 1)})`}`,
  }));
  const changes = funnel.steps[0].count;
  return (
    <div className="stack">
      <ChartCard
        id="funnel"
        title="From failing change to applied fix"
        subtitle="Changes for the first three steps, fixes after (a change attempted on two revisions can yield two). Each step's share is of the step it follows from."
        table={{
          columns: [
            { label: 'step' },
            { label: 'count', numeric: true, format: (v) => formatCount(Number(v)) },
            { label: 'share of' },
            { label: 'retention', numeric: true, format: (v) => formatPercent(v as number | null) },
            { label: 'of changes', numeric: true, format: (v) => formatPercent(v as number | null) },
          ],
          rows: funnel.steps.map((s) => [STEP_LABELS[s.key], s.count, s.base ? STEP_LABELS[s.base] : null, s.retention, s.ofChanges]),
        }}
        summary={funnel.steps.map((s) => `${STEP_SERIES[s.key]}: ${formatCount(s.count)}`).join('; ')}
        empty={changes === 0 ? 'No failing change in this period: widen the period or clear a filter.' : null}
      >
        <ResponsiveContainer width="100%" height={narrow ? 300 : 330}>
          <BarChart {...CHART} data={steps} layout="vertical" margin={{ left: 0, right: narrow ? 72 : 110, top: 4, bottom: 4 }}>
            <CartesianGrid {...GRID} horizontal={false} vertical />
            <XAxis type="number" {...AXIS} allowDecimals={false} />
            <YAxis type="category" dataKey="label" width={narrow ? 78 : 230} {...AXIS} />
            <Tooltip
              {...TOOLTIP}
              labelFormatter={(_, items) => STEP_LABELS[(items?.[0]?.payload as { key?: string } | undefined)?.key ?? ''] ?? ''}
              formatter={(v, _name, item) => [formatCount(Number(v)), STEP_SERIES[(item?.payload as { key?: string } | undefined)?.key ?? ''] ?? 'Count']}
            />
            <Bar isAnimationActive={false} dataKey="count" name="Count" radius={[0, 4, 4, 0]} maxBarSize={36} minPointSize={ZERO_BAR}>
              {steps.map((s, i) => (
                <BarCell key={s.key} fill={STEP_COLOURS[s.key] ?? SERIES[i % SERIES.length]} />
              ))}
              <LabelList dataKey="text" position="right" className="insights-bar-label" />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
      {funnel.notAttempted > 0 && (
        <p className="insights-note" data-testid="funnel-not-attempted">
          {formatCount(funnel.notAttempted)} {funnel.notAttempted === 1 ? 'change was' : 'changes were'} neither skipped nor attempted by the runs this filter
          selects (waiting, or repaired by another policy or model).
        </p>
      )}
      <div className="grid-2">
        <ReasonCard funnel={funnel} step="skipped" query={query} period={data.period} />
        <ReasonCard funnel={funnel} step="dropped" query={query} period={data.period} />
      </div>
    </div>
  );
}
