// The demo's sign-in accounts, one per role. Their passwords are public on
// purpose: the sign-in page shows them when FLOWFIX_DEMO=1 (and only then).
// Plain data, no server imports, so the sign-in page can import it.

export type DemoRole = 'REVIEWER' | 'GRADER' | 'MANAGER' | 'ADMIN';

export interface DemoUser {
  email: string;
  name: string;
  role: DemoRole;
  password: string;
}

export const DEMO_USERS: readonly DemoUser[] = [
  { email: 'reviewer@demo.flowfix', name: 'Riley Reviewer', role: 'REVIEWER', password: 'reviewer-demo' },
  { email: 'grader@demo.flowfix', name: 'Grace Grader', role: 'GRADER', password: 'grader-demo' },
  { email: 'manager@demo.flowfix', name: 'Morgan Manager', role: 'MANAGER', password: 'manager-demo' },
  { email: 'admin@demo.flowfix', name: 'Ada Admin', role: 'ADMIN', password: 'admin-demo' },
];

/** People who appear only in the historical activity; they have no password and cannot sign in. */
export const HISTORY_EMAIL_DOMAIN = 'history.demo.flowfix';
