import 'server-only';
import { ratio } from '../../common/insights-query';
import { funnel } from './funnel';
import { fixLatency } from './latency';
import { costTotal } from './cost';
import { precisionFilter } from './quality';
import { precision } from '../grading/precision';
import { scopeReader, type InsightsScope } from './scope';
import type { InsightsReader } from './read';
import type { Prisma } from '../generated/prisma/client';

// The manager's landing page: the numbers that matter for the cohort of the
// last 7 whole UTC days (up to today's midnight) against the 7 days before
// (the filter's period is replaced, everything else it says is kept). Whole
// days on both sides, so the two weeks are equally long: a week ending now
// would hold part of today against seven whole days.

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
  const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  const weekAgo = new Date(today.getTime() - WEEK_MS);
  const twoWeeksAgo = new Date(today.getTime() - 2 * WEEK_MS);
  const week = { ...scope, from: weekAgo, to: today };
  const before = { ...scope, from: twoWeeksAgo, to: weekAgo };
  const [thisWeek, lastWeek] = await Promise.all([headline(week, scopeReader(tx, week)), headline(before, scopeReader(tx, before))]);
  return {
    thisWeek: { ...thisWeek, from: weekAgo.toISOString(), to: today.toISOString() },
    lastWeek: { ...lastWeek, from: twoWeeksAgo.toISOString(), to: weekAgo.toISOString() },
  };
}
