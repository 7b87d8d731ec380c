import type { FilterPolicy } from '../../common/settings';
import type { PreFilterReason } from '../../common/filter-reasons';

export type { PreFilterReason } from '../../common/filter-reasons';

// FlowAgent's pre-execution filters: skip failures a repair run cannot help
// with, or that nobody wants repaired, before spending anything on them. Each
// skip carries a named reason (stored as the change's statusReason and
// counted in the funnel). Whether the failure was caused by the change is
// known only after running the tests at the base revision: the worker's base
// gate decides that (agent/pipeline.ts, exit reason not_caused_by_change,
// switched by the same policy's pre.notCausedByChange).

export interface PreFilterInput {
  policy: FilterPolicy;
  change: {
    author: string;
    authorEmail?: string | null;
    authorKind?: 'HUMAN' | 'BOT';
    /** a draft pull (merge) request, as its code host said; unknown (reported from CI) counts as ready */
    draft?: boolean;
    filesChanged: number;
    language: string;
    headRev: string;
    /** the newest known head of the change; a different one means this revision is superseded */
    latestHeadRev?: string | null;
  };
  /** ids of the failing tests reported for this revision */
  failingTests: string[];
  /** ids the repository marks as known flaky */
  knownFlaky?: string[];
}

export interface PreFilterCheck {
  filter: PreFilterReason;
  /** false when the repository turned the filter off */
  enabled: boolean;
  /** true when this filter would skip the run */
  triggered: boolean;
  detail: string;
}

export type PreFilterDecision =
  { skip: false; targets: string[]; checks: PreFilterCheck[] } | { skip: true; reason: PreFilterReason; detail: string; checks: PreFilterCheck[] };

function isBot(change: PreFilterInput['change'], patterns: string[]): boolean {
  if (change.authorKind === 'BOT') return true;
  const who = `${change.author} ${change.authorEmail ?? ''}`.toLowerCase();
  return patterns.some((p) => who.includes(p.toLowerCase()));
}

/**
 * Runs every pre-execution filter (all of them, so the decision can show why
 * each did or did not fire). The first triggered one in the order below wins.
 * Known-flaky tests are also removed from the targets when others remain.
 */
export function runPreFilters(input: PreFilterInput): PreFilterDecision {
  const { policy, change } = input;
  const pre = policy.pre;
  const flaky = new Set(input.knownFlaky ?? []);
  const nonFlaky = input.failingTests.filter((t) => !flaky.has(t));
  const stale = !!change.latestHeadRev && change.latestHeadRev !== change.headRev;

  const checks: PreFilterCheck[] = [
    {
      filter: 'stale_revision',
      enabled: pre.staleRevision,
      triggered: stale,
      detail: stale ? `a newer revision ${change.latestHeadRev?.slice(0, 12)} exists` : 'this is the latest revision',
    },
    {
      // the author said "not ready yet": before any filter about the change's content
      filter: 'draft',
      enabled: pre.draft,
      triggered: change.draft === true,
      detail: change.draft === true ? 'a draft pull request: repaired once it is marked ready for review' : 'ready for review',
    },
    {
      filter: 'bot_author',
      enabled: pre.botAuthor,
      triggered: isBot(change, pre.botAuthorPatterns),
      detail: `author ${change.author}`,
    },
    {
      filter: 'unsupported_language',
      enabled: pre.unsupportedLanguage,
      triggered: !(pre.supportedLanguages as string[]).includes(change.language),
      detail: `language ${change.language}; supported: ${pre.supportedLanguages.join(', ')}`,
    },
    {
      filter: 'too_many_files_changed',
      enabled: pre.tooManyFilesChanged,
      triggered: change.filesChanged > pre.maxFilesChanged,
      detail: `${change.filesChanged} files changed (limit ${pre.maxFilesChanged})`,
    },
    {
      filter: 'too_many_failing_tests',
      enabled: pre.tooManyFailingTests,
      triggered: input.failingTests.length > pre.maxFailingTests,
      detail: `${input.failingTests.length} failing tests (limit ${pre.maxFailingTests}): likely infrastructure`,
    },
    {
      filter: 'known_flaky',
      enabled: pre.knownFlaky,
      triggered: input.failingTests.length > 0 && nonFlaky.length === 0,
      detail:
        nonFlaky.length === 0
          ? 'every failing test is marked as known flaky'
          : `${input.failingTests.length - nonFlaky.length} known-flaky test(s) left out of the targets`,
    },
  ];

  const hit = checks.find((c) => c.enabled && c.triggered);
  if (hit) return { skip: true, reason: hit.filter, detail: hit.detail, checks };
  return { skip: false, targets: repairTargets({ failingTests: input.failingTests, knownFlaky: flaky, dropKnownFlaky: pre.knownFlaky }), checks };
}

/**
 * The failing tests a run repairs. Known-flaky ones are dropped when the
 * policy says so, unless nothing would be left: a run started by hand on an
 * all-flaky failure (which triage skips) still has something to reproduce.
 */
export function repairTargets({
  failingTests,
  knownFlaky,
  dropKnownFlaky,
}: {
  failingTests: readonly string[];
  knownFlaky: Iterable<string>;
  dropKnownFlaky: boolean;
}): string[] {
  const flaky = new Set(knownFlaky);
  const nonFlaky = failingTests.filter((t) => !flaky.has(t));
  return dropKnownFlaky && nonFlaky.length > 0 ? nonFlaky : [...failingTests];
}
