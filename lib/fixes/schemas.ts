import { z } from 'zod';
import { RejectReason, Surface } from '../generated/prisma/enums';

// Boundaries of a reviewer's decisions on a fix: the request bodies of the
// decision routes and the apply claim stored on Fix.applyClaim while an
// accept is writing its commit.

export const SurfaceSchema = z.enum(Object.values(Surface) as [Surface, ...Surface[]]);
export type SurfaceName = z.infer<typeof SurfaceSchema>;

export const RejectReasonSchema = z.enum(Object.values(RejectReason) as [RejectReason, ...RejectReason[]]);

export const RejectFixBodySchema = z
  .object({
    reason: RejectReasonSchema,
    text: z.string().trim().max(2000).optional(),
    surface: SurfaceSchema.optional(),
  })
  .strict()
  .refine((v) => v.reason !== 'OTHER' || (v.text !== undefined && v.text.length > 0), {
    message: 'Say why in a few words when the reason is "other"',
    path: ['text'],
  });
export type RejectFixBody = z.infer<typeof RejectFixBodySchema>;

export const PreviewBodySchema = z.object({ surface: SurfaceSchema.optional() }).strict();

export const AcceptBodySchema = z
  .object({
    surface: SurfaceSchema.optional(),
    // branch: flowfix commits the fix on the change's branch (the dashboard's accept);
    // local: the caller applied the patch in their own checkout (`flowfix fix apply`),
    // flowfix only records the decision
    mode: z.enum(['branch', 'local']).default('branch'),
  })
  .strict();

/** A unified diff as a reviewer may send it: text, bounded, with at least one file header. */
export const EditedDiffSchema = z
  .string()
  .max(4 * 1024 * 1024, 'The edited diff is larger than 4 MB')
  .refine((d) => d.trim().length > 0, 'The edited diff is empty')
  .refine((d) => /^(diff --git |--- )/m.test(d) && /^\+\+\+ /m.test(d), 'This is not a unified diff');

export const EditAcceptBodySchema = z.union([
  z.object({ diff: EditedDiffSchema, surface: SurfaceSchema.optional() }).strict(),
  // the modified sides the reviewer edited in the diff editor; the server builds the diff
  z
    .object({
      files: z.array(z.object({ path: z.string().min(1).max(1000), modified: z.string().max(2_000_000) })).min(1).max(100),
      surface: SurfaceSchema.optional(),
    })
    .strict(),
]);
export type EditAcceptBody = z.infer<typeof EditAcceptBodySchema>;

/** Stored on Fix.applyClaim while the fix is APPLYING: what to record once the commit is on the branch. */
export const ApplyClaimSchema = z.object({
  kind: z.enum(['ACCEPT', 'EDIT_ACCEPT']),
  surface: SurfaceSchema,
  /** EDIT_ACCEPT: the diff that was applied instead of the fix's own */
  editedDiff: z.string().optional(),
  /** EDIT_ACCEPT: the REVALIDATE run that passed it */
  runId: z.string().optional(),
});
export type ApplyClaim = z.infer<typeof ApplyClaimSchema>;
