import { z } from 'zod';
import { optionalText, searchParamsToObject, type ChangeListFilters } from './change-query';

// The Insights filter as it travels in a URL query string: one filter for
// every section (the API route parses it with InsightsQuerySchema, the pages
// build their links with toInsightsSearchParams). Periods are whole UTC days
// (the days the figures are kept per): a preset is the last N days, today
// (up to now) and the N − 1 before it, the same days a custom period from
// N − 1 days ago to today covers; a custom period is whole UTC days from
// `from` to `to` inclusive. No server imports: the browser uses it too.

export const PERIOD_PRESETS = ['7d', '30d', '90d', 'all', 'custom'] as const;
export type PeriodPreset = (typeof PERIOD_PRESETS)[number];

export const BUCKETS = ['day', 'week'] as const;
export type Bucket = (typeof BUCKETS)[number];

export const RUN_TRIGGERS = ['AUTO', 'MANUAL', 'REVALIDATE'] as const;
export type RunTriggerName = (typeof RUN_TRIGGERS)[number];

export const INSIGHTS_SECTIONS = ['overview', 'funnel', 'adoption', 'latency', 'cost', 'quality'] as const;
export type InsightsSection = (typeof INSIGHTS_SECTIONS)[number];

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const DateSchema = z
  .string()
  .trim()
  .regex(DATE, 'must be a UTC date YYYY-MM-DD')
  // a day that does not exist (2026-02-30) would roll over into the next month
  .refine((v) => {
    const t = Date.parse(`${v}T00:00:00Z`);
    return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === v;
  }, 'is not a date')
  .optional();

export const InsightsQuerySchema = z
  .object({
    period: z.enum(PERIOD_PRESETS).default('30d'),
    /** custom period: first UTC day, inclusive */
    from: DateSchema,
    /** custom period: last UTC day, inclusive */
    to: DateSchema,
    /** repository name */
    repo: optionalText(200),
    /** offline | llm | tiered */
    policy: optionalText(40),
    model: optionalText(200),
    trigger: z
      .string()
      .optional()
      .transform((v) => (v ? v.toUpperCase() : undefined))
      .pipe(z.enum(RUN_TRIGGERS).optional()),
    /** human or bot authors */
    author: z
      .string()
      .optional()
      .transform((v) => (v ? v.toUpperCase() : undefined))
      .pipe(z.enum(['HUMAN', 'BOT']).optional()),
    bucket: z.enum(BUCKETS).default('week'),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.period !== 'custom') return;
    if (!v.from || !v.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'a custom period needs from and to' });
    else if (v.from > v.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must not be after to' });
  });

export type InsightsQuery = z.output<typeof InsightsQuerySchema>;

const FILTER_KEYS = new Set(['period', 'from', 'to', 'repo', 'policy', 'model', 'trigger', 'author', 'bucket']);

/** The filter's own parameters of a query string, nothing else. */
function filterParams(params: URLSearchParams): Record<string, unknown> {
  return Object.fromEntries(Object.entries(searchParamsToObject(params)).filter(([k]) => FILTER_KEYS.has(k)));
}

/** The API's query string → the filter (422 on an invalid one, through the route wrapper). */
export function parseInsightsQuery(params: URLSearchParams): InsightsQuery {
  const raw = filterParams(params);
  return InsightsQuerySchema.parse(raw);
}

/** The page URL, leniently: an invalid parameter is dropped, not fatal. */
export function insightsQueryFromSearchParams(params: URLSearchParams): InsightsQuery {
  const raw = filterParams(params);
  const parsed = InsightsQuerySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])));
  // a broken custom period falls back to the default period
  if (bad.has('from') || bad.has('to')) ['period', 'from', 'to'].forEach((k) => bad.add(k));
  const kept = Object.fromEntries(Object.entries(raw).filter(([k]) => !bad.has(k)));
  const retry = InsightsQuerySchema.safeParse(kept);
  return retry.success ? retry.data : InsightsQuerySchema.parse({});
}

/** Filter → query string, omitting defaults so shared URLs stay short. */
export function toInsightsSearchParams(q: Partial<InsightsQuery>): URLSearchParams {
  const p = new URLSearchParams();
  if (q.period && q.period !== '30d') p.set('period', q.period);
  if (q.period === 'custom') {
    if (q.from) p.set('from', q.from);
    if (q.to) p.set('to', q.to);
  }
  if (q.repo) p.set('repo', q.repo);
  if (q.policy) p.set('policy', q.policy);
  if (q.model) p.set('model', q.model);
  if (q.trigger) p.set('trigger', q.trigger.toLowerCase());
  if (q.author) p.set('author', q.author.toLowerCase());
  if (q.bucket && q.bucket !== 'week') p.set('bucket', q.bucket);
  return p;
}

export interface ResolvedPeriod {
  /** inclusive; null for all time */
  from: Date | null;
  /** exclusive */
  to: Date;
}

/** The period as UTC instants: presets are today up to now and the N − 1 days before; custom periods cover whole UTC days. */
export function resolvePeriod(q: Pick<InsightsQuery, 'period' | 'from' | 'to'>, now: Date): ResolvedPeriod {
  switch (q.period) {
    case 'all':
      return { from: null, to: now };
    case 'custom':
      return {
        from: new Date(`${q.from}T00:00:00Z`),
        to: new Date(Date.parse(`${q.to}T00:00:00Z`) + DAY_MS),
      };
    default: {
      const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
      return { from: new Date(today - (Number(q.period.slice(0, -1)) - 1) * DAY_MS), to: now };
    }
  }
}

/** A share shown as a percentage, or null ("no data") when the denominator is 0. */
export function ratio(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

/**
 * The triage list's filters for the changes one funnel reason's bar counted:
 * the same cohort (changes first failing in the answer's period, of the
 * repository and author kind asked for) and, for a dropped fix, the same
 * runs (policy, model, trigger). The list selects them with the bar's own SQL
 * (lib/insights/drill-down.ts), so its count is the bar's.
 */
export function funnelReasonFilters({
  step,
  reason,
  period,
  query,
}: {
  step: 'skipped' | 'dropped';
  reason: string;
  /** the Insights answer's period (UTC ISO instants; from null = all time) */
  period: { from: string | null; to: string };
  query: Pick<InsightsQuery, 'repo' | 'author' | 'policy' | 'model' | 'trigger'>;
}): ChangeListFilters {
  return {
    funnel: `${step}:${reason}`,
    firstFrom: period.from ?? undefined,
    firstTo: period.to,
    repo: query.repo,
    kind: query.author,
    ...(step === 'dropped' ? { policy: query.policy, model: query.model, trigger: query.trigger } : {}),
    // the demo's history is part of every Insights figure
    history: 'include',
  };
}
