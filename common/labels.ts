import type { PreFilterReason, PostFilterReason } from './filter-reasons';
import type { Phase } from './run-events';
import type { ChangeStatus, DecisionKind, FixStatus, GradeLabel, RejectReason, RunStatus, RunTrigger, Surface } from '../lib/generated/prisma/enums';
import type { NamedExitReason, NoFixCategory } from './exit-reasons';
import { GRADE_LABEL_TEXT } from './grading';
import { REJECT_REASONS, type RejectReasonValue } from './reject-reasons';
import type { RunPolicy } from './settings';
import type { TestProblem } from './test-results';

// The words for the codes flowfix stores: filter reasons (skip, drop), run
// exit reasons, reject reasons, statuses, surfaces, grade labels. Every page
// that shows a code shows its label from here, never the code itself (the
// CSV downloads keep the codes). The records are typed by the unions and
// enums that define the codes (type imports only: browser-safe), and
// test/unit/common/labels.test.ts reads those definitions from the source, so a
// new code without a label fails both tsc and the test.

/** Pre-execution filters (lib/triage/pre-filters.ts): why a change was skipped. */
export const SKIP_REASON_LABELS: Record<PreFilterReason | 'unknown', string> = {
  draft: 'Draft pull request',
  bot_author: 'Author is a bot',
  too_many_files_changed: 'Too many files changed',
  too_many_failing_tests: 'Too many failing tests',
  known_flaky: 'Only known-flaky tests failed',
  unsupported_language: 'Unsupported language',
  stale_revision: 'A newer commit exists',
  unknown: 'Unknown reason',
};

/** Post-execution filters (agent/filters/post.ts): why a found fix was dropped. */
export const DROP_REASON_LABELS: Record<PostFilterReason | 'unknown', string> = {
  empty_diff: 'Empty diff',
  outside_repository: 'Edits outside the repository',
  binary_files: 'Edits binary files',
  deletes_tests: 'Deletes tests',
  renames_tests: 'Renames tests',
  disables_tests: 'Disables tests',
  removes_assertions: 'Removes assertions',
  swallows_assertions: 'Swallows assertions',
  weakens_assertions: 'Weakens assertions',
  reverts_change: "Reverts the change's own edits",
  too_large: 'Too large',
  stale: 'Stale: a newer commit arrived first',
  edits_tests: 'Edits tests',
  dead_parameter: 'Leaves a parameter or option unread',
  unknown: 'Unknown reason',
};

/** Run exit reasons (common/exit-reasons.ts); "dropped:<filter>" reads as its filter. */
export const EXIT_REASON_LABELS: Record<NamedExitReason, string> = {
  fixed: 'Fixed',
  not_reproduced: 'Not reproduced',
  not_caused_by_change: 'Not caused by the change',
  setup_failed: 'Setup failed',
  sandbox_unavailable: 'Sandbox unavailable',
  no_candidate: 'No candidate passed',
  tool_call_limit: 'Tool-call limit reached',
  time_limit: 'Time limit reached',
  token_budget: 'Token budget spent',
  cost_budget: 'Cost budget spent',
  model_error: 'Model endpoint failed',
  cancelled: 'Cancelled',
  regression_failed: 'Regression suite failed',
  final_rerun_failed: 'Final rerun failed',
  worker_lost: 'Worker lost',
  internal_error: 'flowfix failed',
};

/** Why runs produced no fix, as Insights groups the exit reasons (common/exit-reasons.ts). */
export const NO_FIX_CATEGORY_LABELS: Record<NoFixCategory, string> = {
  not_reproduced: 'Not reproduced',
  not_caused_by_change: 'Not caused by the change',
  mislocalised: 'Mislocalised (the developer changed other files)',
  compile_rejected: 'Every candidate failed the compile gate',
  green_not_reached: 'GREEN never reached',
  regression_failed: 'Regression suite failed',
  budget_exhausted: 'Budget or time exhausted',
  model_unavailable: 'Model endpoint unavailable',
  worker_lost: 'Worker lost',
  setup_failed: 'Setup failed',
  cancelled: 'Cancelled',
  internal_error: 'flowfix failed',
  other: 'Other',
};

/** The reasons every surface offers (common/reject-reasons.ts, which the editor extension imports too), by value. */
export const REJECT_REASON_LABELS = Object.fromEntries(REJECT_REASONS.map((r) => [r.value, r.label])) as Record<RejectReason, string>;
// the offered reasons are exactly the database's: a reason added to one and not the other fails to compile
const SAME_REJECT_REASONS: [RejectReason] extends [RejectReasonValue] ? ([RejectReasonValue] extends [RejectReason] ? true : never) : never = true;
void SAME_REJECT_REASONS;

