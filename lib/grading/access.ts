import { GRADING_MANAGER_ROLES, GRADING_ROLES } from '../../common/roles';

// The route access rules of the grading API (lib/http/route.ts). Per-queue
// rules (seated graders, the lead grader) are checked in lib/grading.

/** Graders, managers and admins; the queue decides the rest. */
export const GRADING_ACCESS = { auth: 'session', roles: GRADING_ROLES } as const;
/** Managers and admins. */
export const GRADING_MANAGER_ACCESS = { auth: 'session', roles: GRADING_MANAGER_ROLES } as const;

export const NO_STORE = { 'Cache-Control': 'private, no-store' } as const;
