'use client';

import { Bar, BarChart, CartesianGrid, Cell as BarCell, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCount, formatPercent, formatUtcDay } from '@/common/format';
import { rejectReasonLabel, surfaceLabel } from '@/common/labels';
import { ChartCard } from './chart-card';
import {
  ACTIVE_DOT,
  AXIS,
  CATEGORY_AXIS,
  CHART,
  CHART_HEIGHT,
  DOT,
  GRID,
  LEGEND,
  PALETTE,
  SERIES,
  SectionState,
  TOOLTIP,
  ZERO_BAR,
  countOf,
  dayTick,
  percentTick,
} from './charts';
import { useInsightsFilter, useInsightsSection } from './use-insights';

const pct = (v: unknown) => formatPercent(v as number | null);
const cnt = (v: unknown) => formatCount(Number(v));
const fixes = countOf('fix', 'fixes');

export function AdoptionView() {
  const [query] = useInsightsFilter();
  const { data, isLoading, error } = useInsightsSection('adoption', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const a = data.data;
  const bucketLabel = query.bucket === 'day' ? 'day (UTC)' : 'week of (UTC)';
  const noPosted = a.posted === 0 ? 'No fix was posted in this period, so nothing could be previewed or applied.' : null;
  const surfaces = a.surfaces.map((s) => ({ ...s, label: surfaceLabel(s.surface) }));
  const kinds = [
    { kind: 'Accept', count: a.decisions.accept, fill: PALETTE.green },
    { kind: 'Edit, then accept', count: a.decisions.editAccept, fill: PALETTE.teal },
    { kind: 'Reject', count: a.decisions.reject, fill: PALETTE.red },
  ];
  const reasonKeys = [...new Set(a.rejectReasons.flatMap((r) => Object.keys(r.reasons)))].sort();
  const reasonData = a.rejectReasons.map((r) => ({ bucket: r.bucket, ...Object.fromEntries(reasonKeys.map((k) => [k, r.reasons[k] ?? 0])) }));
  return (
    <div className="stack">
      <div className="grid-2">
        <ChartCard
          id="adoption-surfaces"
          title="Apply rate per surface"
          subtitle="Applied of previewed on that surface, and applied there of every posted fix."
          table={{
            columns: [
              { label: 'surface' },
              { label: 'previewed', numeric: true, format: cnt },
              { label: 'applied', numeric: true, format: cnt },
              { label: 'apply/preview', numeric: true, format: pct },
              { label: 'apply/posted', numeric: true, format: pct },
            ],
            rows: surfaces.map((s) => [s.label, s.previewed, s.applied, s.applyPerPreview, s.applyPerPosted]),
          }}
          empty={noPosted}
        >
          <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
            <BarChart {...CHART} data={surfaces} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid {...GRID} />
              <XAxis dataKey="label" {...AXIS} {...CATEGORY_AXIS} />
              <YAxis tickFormatter={percentTick} domain={[0, 1]} {...AXIS} width={48} />
              <Tooltip {...TOOLTIP} formatter={pct} />
              <Legend {...LEGEND} />
              <Bar
                isAnimationActive={false}
                dataKey="applyPerPreview"
                name="Applied of previewed"
                fill={PALETTE.blue}
                radius={[4, 4, 0, 0]}
                maxBarSize={36}
                minPointSize={ZERO_BAR}
              />
              <Bar
                isAnimationActive={false}
                dataKey="applyPerPosted"
                name="Applied of posted"
                fill={PALETTE.violet}
                radius={[4, 4, 0, 0]}
                maxBarSize={36}
                minPointSize={ZERO_BAR}
              />
            </BarChart>
          </ResponsiveContainer>
        </ChartCard>
        <ChartCard
          id="adoption-decisions"
          title="Decisions"
          subtitle="Accept, edit-then-accept and reject, on posted fixes."
          table={{ columns: [{ label: 'decision' }, { label: 'count', numeric: true, format: cnt }], rows: kinds.map((k) => [k.kind, k.count]) }}
          empty={noPosted ?? (kinds.every((k) => k.count === 0) ? 'Fixes were posted, but nobody has decided on one yet.' : null)}
        >
          <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
            <BarChart {...CHART} data={kinds} layout="vertical" margin={{ top: 8, right: 24, bottom: 0, left: 8 }}>
              <CartesianGrid {...GRID} horizontal={false} vertical />
              <XAxis type="number" allowDecimals={false} {...AXIS} />
              <YAxis type="category" dataKey="kind" width={130} {...AXIS} />
              <Tooltip {...TOOLTIP} formatter={cnt} />
              <Bar isAnimationActive={false} dataKey="count" name="Decisions" radius={[0, 4, 4, 0]} fill={PALETTE.blue} maxBarSize={36} minPointSize={ZERO_BAR}>
                {kinds.map((k) => (
                  <BarCell key={k.kind} fill={k.fill} />
                ))}
              </Bar>
            </BarChart>
          </ResponsiveContainer>
        </ChartCard>
      </div>
      <ChartCard
        id="adoption-trend"
        title="Adoption over time"
        subtitle={`Posted fixes per ${query.bucket === 'day' ? 'day' : 'week'} of first failure, and the share applied.`}
        table={{
          columns: [
            { label: bucketLabel },
            { label: 'posted', numeric: true, format: cnt },
            { label: 'previewed', numeric: true, format: cnt },
            { label: 'applied', numeric: true, format: cnt },
            { label: 'rejected', numeric: true, format: cnt },
            { label: 'apply/preview', numeric: true, format: pct },
            { label: 'apply/posted', numeric: true, format: pct },
          ],
          rows: a.trend.map((t) => [t.bucket.slice(0, 10), t.posted, t.previewed, t.applied, t.rejected, t.applyPerPreview, t.applyPerPosted]),
        }}
        empty={noPosted}
      >
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <ComposedChart {...CHART} data={a.trend} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid {...GRID} />
            <XAxis dataKey="bucket" tickFormatter={dayTick} {...AXIS} />
            <YAxis yAxisId="n" allowDecimals={false} {...AXIS} width={40} />
            <YAxis yAxisId="r" orientation="right" domain={[0, 1]} tickFormatter={percentTick} {...AXIS} width={48} />
            <Tooltip
              {...TOOLTIP}
              labelFormatter={(l) => `${query.bucket === 'day' ? '' : 'Week of '}${formatUtcDay(String(l))} (UTC)`}
              formatter={(v, name) => (String(name).startsWith('Applied of') ? pct(v) : cnt(v))}
            />
            <Legend {...LEGEND} />
            <Bar
              isAnimationActive={false}
              yAxisId="n"
              dataKey="posted"
              name="Fixes posted"
              minPointSize={ZERO_BAR}
              fill={PALETTE.violet}
              fillOpacity={0.35}
              stroke={PALETTE.violet}
              radius={[4, 4, 0, 0]}
              maxBarSize={36}
            />
            <Bar
              isAnimationActive={false}
              yAxisId="n"
              dataKey="applied"
              name="Fixes applied"
              minPointSize={ZERO_BAR}
              fill={PALETTE.green}
              fillOpacity={0.6}
              stroke={PALETTE.green}
              radius={[4, 4, 0, 0]}
              maxBarSize={36}
            />
            <Line
              isAnimationActive={false}
              yAxisId="r"
              dataKey="applyPerPreview"
              name="Applied of previewed"
              stroke={PALETTE.blue}
              strokeWidth={2}
              dot={DOT}
              activeDot={ACTIVE_DOT}
              connectNulls
            />
            <Line
              isAnimationActive={false}
              yAxisId="r"
              dataKey="applyPerPosted"
              name="Applied of posted"
              stroke={PALETTE.amber}
              strokeWidth={2}
              dot={DOT}
              activeDot={ACTIVE_DOT}
              connectNulls
            />
          </ComposedChart>
        </ResponsiveContainer>
      </ChartCard>
      <div className="grid-2">
        <ChartCard
          id="adoption-reject-reasons"
          title="Reject reasons over time"
          subtitle="What reviewers said when they rejected a fix."
          table={{
            columns: [{ label: bucketLabel }, ...reasonKeys.map((k) => ({ label: rejectReasonLabel(k), numeric: true, format: cnt }))],
            rows: reasonData.map((r) => [r.bucket.slice(0, 10), ...reasonKeys.map((k) => (r as Record<string, number | string>)[k] as number)]),
          }}
          empty={reasonData.length === 0 ? 'No fix was rejected in this period.' : null}
        >
          <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
            <BarChart {...CHART} data={reasonData} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid {...GRID} />
              <XAxis dataKey="bucket" tickFormatter={dayTick} {...AXIS} />
              <YAxis allowDecimals={false} {...AXIS} width={36} />
              <Tooltip
                {...TOOLTIP}
                labelFormatter={(l) => `${query.bucket === 'day' ? '' : 'Week of '}${formatUtcDay(String(l))} (UTC): rejected fixes`}
                formatter={fixes}
              />
              <Legend {...LEGEND} />
              {reasonKeys.map((k, i) => (
                <Bar isAnimationActive={false} key={k} dataKey={k} name={rejectReasonLabel(k)} stackId="r" fill={SERIES[i % SERIES.length]} maxBarSize={36} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </ChartCard>
        <ChartCard
          id="adoption-repositories"
          title="Per repository"
          subtitle="Posted fixes and the share applied."
          table={{
            columns: [
              { label: 'repository' },
              { label: 'posted', numeric: true, format: cnt },
              { label: 'previewed', numeric: true, format: cnt },
              { label: 'applied', numeric: true, format: cnt },
              { label: 'rejected', numeric: true, format: cnt },
              { label: 'apply/preview', numeric: true, format: pct },
              { label: 'apply/posted', numeric: true, format: pct },
            ],
            rows: a.repositories.map((r) => [r.repository, r.posted, r.previewed, r.applied, r.rejected, r.applyPerPreview, r.applyPerPosted]),
          }}
          empty={noPosted}
        >
          <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
            <BarChart {...CHART} data={a.repositories} layout="vertical" margin={{ top: 8, right: 24, bottom: 0, left: 8 }}>
              <CartesianGrid {...GRID} horizontal={false} vertical />
              <XAxis type="number" domain={[0, 1]} tickFormatter={percentTick} {...AXIS} />
              <YAxis type="category" dataKey="repository" width={150} {...AXIS} />
              <Tooltip {...TOOLTIP} formatter={pct} />
              <Legend {...LEGEND} />
              <Bar
                isAnimationActive={false}
                dataKey="applyPerPreview"
                name="Applied of previewed"
                fill={PALETTE.blue}
                radius={[0, 4, 4, 0]}
                maxBarSize={36}
                minPointSize={ZERO_BAR}
              />
              <Bar
                isAnimationActive={false}
                dataKey="applyPerPosted"
                name="Applied of posted"
                fill={PALETTE.violet}
                radius={[0, 4, 4, 0]}
                maxBarSize={36}
                minPointSize={ZERO_BAR}
              />
            </BarChart>
          </ResponsiveContainer>
        </ChartCard>
      </div>
    </div>
  );
}