export const CHANGE_STATUS_LABELS: Record<ChangeStatus, string> = {
  NEW: 'New',
  SKIPPED: 'Skipped',
  QUEUED: 'Queued',
  RUNNING: 'Running',
  FIX_READY: 'Fix ready',
  NO_FIX: 'No fix',
  APPLIED: 'Applied',
  REJECTED: 'Rejected',
  STALE: 'Stale',
};

export const RUN_STATUS_LABELS: Record<RunStatus, string> = {
  QUEUED: 'Queued',
  RUNNING: 'Running',
  FIXED: 'Fixed',
  NO_FIX: 'No fix',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
};

export const FIX_STATUS_LABELS: Record<FixStatus, string> = {
  READY: 'Ready',
  APPLYING: 'Applying',
  DROPPED: 'Dropped',
  APPLIED: 'Applied',
  REJECTED: 'Rejected',
  STALE: 'Stale',
};

export const RUN_TRIGGER_LABELS: Record<RunTrigger, string> = {
  AUTO: 'Automatic',
  MANUAL: 'Manual',
  REVALIDATE: 'Re-validation',
};

export const SURFACE_LABELS: Record<Surface, string> = {
  DASHBOARD: 'Dashboard',
  CODE_REVIEW: 'Pull request',
  CLI: 'CLI',
  IDE: 'Editor (VS Code)',
  API: 'API',
};

export const DECISION_KIND_LABELS: Record<DecisionKind, string> = {
  PREVIEW: 'Preview',
  ACCEPT: 'Accept',
  EDIT_ACCEPT: 'Edit, then accept',
  REJECT: 'Reject',
};

/** The graders' labels, as the grading pages name them (common/grading.ts). */
export const GRADE_LABEL_LABELS = Object.fromEntries(Object.entries(GRADE_LABEL_TEXT).map(([label, text]) => [label, text.name])) as Record<GradeLabel, string>;

/** A failing test's problem (common/test-results.ts): an assertion that failed, or a crash. */
export const PROBLEM_KIND_LABELS: Record<TestProblem['kind'], string> = { failure: 'failed', error: 'error' };

/** A run's phases (common/run-events.ts PHASES), as the run page and the runs list name them. */
export const PHASE_LABELS: Record<Phase, string> = {
  setup: 'Setup',
  red: 'RED',
  localise: 'Localise',
  patch: 'Patch',
  verify: 'Verify',
  summary: 'Summary',
};

/** Run policies (common/settings.ts ModelSettings.policy). */
export const POLICY_LABELS: Record<RunPolicy, string> = { offline: 'Offline', llm: 'LLM', tiered: 'Tiered' };

/** A code no record knows (written by a newer version, or free text): its words, never its underscores. */
export function humaniseCode(code: string): string {
  const text = code.replace(/_/g, ' ').toLowerCase().trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function lookup(table: Record<string, string>, code: string | null | undefined): string {
  if (code === null || code === undefined || code === '') return '—';
  return Object.hasOwn(table, code) ? table[code]! : humaniseCode(code);
}

export const skipReasonLabel = (code: string | null | undefined) => lookup(SKIP_REASON_LABELS, code);
/** A drop reason, with or without its "dropped:" prefix. */
export const dropReasonLabel = (code: string | null | undefined) => lookup(DROP_REASON_LABELS, code?.replace(/^dropped:/, ''));
/** A run's exit reason; "dropped:<filter>" is "Dropped: <the filter's label>". */
export function exitReasonLabel(code: string | null | undefined): string {
  if (code?.startsWith('dropped:')) return `Dropped: ${dropReasonLabel(code).toLowerCase()}`;
  return lookup(EXIT_REASON_LABELS, code);
}
export const noFixCategoryLabel = (code: string) => lookup(NO_FIX_CATEGORY_LABELS, code);
export const rejectReasonLabel = (code: string | null | undefined) => lookup(REJECT_REASON_LABELS, code);
export const surfaceLabel = (code: string) => lookup(SURFACE_LABELS, code);
export const policyLabel = (code: string) => lookup(POLICY_LABELS, code);
export const triggerLabel = (code: string) => lookup(RUN_TRIGGER_LABELS, code);
export const problemKindLabel = (code: string) => lookup(PROBLEM_KIND_LABELS, code);
/** A change's status reason: a skip reason, a drop ("dropped:<filter>") or a run's exit reason. */
export function statusReasonLabel(code: string | null | undefined): string {
  if (code && Object.hasOwn(SKIP_REASON_LABELS, code)) return SKIP_REASON_LABELS[code as PreFilterReason];
  // not a code but a sentence (an edited fix's refusal, with its tests' ids): shown as written
  if (code && !/^[a-z][a-z0-9_]*(:[a-z0-9_]+)?$/.test(code)) return code;
  return exitReasonLabel(code);
}
