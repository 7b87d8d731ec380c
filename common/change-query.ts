import { z } from 'zod';

// The triage list's filters as they travel in a URL query string: the API
// route parses them with ChangeListQuerySchema and the page builds its links
// with toChangeListSearchParams, so a URL copied from the address bar and an
// API call say the same thing. No server imports here: the browser uses it too.

export const CHANGE_STATUSES = ['NEW', 'SKIPPED', 'QUEUED', 'RUNNING', 'FIX_READY', 'NO_FIX', 'APPLIED', 'REJECTED', 'STALE'] as const;
export type ChangeStatusName = (typeof CHANGE_STATUSES)[number];

export const AUTHOR_KINDS = ['HUMAN', 'BOT'] as const;
export type AuthorKindName = (typeof AUTHOR_KINDS)[number];

/** Demo history (origin DEMO_HISTORY): shown or hidden. */
export const HISTORY_MODES = ['include', 'exclude'] as const;
export type HistoryMode = (typeof HISTORY_MODES)[number];

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
/** Above this many matches the list says "1000+" instead of counting on. */
export const TOTAL_COUNT_CAP = 1000;

const FUNNEL_REASON = /^(skipped|dropped):[A-Za-z0-9_.:-]{1,100}$/;

/** An Insights funnel reason's drill-down, as the triage list applies it. */
export interface FunnelDrillDown {
  step: 'skipped' | 'dropped';
  reason: string;
  /** ISO instant; null = all time */
  from: string | null;
  to: string;
  policy?: string;
  model?: string;
  trigger?: 'AUTO' | 'MANUAL' | 'REVALIDATE';
}

/** The filters' drill-down, or null when they name none. */
export function funnelDrillDown(f: Partial<ChangeListFilters>): FunnelDrillDown | null {
  if (!f.funnel || !f.firstTo) return null;
  const at = f.funnel.indexOf(':');
  return {
    step: f.funnel.slice(0, at) as FunnelDrillDown['step'],
    reason: f.funnel.slice(at + 1),
    from: f.firstFrom ?? null,
    to: f.firstTo,
    policy: f.policy,
    model: f.model,
    trigger: f.trigger,
  };
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d{1,5})([mhd])$/;

/** "90m", "24h", "7d" → milliseconds. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** A text query parameter: trimmed, at most `max` characters, absent when empty. */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((v) => (v ? v : undefined));

const DurationSchema = z.string().trim().regex(DURATION, 'must be a whole number followed by m, h or d (e.g. 24h)').optional();

// Multi-valued status: "FIX_READY,NO_FIX" (case-insensitive). Repeated
// ?status= parameters are joined with commas before parsing.
const StatusListSchema = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(CHANGE_STATUSES)).max(CHANGE_STATUSES.length))
  .transform((list) => (list.length ? [...new Set(list)] : undefined));

export const ChangeListQuerySchema = z
  .object({
    status: StatusListSchema,
    repo: optionalText(200),
    kind: z
      .string()
      .optional()
      .transform((v) => (v ? v.toUpperCase() : undefined))
      .pipe(z.enum(AUTHOR_KINDS).optional()),
    history: z.enum(HISTORY_MODES).default('include'),
    author: optionalText(200),
    /** exact status reason: the pre-execution filter that skipped a change, "dropped:<filter>", a run's exit reason */
    reason: optionalText(200),
    q: optionalText(200),
    /** an Insights funnel reason's drill-down (lib/insights/drill-down.ts): "skipped:<filter>" or "dropped:<filter>" */
    funnel: z.string().trim().regex(FUNNEL_REASON, 'must be skipped:<reason> or dropped:<reason>').optional(),
    /** with funnel: the cohort, changes first failing in [firstFrom, firstTo) (ISO instants; no firstFrom = all time) */
    firstFrom: z.string().datetime().optional(),
    firstTo: z.string().datetime().optional(),
    /** with funnel: the runs Insights selected */
    policy: optionalText(40),
    model: optionalText(200),
    trigger: z
      .string()
      .optional()
      .transform((v) => (v ? v.toUpperCase() : undefined))
      .pipe(z.enum(['AUTO', 'MANUAL', 'REVALIDATE']).optional()),
    // age = time since the change's latest failure report
    minAge: DurationSchema,
    maxAge: DurationSchema,
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.minAge && v.maxAge && parseDuration(v.minAge)! > parseDuration(v.maxAge)!) {
      ctx.addIssue({ code: 'custom', path: ['minAge'], message: 'minAge must not exceed maxAge' });
    }
    if (v.funnel && !v.firstTo) ctx.addIssue({ code: 'custom', path: ['firstTo'], message: 'a funnel drill-down needs firstTo' });
  });

