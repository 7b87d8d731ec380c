import type { Role } from '../lib/generated/prisma/enums';

// Who may do what, as the server checks it and the browser shows it. Plain
// data (the type import above is erased), so client components may use it.

export const ROLES = ['REVIEWER', 'GRADER', 'MANAGER', 'ADMIN'] as const satisfies readonly Role[];
export type RoleName = (typeof ROLES)[number];

// every database role is listed above: a new enum value fails to compile here
const everyRoleListed: readonly RoleName[] = [] as Role[];
void everyRoleListed;

/** Decide on fixes (preview, accept, edit, reject) and start or cancel runs. */
export const REVIEW_ROLES = ['REVIEWER', 'ADMIN'] as const satisfies readonly RoleName[];

/**
 * Browse changes, fixes and runs, reviewers' decisions included. A grader who
 * holds no other role meets fixes only through the grading queues, which hide
 * the decisions: a label must not be biased by what a reviewer did.
 */
export const BROWSE_ROLES = ['REVIEWER', 'MANAGER', 'ADMIN'] as const satisfies readonly RoleName[];

/** Repositories, users, tokens and settings. */
export const ADMIN_ROLES = ['ADMIN'] as const satisfies readonly RoleName[];

export function hasRoleIn(roles: readonly string[], allowed: readonly RoleName[]): boolean {
  return roles.some((r) => (allowed as readonly string[]).includes(r));
}

/** Grade fixes in the grading queues they are seated in (managers and admins see every queue). */
export const GRADING_ROLES = ['GRADER', 'MANAGER', 'ADMIN'] as const satisfies readonly RoleName[];

/** Create, close and reopen grading queues, settle disputes, read agreement, precision and exports. */
export const GRADING_MANAGER_ROLES = ['MANAGER', 'ADMIN'] as const satisfies readonly RoleName[];

/** Read Insights: the funnel, adoption, latency, cost and quality. */
export const INSIGHTS_ROLES = ['MANAGER', 'ADMIN'] as const satisfies readonly RoleName[];

/**
 * Where a user lands after signing in: the first page their roles open. A
 * reviewer's work is the review queue; an admin (who may decide too) starts
 * on the triage list of every change.
 */
export function homeFor(roles: readonly string[]): string {
  if (roles.includes('REVIEWER')) return '/review';
  if (hasRoleIn(roles, REVIEW_ROLES)) return '/changes';
  if (hasRoleIn(roles, INSIGHTS_ROLES)) return '/insights';
  if (hasRoleIn(roles, GRADING_ROLES)) return '/grading';
  return '/settings/tokens';
}
