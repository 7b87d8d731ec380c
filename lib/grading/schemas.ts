import { z } from 'zod';
import { GRADE_LABELS, GRADE_TAGS, GRADING_TEXT_MAX, rationaleRequired } from '../../common/grading';
import { VERDICT_KINDS } from '../../common/decisions';

// What the grading routes accept. A label outside the four is a 422 that
// names the four; a rationale is required for anything but "correct".

const FIX_STATUSES = ['READY', 'APPLIED', 'REJECTED', 'DROPPED', 'STALE'] as const;
const DECISIONS = [...VERDICT_KINDS, 'NONE'] as const;

const isoDate = z.coerce.date({ error: 'Expected a date (YYYY-MM-DD or an ISO time)' });

/** Which fixes a queue is built from; kept on the queue (with the seed) so it can be built again. */
export const QueueFilterSchema = z
  .object({
    repositoryIds: z.array(z.string().min(1).max(100)).max(100).default([]),
    from: isoDate.optional(),
    to: isoDate.optional(),
    policies: z.array(z.string().min(1).max(40)).max(10).default([]),
    models: z.array(z.string().min(1).max(200)).max(20).default([]),
    statuses: z.array(z.enum(FIX_STATUSES)).max(FIX_STATUSES.length).default([]),
    /** the reviewers' closing decision on the fix; NONE: no decision yet */
    decisions: z.array(z.enum(DECISIONS)).max(DECISIONS.length).default([]),
    /** a random sample of this many matching fixes; absent: every match (up to QUEUE_MAX_ITEMS) */
    sample: z.number().int().min(1).max(10_000).optional(),
    /** the sample's seed; generated (and recorded) when absent */
    seed: z.string().min(1).max(64).optional(),
    /** demo history fixes are left out unless asked for */
    includeHistory: z.boolean().default(false),
    /** only fixes nobody has labelled or settled yet */
    ungradedOnly: z.boolean().default(false),
  })
  .strict();
export type QueueFilter = z.infer<typeof QueueFilterSchema>;

export const QUEUE_MAX_ITEMS = 10_000;

export const CreateQueueSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the queue').max(200),
    instructions: z.string().max(GRADING_TEXT_MAX).default(''),
    gradersPerFix: z.number().int().min(1).max(10).default(3),
    showDecisions: z.boolean().default(false),
    /** user ids; each must have the grader, manager or admin role */
    graderIds: z.array(z.string().min(1).max(100)).min(1, 'Choose at least one grader').max(200),
    leadGraderId: z.string().min(1).max(100).nullable().default(null),
    filter: QueueFilterSchema.default(QueueFilterSchema.parse({})),
  })
  .strict();
export type CreateQueueInput = z.infer<typeof CreateQueueSchema>;

export const UpdateQueueSchema = z.object({ status: z.enum(['OPEN', 'CLOSED']) }).strict();

const labelSchema = z.enum(GRADE_LABELS, {
  error: (issue) => `"${String(issue.input).toLowerCase()}" is not a label: use one of ${GRADE_LABELS.map((l) => l.toLowerCase()).join(', ')}`,
});

/** A label as the API takes it: any case ("correct", "CORRECT"). */
const labelInput = z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), labelSchema);

export const GradeInputSchema = z
  .object({
    label: labelInput,
    tags: z
      .array(z.enum(GRADE_TAGS, { error: `A tag is one of ${GRADE_TAGS.join(', ')}` }))
      .max(GRADE_TAGS.length)
      .default([])
      .transform((tags) => [...new Set(tags)].sort()),
    rationale: z
      .string()
      .max(GRADING_TEXT_MAX)
      .default('')
      .transform((s) => s.trim()),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (rationaleRequired(v.label) && !v.rationale) {
      ctx.addIssue({
        code: 'custom',
        path: ['rationale'],
        message: `Explain why the fix is ${v.label.toLowerCase()}: a rationale is required for every label but correct`,
      });
    }
  });
export type GradeInput = z.infer<typeof GradeInputSchema>;

export const SkipInputSchema = z.object({ reason: z.string().trim().min(1, 'Say why you skip this item').max(GRADING_TEXT_MAX) }).strict();

export const SettleInputSchema = z
  .object({
    label: labelInput,
    note: z.string().trim().min(1, 'Add a note: why this label').max(GRADING_TEXT_MAX),
  })
  .strict();

/** A grader's dispute after the reveal: the label they now propose and why (the note is required). */
export const DisputeInputSchema = z
  .object({
    label: labelInput,
    note: z.string().trim().min(1, 'Add a note: why you would change the label now').max(GRADING_TEXT_MAX),
  })
  .strict();

export const ExportQuerySchema = z.object({ format: z.enum(['csv', 'json']).default('csv') });

export const PrecisionQuerySchema = z.object({
  from: isoDate.optional(),
  to: isoDate.optional(),
  repositoryId: z.string().min(1).max(100).optional(),
  policy: z.string().min(1).max(40).optional(),
  model: z.string().min(1).max(200).optional(),
  groupBy: z.enum(['repository', 'policy', 'model', 'month']).optional(),
});
