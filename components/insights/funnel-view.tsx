'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { Bar, BarChart, CartesianGrid, Cell as BarCell, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { toChangeListSearchParams } from '@/common/change-query';
import { formatCount, formatPercent } from '@/common/format';
import type { InsightsQuery } from '@/common/insights-query';
import type { Funnel } from '@/lib/insights';
import { ChartCard, type Cell } from './chart-card';
import { AXIS, GRID, PALETTE, SERIES, SectionState, TOOLTIP, humanise } from './charts';
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

/** The triage list showing the changes a funnel reason counted (approximately the period: the list filters on the latest failure). */
export function triageHref({ step, reason, query }: { step: 'skipped' | 'dropped'; reason: string; query: InsightsQuery }): string {
  const qs = toChangeListSearchParams({
    status: step === 'skipped' ? ['SKIPPED'] : undefined,
    reason: step === 'skipped' ? reason : `dropped:${reason}`,
    repo: query.repo,
    kind: query.author,
    maxAge: ['7d', '30d', '90d'].includes(query.period) ? query.period : undefined,
    history: 'include',
  });
  return `/changes?${qs}`;
}

function ReasonCard({ funnel, step, query }: { funnel: Funnel; step: 'skipped' | 'dropped'; query: InsightsQuery }) {
  const router = useRouter();
  const s = funnel.steps.find((x) => x.key === step)!;
  const reasons = s.reasons ?? [];
  const data = reasons.map((r) => ({ ...r, label: humanise(r.reason), href: triageHref({ step, reason: r.reason, query }) }));
  const rows: Cell[][] = reasons.map((r) => [r.reason, r.count, r.share]);
  return (
    <ChartCard
      id={`funnel-${step}-reasons`}
      title={step === 'skipped' ? 'Why changes were skipped' : 'Why fixes were dropped'}
      subtitle={step === 'skipped' ? 'Pre-execution filters, before any run. Click a reason to see its changes.' : 'Post-execution filters, after a fix was found. Click a reason to see its changes.'}
      table={{
        columns: [{ label: 'reason' }, { label: 'count', numeric: true, format: (v) => formatCount(Number(v)) }, { label: 'share', numeric: true, format: (v) => formatPercent(v as number | null) }],
        rows,
      }}
      empty={reasons.length === 0 ? (step === 'skipped' ? 'No change was skipped in this period.' : 'No fix was dropped in this period.') : null}
      footer={
        <ul className="insights-reason-links" data-testid={`funnel-${step}-links`}>
          {data.map((r) => (
            <li key={r.reason}>
              <Link href={r.href} data-reason={r.reason}>
                {r.label}
              </Link>{' '}
              <span className="muted">
                {formatCount(r.count)} · {formatPercent(r.share)}
              </span>
            </li>
          ))}
        </ul>
      }
    >
      <ResponsiveContainer width="100%" height={Math.max(120, 36 * data.length + 30)}>
        <BarChart data={data} layout="vertical" margin={{ left: 8, right: 56, top: 4, bottom: 4 }}>
          <CartesianGrid {...GRID} horizontal={false} vertical />
          <XAxis type="number" {...AXIS} allowDecimals={false} />
          <YAxis type="category" dataKey="label" width={170} {...AXIS} />
          <Tooltip {...TOOLTIP} formatter={(v) => formatCount(Number(v))} />
          <Bar
            dataKey="count"
            name="changes"
            fill={step === 'skipped' ? PALETTE.amber : PALETTE.red}
            radius={[0, 4, 4, 0]}
            cursor="pointer"
            maxBarSize={36}
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
  const { data, isLoading, error } = useInsightsSection('funnel', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const funnel = data.data;
  const steps = funnel.steps.map((s) => ({
    ...s,
    label: STEP_LABELS[s.key],
    text: `${formatCount(s.count)}${s.retention === null ? '' : `  (${formatPercent(s.retention)})`}`,
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
            { label: 'share of', },
            { label: 'retention', numeric: true, format: (v) => formatPercent(v as number | null) },
            { label: 'of changes', numeric: true, format: (v) => formatPercent(v as number | null) },
          ],
          rows: funnel.steps.map((s) => [STEP_LABELS[s.key], s.count, s.base ? STEP_LABELS[s.base] : null, s.retention, s.ofChanges]),
        }}
        empty={changes === 0 ? 'No failing change in this period: widen the period or clear a filter.' : null}
      >
        <ResponsiveContainer width="100%" height={330}>
          <BarChart data={steps} layout="vertical" margin={{ left: 8, right: 110, top: 4, bottom: 4 }}>
            <CartesianGrid {...GRID} horizontal={false} vertical />
            <XAxis type="number" {...AXIS} allowDecimals={false} />
            <YAxis type="category" dataKey="label" width={230} {...AXIS} />
            <Tooltip {...TOOLTIP} formatter={(v) => formatCount(Number(v))} />
            <Bar dataKey="count" name="count" radius={[0, 4, 4, 0]} maxBarSize={36}>
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
          {formatCount(funnel.notAttempted)} {funnel.notAttempted === 1 ? 'change was' : 'changes were'} neither skipped nor attempted by the runs this filter selects (waiting, or repaired by another policy or model).
        </p>
      )}
      <div className="grid-2">
        <ReasonCard funnel={funnel} step="skipped" query={query} />
        <ReasonCard funnel={funnel} step="dropped" query={query} />
      </div>
    </div>
  );
}
