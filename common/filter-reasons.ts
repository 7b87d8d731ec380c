// Why a filter stopped a change or a fix, named once for the filters, the
// labels and Insights. Pre-execution filters (lib/triage/pre-filters.ts)
// skip a change before any run; post-execution filters (agent/filters/post.ts)
// drop a fix the run found. Plain data: the browser may use it.

export const PRE_FILTER_REASONS = [
  'draft',
  'bot_author',
  'too_many_files_changed',
  'too_many_failing_tests',
  'known_flaky',
  'unsupported_language',
  'stale_revision',
] as const;
export type PreFilterReason = (typeof PRE_FILTER_REASONS)[number];

export const POST_FILTER_REASONS = [
  'empty_diff',
  'outside_repository',
  'binary_files',
  'deletes_tests',
  'renames_tests',
  'disables_tests',
  'removes_assertions',
  'swallows_assertions',
  'weakens_assertions',
  'reverts_change',
  'too_large',
  'stale',
  'edits_tests',
  'dead_parameter',
] as const;
export type PostFilterReason = (typeof POST_FILTER_REASONS)[number];
