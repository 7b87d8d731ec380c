'use client';

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatDuration, formatMinutes, formatPercent } from '@/common/format';
import { ChartCard, type Cell } from './chart-card';
import {
  ACTIVE_DOT,
  AXIS,
  CATEGORY_AXIS,
  CHART_HEIGHT,
  GRID,
  LEGEND,
  PALETTE,
  SectionState,
  TOOLTIP,
  Tiles,
  humanise,
  percentTick,
  CHART,
  ZERO_BAR,
} from './charts';
import { useInsightsFilter, useInsightsSection } from './use-insights';

const minutes = formatMinutes;
const PHASE_LABELS: Record<string, string> = { setup: 'Setup', red: 'RED', localise: 'Localise', patch: 'Patch', verify: 'Verify', summary: 'Summary' };

export function LatencyView() {
  const [query] = useInsightsFilter();
  const { data, isLoading, error } = useInsightsSection('latency', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const l = data.data;
  const cdfRows: Cell[][] = l.fix.cdf.map((p, i) => [p.share, p.minutes, l.developer.cdf[i]?.minutes ?? null]);
  const phases = l.phases.map((p) => ({
    ...p,
    label: PHASE_LABELS[p.phase] ?? humanise(p.phase),
    p50m: p.p50Ms === null ? null : p.p50Ms / 60_000,
    p90m: p.p90Ms === null ? null : p.p90Ms / 60_000,
  }));
  return (
    <div className="stack">
      <Tiles
        tiles={[
          { label: 'Failure → fix posted, p10', value: minutes(l.fix.p10), testId: 'latency-p10' },
          { label: 'p50', value: minutes(l.fix.p50), detail: `${l.fix.count.toLocaleString()} posted fixes`, testId: 'latency-p50' },
          { label: 'p90', value: minutes(l.fix.p90), testId: 'latency-p90' },
          {
            label: 'Developer’s next revision, p25 / p50',
            value: `${minutes(l.developer.p25)} / ${minutes(l.developer.p50)}`,
            detail: `${l.developer.count.toLocaleString()} revisions followed by another`,
          },
          {
            label: 'Arrived stale',
            value: formatPercent(l.stale.share),
            detail: `${l.stale.count.toLocaleString()} of ${l.stale.found.toLocaleString()} fixes found after a newer revision`,
          },
        ]}
      />
      <ChartCard
        id="latency-cdf"
        title="How long until a fix, against the developer’s own next edit"
        subtitle="Share of posted fixes (and of revisions the developer followed up) within a given time of the failure report. Percentiles interpolate linearly between ranks, each time rounded to a bucket within 1.6% of it."
        table={{
          columns: [
            { label: 'share', numeric: true, format: (v) => formatPercent(v as number) },
            { label: 'fix posted (min)', numeric: true, format: (v) => minutes(v as number | null) },
            { label: 'developer next revision (min)', numeric: true, format: (v) => minutes(v as number | null) },
          ],
          rows: cdfRows.length ? cdfRows : l.developer.cdf.map((p) => [p.share, null, p.minutes]),
        }}
        empty={l.fix.count === 0 && l.developer.count === 0 ? 'No fix was posted and no revision followed another in this period.' : null}
      >
        <ResponsiveContainer width="100%" height={320}>
          <LineChart {...CHART} margin={{ top: 8, right: 16, bottom: 16, left: 0 }}>
            <CartesianGrid {...GRID} vertical />
            <XAxis
              type="number"
              dataKey="minutes"
              domain={[0, 'dataMax']}
              tickFormatter={(v: number) => `${Math.round(v)}`}
              allowDecimals={false}
              label={{ value: 'minutes after the failure report', position: 'insideBottom', offset: -8, fontSize: 12, fill: 'currentColor' }}
              {...AXIS}
            />
            <YAxis type="number" dataKey="share" domain={[0, 1]} tickFormatter={percentTick} {...AXIS} width={48} />
            <Tooltip {...TOOLTIP} labelFormatter={(v) => `${minutes(Number(v))} after the failure report`} formatter={(v) => formatPercent(Number(v))} />
            <Legend {...LEGEND} verticalAlign="top" height={28} />
            <Line
              isAnimationActive={false}
              data={l.fix.cdf}
              dataKey="share"
              name="Fixes posted by then"
              stroke={PALETTE.blue}
              strokeWidth={2.5}
              dot={false}
              activeDot={ACTIVE_DOT}
              type="monotone"
            />
            <Line
              isAnimationActive={false}
              data={l.developer.cdf}
              dataKey="share"
              name="Developer's next revisions by then"
              stroke={PALETTE.amber}
              strokeWidth={2}
              strokeDasharray="6 4"
              dot={false}
              activeDot={ACTIVE_DOT}
              type="monotone"
            />
          </LineChart>
        </ResponsiveContainer>
      </ChartCard>
      <ChartCard
        id="latency-phases"
        title="Run time per phase"
        subtitle="Median and 90th percentile over the finished runs that went through each phase."
        table={{
          columns: [
            { label: 'phase' },
            { label: 'runs', numeric: true },
            { label: 'p50 (ms)', numeric: true, format: (v) => formatDuration(v as number | null) },
            { label: 'p90 (ms)', numeric: true, format: (v) => formatDuration(v as number | null) },
          ],
          rows: l.phases.map((p) => [PHASE_LABELS[p.phase] ?? p.phase, p.runs, p.p50Ms, p.p90Ms]),
        }}
        empty={l.phases.every((p) => p.runs === 0) ? 'No finished run recorded its phase timings in this period.' : null}
      >
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <BarChart {...CHART} data={phases} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid {...GRID} />
            <XAxis dataKey="label" {...AXIS} {...CATEGORY_AXIS} />
            <YAxis tickFormatter={(v: number) => `${v} min`} {...AXIS} width={56} />
            <Tooltip {...TOOLTIP} formatter={(v) => formatDuration(Number(v) * 60_000)} />
            <Legend {...LEGEND} />
            <Bar isAnimationActive={false} dataKey="p50m" name="p50 time" minPointSize={ZERO_BAR} fill={PALETTE.blue} radius={[4, 4, 0, 0]} maxBarSize={48} />
            <Bar
              isAnimationActive={false}
              dataKey="p90m"
              name="p90 time"
              minPointSize={ZERO_BAR}
              fill={PALETTE.violet}
              fillOpacity={0.7}
              stroke={PALETTE.violet}
              radius={[4, 4, 0, 0]}
              maxBarSize={48}
            />
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
    </div>
  );
}
