import 'server-only';
import { ratio, resolvePeriod } from '../../common/insights-query';
import { funnel } from './funnel';
import { fixLatency } from './latency';
import { costTotal } from './cost';
import { precisionFilter } from './quality';
import { precision } from './precision';
import { scopeReader, type InsightsScope } from './scope';
import type { InsightsReader } from './read';
import type { Prisma } from '../generated/prisma/client';

// The manager's landing page: the numbers that matter for this week's cohort
// against last week's (the filter's period is replaced, everything else it
// says is kept). This week is the "7d" period of every other page (today up
// to now, and the 6 whole UTC days before), so a decision made today counts
// today and the overview's figures are the funnel's and the cost page's for
// period=7d; last week is the 7 whole days before it.

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

export interface HeadlineNumbers {
  fixesPosted: number;
  /** applied / posted */
  applyRate: number | null;
  /** failure reported → fix posted, minutes */
  p50LatencyMinutes: number | null;
  costPerApplied: number | null;
  totalCostUsd: number;
  /** settled fixes created in the week judged correct, with its 95% Wilson interval */
  precision: { settled: number; share: number | null; low: number | null; high: number | null };
}

export interface Overview {
  thisWeek: HeadlineNumbers & { from: string; to: string };
  lastWeek: HeadlineNumbers & { from: string; to: string };
}

async function headline(scope: InsightsScope, reader: InsightsReader): Promise<HeadlineNumbers> {
  const [f, fix, c, [p]] = await Promise.all([
    funnel({ scope, reader }),
    fixLatency({ scope, reader }),
    costTotal({ scope, reader }),
    precision(precisionFilter(scope), undefined, { reader }),
  ]);
  const step = (k: string) => f.steps.find((s) => s.key === k)!.count;
  return {
    fixesPosted: step('posted'),
    applyRate: ratio(step('applied'), step('posted')),
    p50LatencyMinutes: fix.p50,
    costPerApplied: c.costPerApplied,
    totalCostUsd: c.costUsd,
    precision: { settled: p!.settled, share: p!.correct.share, low: p!.correct.low, high: p!.correct.high },
  };
}

/** `tx`: the snapshot the page reads in (read.ts); each week gets its own reader. */
export async function overview({ scope, now = new Date(), tx }: { scope: InsightsScope; now?: Date; tx: Prisma.TransactionClient }): Promise<Overview> {
  const { from, to } = resolvePeriod({ period: '7d' }, now);
  const weekStart = from!;
  const lastWeekStart = new Date(weekStart.getTime() - WEEK_MS);
  const week = { ...scope, from: weekStart, to };
  const before = { ...scope, from: lastWeekStart, to: weekStart };
  const [thisWeek, lastWeek] = await Promise.all([headline(week, scopeReader(tx, week)), headline(before, scopeReader(tx, before))]);
  return {
    thisWeek: { ...thisWeek, from: weekStart.toISOString(), to: to.toISOString() },
    lastWeek: { ...lastWeek, from: lastWeekStart.toISOString(), to: weekStart.toISOString() },
  };
}
