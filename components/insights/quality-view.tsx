'use client';

import { Bar, BarChart, CartesianGrid, ErrorBar, LabelList, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { NoFixCategory } from '@/common/exit-reasons';
import { formatCount, formatPercent } from '@/common/format';
import type { GradedPrecision } from '@/lib/insights';
import { ChartCard } from './chart-card';
import { AXIS, CHART_HEIGHT, GRID, LEGEND, PALETTE, SectionState, TOOLTIP, Tiles, humanise, percentTick } from './charts';
import { useInsightsFilter, useInsightsSection } from './use-insights';

type Row = GradedPrecision['overall'];
const LABELS = ['correct', 'overfitting', 'incorrect', 'irrelevant'] as const;
const LABEL_COLOURS = { correct: PALETTE.green, overfitting: PALETTE.amber, incorrect: PALETTE.red, irrelevant: PALETTE.slate };
const CATEGORY_LABELS: Record<NoFixCategory, string> = {
  not_reproduced: 'Not reproduced',
  not_caused_by_change: 'Not caused by the change',
  mislocalised: 'Mislocalised (the developer changed other files)',
  compile_rejected: 'Every candidate failed the compile gate',
  green_not_reached: 'GREEN never reached',
  regression_failed: 'Regression suite failed',
  budget_exhausted: 'Budget or time exhausted',
  model_unavailable: 'Model endpoint unavailable',
  worker_lost: 'Worker lost',
  setup_failed: 'Setup failed',
  cancelled: 'Cancelled',
  other: 'Other',
};
const NO_GRADES = 'No grades yet — start a grading queue to measure precision.';

function precisionTable(rows: Row[]) {
  return {
    columns: [
      { label: 'group' },
      { label: 'settled', numeric: true },
      ...LABELS.flatMap((l) => [
        { label: `${l} share`, numeric: true, format: (v: unknown) => formatPercent(v as number | null) },
        { label: `${l} 95% low`, numeric: true, format: (v: unknown) => formatPercent(v as number | null) },
        { label: `${l} 95% high`, numeric: true, format: (v: unknown) => formatPercent(v as number | null) },
      ]),
    ],
    rows: rows.map((r) => [r.label, r.settled, ...LABELS.flatMap((l) => [r[l].share, r[l].low, r[l].high])]),
  };
}

function PrecisionCard({ id, title, rows }: { id: string; title: string; rows: Row[] }) {
  const data = rows
    .filter((r) => r.settled > 0)
    .map((r) => ({
      label: r.label,
      settled: r.settled,
      share: r.correct.share,
      // ErrorBar takes the distances below and above the share
      err: [(r.correct.share ?? 0) - (r.correct.low ?? 0), (r.correct.high ?? 0) - (r.correct.share ?? 0)],
    }));
  return (
    <ChartCard
      id={id}
      title={title}
      subtitle="Share judged correct, with its 95% Wilson interval."
      table={precisionTable(rows)}
      empty={data.length === 0 ? NO_GRADES : null}
    >
      <ResponsiveContainer width="100%" height={Math.max(140, 44 * data.length + 40)}>
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 24, bottom: 4, left: 8 }}>
          <CartesianGrid {...GRID} horizontal={false} vertical />
          <XAxis type="number" domain={[0, 1]} tickFormatter={percentTick} {...AXIS} />
          <YAxis type="category" dataKey="label" width={140} {...AXIS} />
          <Tooltip {...TOOLTIP} formatter={(v) => formatPercent(Number(v))} />
          <Bar dataKey="share" name="correct" fill={PALETTE.green} radius={[0, 4, 4, 0]} maxBarSize={36}>
            <ErrorBar dataKey="err" width={6} strokeWidth={1.5} stroke="currentColor" direction="x" />
            <LabelList dataKey="share" position="insideLeft" className="insights-bar-label insights-bar-label-on" formatter={(v: unknown) => formatPercent(v as number)} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

export function QualityView() {
  const [query] = useInsightsFilter();
  const { data, isLoading, error } = useInsightsSection('quality', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const { noFix, precision } = data.data;
  const o = precision.overall;
  const vs = precision.reviewersVsGraders;
  const labelData = [{ label: 'settled fixes', ...Object.fromEntries(LABELS.map((l) => [l, o[l].share])) }];
  const categories = noFix.categories.filter((c) => c.count > 0).map((c) => ({ ...c, label: CATEGORY_LABELS[c.category] }));
  return (
    <div className="stack">
      <Tiles
        tiles={[
          {
            label: 'Precision (correct)',
            value: o.settled === 0 ? 'no data' : formatPercent(o.correct.share),
            detail: o.settled === 0 ? 'no settled grades in this period' : `95% CI ${formatPercent(o.correct.low)}–${formatPercent(o.correct.high)} · ${formatCount(o.settled)} settled`,
            testId: 'quality-precision',
          },
          { label: 'Overfitting', value: formatPercent(o.overfitting.share) },
          { label: 'Incorrect', value: formatPercent(o.incorrect.share) },
          {
            label: 'Applied, judged bad',
            value: vs.acceptedSettled === 0 ? 'no data' : `${vs.acceptedJudgedBad} of ${vs.acceptedSettled}`,
            detail: 'applied fixes the graders judged overfitting or incorrect',
          },
          {
            label: 'Rejected, judged correct',
            value: vs.rejectedSettled === 0 ? 'no data' : `${vs.rejectedJudgedCorrect} of ${vs.rejectedSettled}`,
            detail: vs.rejectedCorrectByReason.map((r) => `${humanise(r.reason)} ${r.count}`).join(' · ') || 'rejected fixes the graders judged correct',
          },
        ]}
      />
      <p className="insights-note">Precision counts the fixes created in the period that the graders settled; the author and trigger filters do not apply to it.</p>
      <ChartCard id="quality-labels" title="Graders' verdicts" subtitle="Settled labels of the fixes created in the period." table={precisionTable([o])} empty={o.settled === 0 ? NO_GRADES : null}>
        <ResponsiveContainer width="100%" height={110}>
          <BarChart data={labelData} layout="vertical" stackOffset="expand" margin={{ top: 4, right: 16, bottom: 4, left: 8 }}>
            <XAxis type="number" tickFormatter={percentTick} {...AXIS} />
            <YAxis type="category" dataKey="label" hide />
            <Tooltip {...TOOLTIP} formatter={(v) => formatPercent(Number(v))} />
            <Legend {...LEGEND} />
            {LABELS.map((l) => (
              <Bar key={l} dataKey={l} name={l} stackId="l" fill={LABEL_COLOURS[l]} maxBarSize={36} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
      <div className="grid-2">
        <PrecisionCard id="quality-repository" title="Precision per repository" rows={precision.byRepository} />
        <PrecisionCard id="quality-policy" title="Precision per policy" rows={precision.byPolicy} />
      </div>
      <PrecisionCard id="quality-model" title="Precision per model" rows={precision.byModel} />
      <ChartCard
        id="quality-no-fix"
        title="Why runs produced no fix"
        subtitle={`${formatCount(noFix.noFixRuns)} of ${formatCount(noFix.finishedRuns)} finished repair runs, by the reason they stopped.`}
        table={{
          columns: [
            { label: 'category' },
            { label: 'runs', numeric: true },
            { label: 'share', numeric: true, format: (v) => formatPercent(v as number | null) },
            { label: 'exit reasons' },
          ],
          rows: noFix.categories.map((c) => [CATEGORY_LABELS[c.category], c.count, c.share, Object.entries(c.exitReasons).map(([k, n]) => `${k}: ${n}`).join('; ')]),
        }}
        empty={noFix.noFixRuns === 0 ? (noFix.finishedRuns === 0 ? 'No repair run finished in this period.' : 'Every finished run produced a fix.') : null}
      >
        <ResponsiveContainer width="100%" height={Math.max(160, 40 * categories.length + 40)}>
          <BarChart data={categories} layout="vertical" margin={{ top: 4, right: 24, bottom: 4, left: 8 }}>
            <CartesianGrid {...GRID} horizontal={false} vertical />
            <XAxis type="number" allowDecimals={false} {...AXIS} />
            <YAxis type="category" dataKey="label" width={250} {...AXIS} />
            <Tooltip {...TOOLTIP} formatter={(v) => formatCount(Number(v))} />
            <Bar dataKey="count" name="runs" fill={PALETTE.red} radius={[0, 4, 4, 0]} maxBarSize={36} />
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
    </div>
  );
}
