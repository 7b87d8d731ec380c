// What the editor extension shows for the branch a developer has checked out:
// GET /api/changes/for-branch answers with a BranchState (lib/changes/for-branch.ts
// builds it; extension/ reads it). Plain types and constants, browser- and
// editor-safe: nothing here imports a server module.

export interface BranchFailure {
  testId: string;
  testName: string;
  file: string | null;
  line: number | null;
  message: string;
}

export interface BranchRun {
  id: string;
  status: 'QUEUED' | 'RUNNING' | 'FIXED' | 'NO_FIX' | 'FAILED' | 'CANCELLED';
  /** the phase running now (RUNNING only) */
  phase: string | null;
  /** the time-left estimate of a queued or running run, as the dashboard words it ("~3 min left", "~2–5 min left") */
  timeLeft: string | null;
  remainingMs: number | null;
  exitReason: string | null;
  exitDetail: string | null;
  /** why a finished run produced no fix, in Insights' categories (not_reproduced, mislocalised, …) */
  noFixCategory: string | null;
  finishedAt: string | null;
}

export interface BranchFix {
  id: string;
  /** READY (open for a decision), APPLYING, APPLIED, REJECTED, STALE, DROPPED */
  status: string;
  runId: string;
  /** the revision the fix was made for: a checkout elsewhere has moved on */
  headRev: string;
  /** the root cause in one line (the summary's first sentence, plain text) */
  rootCause: string;
  files: string[];
  dropReason: string | null;
}

export interface BranchChange {
  id: string;
  externalId: string;
  title: string;
  url: string | null;
  status: string;
  statusReason: string | null;
  headRev: string;
  failingTestCount: number;
  failures: BranchFailure[];
  /** the newest run of the change, null before the first */
  run: BranchRun | null;
  /** the newest fix of the change */
  fix: BranchFix | null;
  /** the change's page on the dashboard */
  dashboardUrl: string;
}

export interface BranchState {
  repository: { id: string; name: string };
  branch: string;
  /** null: flowfix has no failing change for this branch */
  change: BranchChange | null;
}

/** At most this many failing tests are listed (the count is always whole). */
export const BRANCH_FAILURES_SHOWN = 50;
