import { z } from 'zod';

// The admin audit log's filters as they travel in a query string: the API
// routes parse them with AuditQuerySchema, the page builds its links and its
// export URLs with toAuditSearchParams, so the export holds exactly what the
// filter shows. No server imports: the browser uses this module too.

export const AUDIT_PAGE_SIZE = 50;
export const AUDIT_MAX_PAGE_SIZE = 200;
/** An export larger than this asks for a narrower filter instead of building a huge file. */
export const AUDIT_EXPORT_MAX_ROWS = 50_000;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

// "2026-12-01" or a full ISO instant; a bare day as `to` means up to the end of that day (UTC)
function instant(edge: 'from' | 'to') {
  return z
    .string()
    .trim()
    .max(40)
    .refine((v) => !Number.isNaN(Date.parse(v)), 'must be a date (YYYY-MM-DD) or an ISO time')
    .transform((v) => (DAY.test(v) && edge === 'to' ? new Date(Date.parse(v) + 86_400_000 - 1) : new Date(v)));
}

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

export const AuditFilterSchema = z
  .object({
    // a user id
    actor: z.preprocess(blankToUndefined, z.string().trim().max(128).optional()),
    // an exact action ("auth.signin.failure") or a family ending in "." ("auth.")
    action: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .max(100)
        .regex(/^[a-z0-9_.]+$/, 'letters, digits, "_" and "." only')
        .optional(),
    ),
    from: z.preprocess(blankToUndefined, instant('from').optional()),
    to: z.preprocess(blankToUndefined, instant('to').optional()),
  })
  .refine((f) => !f.from || !f.to || f.from <= f.to, { message: '"from" is after "to"', path: ['from'] });
export type AuditFilter = z.infer<typeof AuditFilterSchema>;

export const AuditPageQuerySchema = AuditFilterSchema.and(
  z.object({
    // the id of the last entry of the previous page (entries are newest first)
    cursor: z.preprocess(
      blankToUndefined,
      z
        .string()
        .regex(/^\d{1,19}$/, 'not a cursor this server issued')
        .optional(),
    ),
    limit: z.coerce.number().int().min(1).max(AUDIT_MAX_PAGE_SIZE).default(AUDIT_PAGE_SIZE),
  }),
);

export const AuditExportQuerySchema = AuditFilterSchema.and(z.object({ format: z.enum(['csv', 'json']) }));

/** The raw filter values (as typed in the form) → query-string parameters, blanks left out. */
export function toAuditSearchParams(
  filter: { actor?: string; action?: string; from?: string; to?: string },
  extra: Record<string, string> = {},
): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...filter, ...extra })) if (v && v.trim()) params.set(k, v.trim());
  return params;
}
