'use client';

import { Bar, BarChart, CartesianGrid, ErrorBar, LabelList, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCount, formatPercent } from '@/common/format';
import type { GradedPrecision } from '@/lib/insights';
import { settledSourcesText } from '@/common/grading';
import { exitReasonLabel, noFixCategoryLabel, policyLabel, rejectReasonLabel } from '@/common/labels';
import { ChartCard } from './chart-card';
import { AXIS, CHART, Definitions, GRID, LEGEND, PALETTE, SectionState, TOOLTIP, Tiles, ZERO_BAR, percentTick, useNarrow } from './charts';
import { useInsightsFilter, useInsightsSection } from './use-insights';

type Row = GradedPrecision['overall'];
const LABELS = ['correct', 'overfitting', 'incorrect', 'irrelevant'] as const;
const LABEL_NAMES = { correct: 'Correct', overfitting: 'Overfitting', incorrect: 'Incorrect', irrelevant: 'Irrelevant' };
const LABEL_COLOURS = { correct: PALETTE.green, overfitting: PALETTE.amber, incorrect: PALETTE.red, irrelevant: PALETTE.slate };
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

function PrecisionCard({ id, title, rows: raw, labelOf = (l) => l }: { id: string; title: string; rows: Row[]; labelOf?: (label: string) => string }) {
  const rows = raw.map((r) => ({ ...r, label: labelOf(r.label) }));
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
        <BarChart {...CHART} data={data} layout="vertical" margin={{ top: 4, right: 24, bottom: 4, left: 8 }}>
          <CartesianGrid {...GRID} horizontal={false} vertical />
          <XAxis type="number" domain={[0, 1]} tickFormatter={percentTick} {...AXIS} />
          <YAxis type="category" dataKey="label" width={140} {...AXIS} />
          <Tooltip {...TOOLTIP} formatter={(v) => formatPercent(Number(v))} />
          <Bar
            isAnimationActive={false}
            dataKey="share"
            name="Judged correct (precision)"
            fill={PALETTE.green}
            radius={[0, 4, 4, 0]}
            maxBarSize={36}
            minPointSize={ZERO_BAR}
          >
            <ErrorBar dataKey="err" width={6} strokeWidth={1.5} stroke="currentColor" direction="x" />
            <LabelList
              dataKey="share"
              position="insideLeft"
              className="insights-bar-label insights-bar-label-on"
              formatter={(v: unknown) => formatPercent(v as number)}
            />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/** Says which runs the chart counts, so its figure meets Effort & cost's repair runs. */
function noFixSubtitle(noFix: { runs: number; finishedRuns: number; noFixRuns: number }, trigger: string | undefined): string {
  const unfinished = noFix.runs - noFix.finishedRuns;
  const what = trigger === 'REVALIDATE' ? 're-validation runs' : 'repair runs';
  return (
    `${formatCount(noFix.noFixRuns)} of ${formatCount(noFix.finishedRuns)} finished ${what}, by the reason they stopped` +
    (unfinished > 0 ? ` (of ${formatCount(noFix.runs)} ${what}: ${formatCount(unfinished)} still queued or running).` : '.') +
    (trigger ? '' : ' Re-validations of edited fixes are not repairs: Effort & cost counts them apart.')
  );
}

export function QualityView() {
  const [query] = useInsightsFilter();
  const narrow = useNarrow();
  const { data, isLoading, error } = useInsightsSection('quality', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const { noFix, precision } = data.data;
  const o = precision.overall;
  const vs = precision.reviewersVsGraders;
  const labelData = [{ label: 'settled fixes', ...Object.fromEntries(LABELS.map((l) => [l, o[l].share])) }];
  // every category, a zero drawn as zero
  const categories = noFix.categories.map((c) => ({ ...c, label: noFixCategoryLabel(c.category) }));
  return (
    <div className="stack">
      <Tiles
        tiles={[
          {
            label: 'Precision (correct)',
            value: o.settled === 0 ? 'no data' : formatPercent(o.correct.share),
            detail:
              o.settled === 0 ? (
                'no settled grades in this period'
              ) : (
                <>
                  95% CI {formatPercent(o.correct.low)}–{formatPercent(o.correct.high)} · {formatCount(o.settled)} settled:{' '}
                  <span data-testid="quality-settled-sources">{settledSourcesText(precision.sources)}</span>
                </>
              ),
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
            detail:
              vs.rejectedCorrectByReason.map((r) => `${rejectReasonLabel(r.reason)} ${r.count}`).join(' · ') || 'rejected fixes the graders judged correct',
          },
        ]}
      />
      <p className="insights-note">
        Precision counts the fixes created in the period that the graders settled; the author and trigger filters do not apply to it.
      </p>
      <Definitions />
      <ChartCard
        id="quality-labels"
        title="Graders' verdicts"
        subtitle="Settled labels of the fixes created in the period."
        table={precisionTable([o])}
        empty={o.settled === 0 ? NO_GRADES : null}
      >
        <ResponsiveContainer width="100%" height={110}>
          <BarChart {...CHART} data={labelData} layout="vertical" stackOffset="expand" margin={{ top: 4, right: 16, bottom: 4, left: 8 }}>
            <XAxis type="number" tickFormatter={percentTick} {...AXIS} />
            <YAxis type="category" dataKey="label" hide />
            <Tooltip {...TOOLTIP} formatter={(v) => formatPercent(Number(v))} />
            <Legend {...LEGEND} />
            {LABELS.map((l) => (
              <Bar isAnimationActive={false} key={l} dataKey={l} name={LABEL_NAMES[l]} stackId="l" fill={LABEL_COLOURS[l]} maxBarSize={36} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
      <div className="grid-2">
        <PrecisionCard id="quality-repository" title="Precision per repository" rows={precision.byRepository} />
        <PrecisionCard id="quality-policy" title="Precision per policy" rows={precision.byPolicy} labelOf={policyLabel} />
      </div>
      <PrecisionCard id="quality-model" title="Precision per model" rows={precision.byModel} />
      <ChartCard
        id="quality-no-fix"
        title="Why runs produced no fix"
        subtitle={noFixSubtitle(noFix, query.trigger)}
        table={{
          columns: [
            { label: 'category' },
            { label: 'runs', numeric: true },
            { label: 'share', numeric: true, format: (v) => formatPercent(v as number | null) },
            { label: 'exit reasons' },
          ],
          rows: noFix.categories.map((c) => [
            noFixCategoryLabel(c.category),
            c.count,
            c.share,
            Object.entries(c.exitReasons)
              .map(([k, n]) => `${exitReasonLabel(k)}: ${n}`)
              .join('; '),
          ]),
        }}
        empty={noFix.noFixRuns === 0 ? (noFix.finishedRuns === 0 ? 'No repair run finished in this period.' : 'Every finished run produced a fix.') : null}
      >
        <ResponsiveContainer width="100%" height={Math.max(160, 40 * categories.length + 40)}>
          <BarChart {...CHART} data={categories} layout="vertical" margin={{ top: 4, right: 24, bottom: 4, left: 8 }}>
            <CartesianGrid {...GRID} horizontal={false} vertical />
            <XAxis type="number" allowDecimals={false} {...AXIS} />
            <YAxis type="category" dataKey="label" width={narrow ? 140 : 250} {...AXIS} />
            <Tooltip {...TOOLTIP} formatter={(v) => formatCount(Number(v))} />
            <Bar
              isAnimationActive={false}
              dataKey="count"
              name="Runs without a fix"
              fill={PALETTE.red}
              radius={[0, 4, 4, 0]}
              maxBarSize={36}
              minPointSize={ZERO_BAR}
            >
              <LabelList dataKey="count" position="right" className="insights-bar-label" />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
    </div>
  );
}
