import { z } from 'zod';
import { RejectReason, Surface } from '../generated/prisma/enums';
import { diffPathProblems } from '../diff/apply';
import { APPLY_KINDS } from '../../common/decisions';

// Boundaries of a reviewer's decisions on a fix: the request bodies of the
// decision routes and the apply claim stored on Fix.applyClaim while an
// accept is writing its commit.

export const SurfaceSchema = z.enum(Object.values(Surface) as [Surface, ...Surface[]]);
export type SurfaceName = z.infer<typeof SurfaceSchema>;

/** How the caller authenticated, as lib/http/route.ts's handlers see it. */
export type AuthChannel = 'cookie' | 'personal_token' | 'editor_token' | 'token';

const SURFACE_OF: Record<AuthChannel, SurfaceName> = { cookie: 'DASHBOARD', personal_token: 'CLI', editor_token: 'IDE', token: 'API' };

/**
 * The surface a decision is recorded with, from how the caller authenticated:
 * the dashboard's session cookie, a personal token issued for the command
 * line (CLI) or for the editor extension (IDE), or an API token. Never from
 * the request body, so adoption per surface cannot be written by whoever
 * sends the request.
 */
export function surfaceFor(via: AuthChannel): SurfaceName {
  return SURFACE_OF[via];
}

// A body naming a surface is refused rather than silently overruled, so a
// client that still sends one learns at once that it means nothing.
const NoSurface = z
  .undefined({
    error:
      'surface is set by the server from how you authenticated (dashboard session, a command-line or editor personal token, API token); leave it out of the body',
  })
  .optional();

export const RejectReasonSchema = z.enum(Object.values(RejectReason) as [RejectReason, ...RejectReason[]]);

export const RejectFixBodySchema = z
  .object({
    reason: RejectReasonSchema,
    text: z.string().trim().max(2000).optional(),
    surface: NoSurface,
  })
  .strict()
  .refine((v) => v.reason !== 'OTHER' || (v.text !== undefined && v.text.length > 0), {
    message: 'Say why in a few words when the reason is "other"',
    path: ['text'],
  });
export type RejectFixBody = z.infer<typeof RejectFixBodySchema>;

export const PreviewBodySchema = z.object({ surface: NoSurface }).strict();

export const AcceptBodySchema = z
  .object({
    surface: NoSurface,
    // branch: flowfix commits the fix on the change's branch (the dashboard's accept);
    // local: the caller applied the patch in their own checkout (`flowfix fix apply`),
    // flowfix only records the decision
    mode: z.enum(['branch', 'local']).default('branch'),
    // local: the revision the caller's checkout is at (the editor sends it); a
    // fix made for another revision is stale there and is refused, as the
    // branch mode refuses a branch that moved
    headRev: z
      .string()
      .regex(/^[0-9a-f]{7,64}$/, 'headRev is a commit id')
      .optional(),
  })
  .strict()
  .refine((b) => b.headRev === undefined || b.mode === 'local', { message: 'headRev goes with mode "local"', path: ['headRev'] });

/** A unified diff as a reviewer may send it: text, bounded, with at least one file header. */
export const EditedDiffSchema = z
  .string()
  .max(4 * 1024 * 1024, 'The edited diff is larger than 4 MB')
  .refine((d) => d.trim().length > 0, 'The edited diff is empty')
  .refine((d) => /^(diff --git |--- )/m.test(d) && /^\+\+\+ /m.test(d), 'This is not a unified diff')
  .superRefine((d, ctx) => {
    // checked here, at the route, so such a diff never reaches a run's workspace
    for (const problem of diffPathProblems(d)) ctx.addIssue({ code: 'custom', message: `The edited diff writes outside the workspace: ${problem}` });
  });

// either the edited diff, or the modified sides the reviewer edited in the diff
// editor (the server builds the diff). One object rather than a union so each
// field's own message (a path outside the workspace…) reaches the caller.
export const EditAcceptBodySchema = z
  .object({
    diff: EditedDiffSchema.optional(),
    files: z
      .array(z.object({ path: z.string().min(1).max(1000), modified: z.string().max(2_000_000) }))
      .min(1)
      .max(100)
      .optional(),
    surface: NoSurface,
  })
  .strict()
  .refine((b) => (b.diff === undefined) !== (b.files === undefined), { message: 'Send either the edited diff or the edited files, not both' });
export type EditAcceptBody = z.infer<typeof EditAcceptBodySchema>;

/** Stored on Fix.applyClaim while the fix is APPLYING: what to record once the commit is on the branch. */
export const ApplyClaimSchema = z.object({
  kind: z.enum(APPLY_KINDS),
  surface: SurfaceSchema,
  /** EDIT_ACCEPT: the diff that was applied instead of the fix's own */
  editedDiff: z.string().optional(),
  /** EDIT_ACCEPT: the REVALIDATE run that passed it */
  runId: z.string().optional(),
});
export type ApplyClaim = z.infer<typeof ApplyClaimSchema>;
