import { ADMIN_ROLES } from '@/common/roles';

/** Who may call an admin route: a signed-in session with an admin role (common/roles.ts ADMIN_ROLES), every route alike. */
export const ADMIN_ACCESS = { auth: 'session', roles: ADMIN_ROLES } as const;
export type AdminAccess = typeof ADMIN_ACCESS;