export type ChangeListQuery = z.output<typeof ChangeListQuerySchema>;

export interface ChangeListFilters {
  status?: ChangeStatusName[];
  /** repository name */
  repo?: string;
  kind?: AuthorKindName;
  history: HistoryMode;
  /** exact author name */
  author?: string;
  /** exact status reason ("known_flaky", "dropped:stale", "not_reproduced") */
  reason?: string;
  /** substring of title, external id, author or branch (case-insensitive) */
  q?: string;
  /** an Insights funnel reason: "skipped:known_flaky", "dropped:stale" (see funnelDrillDown) */
  funnel?: string;
  firstFrom?: string;
  firstTo?: string;
  policy?: string;
  model?: string;
  trigger?: 'AUTO' | 'MANUAL' | 'REVALIDATE';
  /** failed at least this long ago ("7d") */
  minAge?: string;
  /** failed at most this long ago ("24h") */
  maxAge?: string;
}

// the schema's output must stay usable as filters
const _filtersFitSchema: (q: ChangeListQuery) => ChangeListFilters = (q) => q;
void _filtersFitSchema;

/** URLSearchParams → the plain object the schema reads (repeated keys joined). */
export function searchParamsToObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of new Set(params.keys())) out[key] = params.getAll(key).join(',');
  return out;
}

/** Filters → query string, omitting defaults so shared URLs stay short. */
export function toChangeListSearchParams(filters: Partial<ChangeListFilters>, extra: { cursor?: string; limit?: number } = {}): URLSearchParams {
  const p = new URLSearchParams();
  if (filters.status?.length) p.set('status', filters.status.join(','));
  if (filters.repo) p.set('repo', filters.repo);
  if (filters.kind) p.set('kind', filters.kind.toLowerCase());
  if (filters.history && filters.history !== 'include') p.set('history', filters.history);
  if (filters.author) p.set('author', filters.author);
  if (filters.reason) p.set('reason', filters.reason);
  if (filters.q) p.set('q', filters.q);
  if (filters.minAge) p.set('minAge', filters.minAge);
  if (filters.maxAge) p.set('maxAge', filters.maxAge);
  if (filters.funnel) p.set('funnel', filters.funnel);
  if (filters.firstFrom) p.set('firstFrom', filters.firstFrom);
  if (filters.firstTo) p.set('firstTo', filters.firstTo);
  if (filters.policy) p.set('policy', filters.policy);
  if (filters.model) p.set('model', filters.model);
  if (filters.trigger) p.set('trigger', filters.trigger.toLowerCase());
  if (extra.cursor) p.set('cursor', extra.cursor);
  if (extra.limit !== undefined && extra.limit !== DEFAULT_PAGE_SIZE) p.set('limit', String(extra.limit));
  return p;
}

const FILTER_KEYS = new Set([
  'status',
  'repo',
  'kind',
  'history',
  'author',
  'reason',
  'q',
  'minAge',
  'maxAge',
  'funnel',
  'firstFrom',
  'firstTo',
  'policy',
  'model',
  'trigger',
]);

/** Parses the page URL leniently: an invalid parameter is dropped, not fatal. */
export function filtersFromSearchParams(params: URLSearchParams): ChangeListFilters {
  const all = searchParamsToObject(params);
  const raw = Object.fromEntries(Object.entries(all).filter(([k]) => FILTER_KEYS.has(k)));
  const parsed = ChangeListQuerySchema.safeParse(raw);
  if (parsed.success) {
    const { cursor: _c, limit: _l, ...filters } = parsed.data;
    return filters;
  }
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])));
  const kept = Object.fromEntries(Object.entries(raw).filter(([k]) => !bad.has(k)));
  const retry = ChangeListQuerySchema.safeParse(kept);
  const { cursor: _c, limit: _l, ...filters } = retry.success ? retry.data : ChangeListQuerySchema.parse({});
  return filters;
}
