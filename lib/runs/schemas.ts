import { z } from 'zod';
import { UsageSchema } from '../../common/run-events';
import { RunPolicySchema } from '../../common/settings';
import { isExitReason } from '../../common/exit-reasons';

// Boundaries of the run lifecycle: what a route may ask for, what travels
// through the queue, what a worker reports. lib/ never imports agent/, so the
// worker's RepairResult is described here as the subset the database keeps.
// The events of a run are common/run-events.ts's contract.

export const RunTriggerSchema = z.enum(['AUTO', 'MANUAL', 'REVALIDATE']);

export const RequestRunInputSchema = z
  .object({
    changeId: z.string().min(1),
    revisionId: z.string().min(1).optional(),
    trigger: RunTriggerSchema,
    policy: RunPolicySchema,
    model: z.string().min(1).max(200).optional(),
    requestedById: z.string().min(1).optional(),
    sourceFixId: z.string().min(1).optional(),
    inputDiff: z
      .string()
      .max(4 * 1024 * 1024)
      .optional(),
  })
  .refine((v) => v.trigger !== 'REVALIDATE' || (v.sourceFixId && v.inputDiff !== undefined), {
    message: 'a REVALIDATE run needs sourceFixId and inputDiff',
    path: ['sourceFixId'],
  });
export type RequestRunInput = z.input<typeof RequestRunInputSchema>;

/** POST /api/changes/[id]/runs */
export const StartRunBodySchema = z
  .object({
    policy: RunPolicySchema.optional(),
  })
  .strict();

/** What a worker reports when a run ends (a projection of agent/pipeline.ts RepairResult). */
export const FinishRunResultSchema = z.object({
  status: z.enum(['fixed', 'no_fix', 'failed', 'cancelled']),
  // only the named reasons and `dropped:<filter>` (common/exit-reasons.ts): a reason Insights cannot name is refused here
  exitReason: z
    .string()
    .min(1)
    .max(200)
    .refine(isExitReason, { error: (issue) => `"${String(issue.input)}" is not a known exit reason (common/exit-reasons.ts)` }),
  exitDetail: z.string().max(20_000).optional(),
  diff: z.string().default(''),
  files: z.array(z.string()).default([]),
  summaryHtml: z.string().default(''),
  evidence: z.record(z.string(), z.unknown()).default({}),
  phaseTimings: z.record(z.string(), z.number()).default({}),
  usage: UsageSchema.default({ promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 }),
  dropped: z.object({ reason: z.string().min(1), detail: z.string() }).optional(),
  /** the pipeline's own final event payload, folded into the stored final event */
  finalPayload: z.record(z.string(), z.unknown()).optional(),
});
export type FinishRunResult = z.input<typeof FinishRunResultSchema>;
