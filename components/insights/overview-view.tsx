'use client';

import Link from 'next/link';
import { formatCost, formatDateTime, formatDuration, formatPercent } from '@/common/format';
import type { Overview } from '@/lib/insights';
import { toInsightsSearchParams } from '@/common/insights-query';
import { Definitions, SectionState } from './charts';
import { useInsightsFilter, useInsightsSection } from './use-insights';

type Numbers = Overview['thisWeek'];

interface Kpi {
  key: string;
  label: string;
  href: string;
  value: (n: Numbers) => number | null;
  format: (v: number | null) => string;
  /** true: higher is better */
  up: boolean;
  /** how the change is shown: a ratio's change in points, else relative */
  delta: 'points' | 'relative';
  hint: string;
}

const KPIS: Kpi[] = [
  { key: 'posted', label: 'Fixes posted', href: '/insights/funnel', value: (n) => n.fixesPosted, format: (v) => (v === null ? '—' : v.toLocaleString()), up: true, delta: 'relative', hint: 'fixes that passed every filter and reached a reviewer' },
  { key: 'apply', label: 'Apply rate', href: '/insights/adoption', value: (n) => n.applyRate, format: (v) => formatPercent(v), up: true, delta: 'points', hint: 'applied (accept or edit-accept) of posted' },
  { key: 'latency', label: 'p50 failure → fix', href: '/insights/latency', value: (n) => n.p50LatencyMinutes, format: (v) => (v === null ? '—' : formatDuration(v * 60_000)), up: false, delta: 'relative', hint: 'median time from the failure report to the fix posted' },
  { key: 'precision', label: 'Precision', href: '/insights/quality', value: (n) => n.precision.share, format: (v) => formatPercent(v), up: true, delta: 'points', hint: 'settled fixes the graders judged correct' },
  { key: 'cost', label: 'Cost per applied fix', href: '/insights/cost', value: (n) => n.costPerApplied, format: (v) => (v === null ? '—' : formatCost(v)), up: false, delta: 'relative', hint: 'all runs’ model cost over the fixes applied' },
];

function Delta({ kpi, now, before }: { kpi: Kpi; now: number | null; before: number | null }) {
  if (now === null || before === null) return <span className="insights-delta insights-delta-none">no comparison</span>;
  const diff = now - before;
  if (diff === 0) return <span className="insights-delta insights-delta-flat">unchanged</span>;
  const better = kpi.up ? diff > 0 : diff < 0;
  const text =
    kpi.delta === 'points'
      ? `${diff > 0 ? '+' : '−'}${Math.abs(diff * 100).toFixed(1)} pts`
      : before === 0
        ? `${diff > 0 ? '+' : '−'}${kpi.format(Math.abs(diff))}`
        : `${diff > 0 ? '+' : '−'}${Math.abs((diff / before) * 100).toFixed(0)}%`;
  return (
    <span className={`insights-delta ${better ? 'insights-delta-good' : 'insights-delta-bad'}`}>
      {diff > 0 ? '▲' : '▼'} {text}
    </span>
  );
}

export function OverviewView() {
  const [query] = useInsightsFilter();
  // a figure's page for the same week: period 7d is this week
  const qs = toInsightsSearchParams({ ...query, period: '7d' }).toString();
  const { data, isLoading, error } = useInsightsSection('overview', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const { thisWeek, lastWeek } = data.data;
  return (
    <div className="stack">
      <p className="insights-note">
        This week: changes that first failed from {formatDateTime(thisWeek.from)} up to now ({formatDateTime(thisWeek.to)}), today included: the
        period “Last 7 days” of the other pages, against the 7 days before it. The period filter does not apply here; every other filter does.
      </p>
      <div className="insights-kpis" data-testid="insights-kpis">
        {KPIS.map((kpi) => {
          const now = kpi.value(thisWeek);
          const before = kpi.value(lastWeek);
          return (
            <Link key={kpi.key} href={qs ? `${kpi.href}?${qs}` : kpi.href} className="insights-kpi" data-testid={`kpi-${kpi.key}`}>
              <span className="insights-kpi-label">{kpi.label}</span>
              <span className="insights-kpi-value">{now === null ? <span className="insights-nodata">no data</span> : kpi.format(now)}</span>
              <Delta kpi={kpi} now={now} before={before} />
              <span className="insights-kpi-before">
                last week: {before === null ? 'no data' : kpi.format(before)}
                {kpi.key === 'precision' && ` · ${thisWeek.precision.settled} settled this week`}
              </span>
              <span className="insights-kpi-hint">{kpi.hint}</span>
            </Link>
          );
        })}
      </div>
      <Definitions />
      {thisWeek.precision.settled === 0 && (
        <p className="insights-note">No grades settled this week yet — start a grading queue to measure precision.</p>
      )}
    </div>
  );
}
