import type { DecisionKind } from '../lib/generated/prisma/enums';

// What a reviewer does with a fix, as the database names it (Decision.kind).
// Plain data (the type import is erased), so client components may use it.

/** Every decision kind; a PREVIEW is recorded too (it feeds the funnel) but decides nothing. */
export const DECISION_KINDS = ['PREVIEW', 'ACCEPT', 'EDIT_ACCEPT', 'REJECT'] as const satisfies readonly DecisionKind[];

/** The decisions that decide: the fix is applied (as it is, or edited) or rejected. */
export const VERDICT_KINDS = ['ACCEPT', 'EDIT_ACCEPT', 'REJECT'] as const satisfies readonly DecisionKind[];
export type VerdictKind = (typeof VERDICT_KINDS)[number];

/** The decisions that apply the fix. */
export const APPLY_KINDS = ['ACCEPT', 'EDIT_ACCEPT'] as const satisfies readonly VerdictKind[];
export type ApplyKind = (typeof APPLY_KINDS)[number];

export function isApplyKind(kind: string): kind is ApplyKind {
  return (APPLY_KINDS as readonly string[]).includes(kind);
}
