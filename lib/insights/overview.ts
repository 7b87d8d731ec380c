import 'server-only';
import { getDb, type Db } from '../db';
import { ratio } from '../../common/insights-query';
import { funnel } from './funnel';
import { latency } from './latency';
import { cost } from './cost';
import { precisionFilter } from './quality';
import { precision } from '../grading/precision';
import type { InsightsScope } from './scope';

// The manager's landing page: the numbers that matter for the cohort of the
// last 7 days against the 7 days before (the filter's period is replaced,
// everything else it says is kept).

const WEEK_MS = 7 * 86_400_000;

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

async function headline(scope: InsightsScope, db: Db): Promise<HeadlineNumbers> {
  const [f, l, c, [p]] = await Promise.all([
    funnel({ scope, db }),
    latency({ scope, db }),
    cost({ scope, db }),
    precision(precisionFilter(scope)),
  ]);
  const step = (k: string) => f.steps.find((s) => s.key === k)!.count;
  return {
    fixesPosted: step('posted'),
    applyRate: ratio(step('applied'), step('posted')),
    p50LatencyMinutes: l.fix.p50,
    costPerApplied: c.total.costPerApplied,
    totalCostUsd: c.total.costUsd,
    precision: { settled: p.settled, share: p.correct.share, low: p.correct.low, high: p.correct.high },
  };
}

export async function overview({ scope, now = new Date(), db = getDb() }: { scope: InsightsScope; now?: Date; db?: Db }): Promise<Overview> {
  const weekAgo = new Date(now.getTime() - WEEK_MS);
  const twoWeeksAgo = new Date(now.getTime() - 2 * WEEK_MS);
  const [thisWeek, lastWeek] = await Promise.all([
    headline({ ...scope, from: weekAgo, to: now }, db),
    headline({ ...scope, from: twoWeeksAgo, to: weekAgo }, db),
  ]);
  return {
    thisWeek: { ...thisWeek, from: weekAgo.toISOString(), to: now.toISOString() },
    lastWeek: { ...lastWeek, from: twoWeeksAgo.toISOString(), to: weekAgo.toISOString() },
  };
}
