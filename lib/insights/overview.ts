import 'server-only';
import { ratio } from '../../common/insights-query';
import { wilson } from '../../common/stats';
import { funnel } from './funnel';
import { fixLatency } from './latency';
import { costTotal } from './cost';
import { precisionFilter } from './quality';
import { precision } from './precision';
import { scopeReader, type InsightsScope } from './scope';
import type { InsightsReader } from './read';
import type { Prisma } from '../generated/prisma/client';

// The manager's landing page: the numbers that matter for the filter's
// period (the same cohort the other pages show for it) against the period of
// as many days just before it. "Last 7 days" is today up to now and the 6
// whole UTC days before, against the 7 whole days before those; "All time"
// has nothing before it, so it has no comparison. Shares come with their 95%
// Wilson interval, so the page can tell a change from noise.

const DAY_MS = 86_400_000;

export interface Interval {
  low: number | null;
  high: number | null;
}

export interface HeadlineNumbers {
  fixesPosted: number;
  /** applied / posted */
  applyRate: number | null;
  /** the apply rate's 95% Wilson interval (applied out of posted) */
  applyInterval: Interval;
  /** failure reported → fix posted, minutes */
  p50LatencyMinutes: number | null;
  costPerApplied: number | null;
  totalCostUsd: number;
  /** settled fixes created in the period judged correct, with its 95% Wilson interval */
  precision: { settled: number; share: number | null } & Interval;
}

export interface Overview {
  /** the filter's period */
  current: HeadlineNumbers & { from: string | null; to: string };
  /** as many days just before it; null for all time */
  previous: (HeadlineNumbers & { from: string; to: string }) | null;
  /** the period's length in days (a partial today counts as a day); null for all time */
  days: number | null;
}

async function headline(scope: InsightsScope, reader: InsightsReader): Promise<HeadlineNumbers> {
  const [f, fix, c, [p]] = await Promise.all([
    funnel({ scope, reader }),
    fixLatency({ scope, reader }),
    costTotal({ scope, reader }),
    precision(precisionFilter(scope), undefined, { reader }),
  ]);
  const step = (k: string) => f.steps.find((s) => s.key === k)!.count;
  const posted = step('posted');
  const applied = step('applied');
  const apply = wilson(applied, posted);
  return {
    fixesPosted: posted,
    applyRate: ratio(applied, posted),
    applyInterval: { low: apply?.low ?? null, high: apply?.high ?? null },
    p50LatencyMinutes: fix.p50,
    costPerApplied: c.costPerApplied,
    totalCostUsd: c.costUsd,
    precision: { settled: p!.settled, share: p!.correct.share, low: p!.correct.low, high: p!.correct.high },
  };
}

/** `tx`: the snapshot the page reads in (read.ts); each period gets its own reader. */
export async function overview({ scope, tx }: { scope: InsightsScope; tx: Prisma.TransactionClient }): Promise<Overview> {
  const { from, to } = scope;
  if (from === null) {
    const current = await headline(scope, scopeReader(tx, scope));
    return { current: { ...current, from: null, to: to.toISOString() }, previous: null, days: null };
  }
  // a preset's today is partial (it ends now): it still counts as one of its days
  const days = Math.ceil((to.getTime() - from.getTime()) / DAY_MS);
  const before = { ...scope, from: new Date(from.getTime() - days * DAY_MS), to: from };
  const [current, previous] = await Promise.all([headline(scope, scopeReader(tx, scope)), headline(before, scopeReader(tx, before))]);
  return {
    current: { ...current, from: from.toISOString(), to: to.toISOString() },
    previous: { ...previous, from: before.from.toISOString(), to: from.toISOString() },
    days,
  };
}
