'use client';

import Link from 'next/link';
import { formatCost, formatDateTime, formatDuration, formatPercent } from '@/common/format';
import type { Overview } from '@/lib/insights';
import { toInsightsSearchParams } from '@/common/insights-query';
import { shareChange, type ShareEstimate } from '@/common/stats';
import { Definitions, SectionState } from './charts';
import { useInsightsFilter, useInsightsSection } from './use-insights';

type Numbers = Overview['current'];

interface Kpi {
  key: string;
  label: string;
  href: string;
  value: (n: Numbers) => number | null;
  /** a share's 95% interval: its change is coloured only when the two periods' intervals do not overlap */
  interval?: (n: Numbers) => ShareEstimate;
  format: (v: number | null) => string;
  /** true: higher is better */
  up: boolean;
  /** how the change is shown: a ratio's change in points, else relative */
  delta: 'points' | 'relative';
  hint: string;
}

const KPIS: Kpi[] = [
  {
    key: 'posted',
    label: 'Fixes posted',
    href: '/insights/funnel',
    value: (n) => n.fixesPosted,
    format: (v) => (v === null ? '—' : v.toLocaleString()),
    up: true,
    delta: 'relative',
    hint: 'fixes that passed every filter and reached a reviewer',
  },
  {
    key: 'apply',
    label: 'Apply rate',
    href: '/insights/adoption',
    value: (n) => n.applyRate,
    interval: (n) => ({ share: n.applyRate, ...n.applyInterval }),
    format: (v) => formatPercent(v),
    up: true,
    delta: 'points',
    hint: 'applied (accept or edit-accept) of posted',
  },
  {
    key: 'latency',
    label: 'p50 failure → fix',
    href: '/insights/latency',
    value: (n) => n.p50LatencyMinutes,
    format: (v) => (v === null ? '—' : formatDuration(v * 60_000)),
    up: false,
    delta: 'relative',
    hint: 'median time from the failure report to the fix posted',
  },
  {
    key: 'precision',
    label: 'Precision',
    href: '/insights/quality',
    value: (n) => n.precision.share,
    interval: (n) => n.precision,
    format: (v) => formatPercent(v),
    up: true,
    delta: 'points',
    hint: 'settled fixes the graders judged correct',
  },
  {
    key: 'cost',
    label: 'Cost per applied fix',
    href: '/insights/cost',
    value: (n) => n.costPerApplied,
    format: (v) => (v === null ? '—' : formatCost(v)),
    up: false,
    delta: 'relative',
    hint: 'all runs’ model cost over the fixes applied',
  },
];

function intervalText(e: ShareEstimate): string | null {
  return e.low === null || e.high === null ? null : `95% CI ${formatPercent(e.low, 0)}–${formatPercent(e.high, 0)}`;
}

function Delta({ kpi, now, before }: { kpi: Kpi; now: Numbers; before: Numbers | null }) {
  const a = kpi.value(now);
  const b = before ? kpi.value(before) : null;
  if (a === null || b === null || !before)
    return (
      <span className="insights-delta insights-delta-none" data-trend="none">
        no comparison
      </span>
    );
  const diff = a - b;
  if (diff === 0)
    return (
      <span className="insights-delta insights-delta-flat" data-trend="same">
        unchanged
      </span>
    );
  const text =
    kpi.delta === 'points'
      ? `${diff > 0 ? '+' : '−'}${Math.abs(diff * 100).toFixed(1)} pts`
      : b === 0
        ? `${diff > 0 ? '+' : '−'}${kpi.format(Math.abs(diff))}`
        : `${diff > 0 ? '+' : '−'}${Math.abs((diff / b) * 100).toFixed(0)}%`;
  // a share's change inside the chance of its intervals is said, not coloured
  if (kpi.interval && shareChange(kpi.interval(now), kpi.interval(before)) === 'unclear') {
    return (
      <span className="insights-delta insights-delta-flat" data-trend="unclear" title="The two periods’ 95% intervals overlap: the change may be chance.">
        {text} · within the intervals, may be chance
      </span>
    );
  }
  const better = kpi.up ? diff > 0 : diff < 0;
  return (
    <span className={`insights-delta ${better ? 'insights-delta-good' : 'insights-delta-bad'}`} data-trend={better ? 'better' : 'worse'}>
      {diff > 0 ? '▲' : '▼'} {text}
    </span>
  );
}

export function OverviewView() {
  const [query] = useInsightsFilter();
  // a figure's page for the same period
  const qs = toInsightsSearchParams(query).toString();
  const { data, isLoading, error } = useInsightsSection('overview', query);
  if (!data) return <SectionState isLoading={isLoading} error={error} />;
  const { current, previous, days } = data.data;
  const before = previous ? `previous ${days === 1 ? 'day' : `${days} days`}` : null;
  return (
    <div className="stack">
      <p className="insights-note" data-testid="overview-period">
        {current.from
          ? `Changes that first failed from ${formatDateTime(current.from)} up to ${formatDateTime(current.to)}, the period of the filter above, against the ${days === 1 ? 'day' : `${days} days`} before it.`
          : 'Changes that first failed at any time (the period of the filter above): there is no earlier period to compare with.'}
      </p>
      <div className="insights-kpis" data-testid="insights-kpis">
        {KPIS.map((kpi) => {
          const now = kpi.value(current);
          const then = previous ? kpi.value(previous) : null;
          const interval = kpi.interval ? intervalText(kpi.interval(current)) : null;
          return (
            <Link key={kpi.key} href={qs ? `${kpi.href}?${qs}` : kpi.href} className="insights-kpi" data-testid={`kpi-${kpi.key}`}>
              <span className="insights-kpi-label">{kpi.label}</span>
              <span className="insights-kpi-value">{now === null ? <span className="insights-nodata">no data</span> : kpi.format(now)}</span>
              {interval && (
                <span className="insights-kpi-before" data-testid={`kpi-${kpi.key}-interval`}>
                  {interval}
                  {kpi.key === 'precision' && ` · ${current.precision.settled} settled`}
                </span>
              )}
              <Delta kpi={kpi} now={current} before={previous} />
              {previous && (
                <span className="insights-kpi-before">
                  {before}: {then === null ? 'no data' : kpi.format(then)}
                  {kpi.interval && intervalText(kpi.interval(previous)) ? ` (${intervalText(kpi.interval(previous))})` : ''}
                  {kpi.key === 'precision' && ` · ${previous.precision.settled} settled`}
                </span>
              )}
              <span className="insights-kpi-hint">{kpi.hint}</span>
            </Link>
          );
        })}
      </div>
      <Definitions />
      {current.precision.settled === 0 && <p className="insights-note">No grades settled in this period yet — start a grading queue to measure precision.</p>}
    </div>
  );
}
