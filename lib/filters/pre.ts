import type { FilterPolicy } from '../repositories/settings';

// FlowAgent's pre-execution filters: skip failures a repair run cannot help
// with, or that nobody wants repaired, before spending anything on them. Each
// skip carries a named reason (stored as the change's statusReason and
// counted in the funnel).

export type PreFilterReason =
  | 'bot_author'
  | 'too_many_files_changed'
  | 'too_many_failing_tests'
  | 'not_caused_by_change'
  | 'known_flaky'
  | 'unsupported_language'
  | 'stale_revision';

export interface PreFilterInput {
  policy: FilterPolicy;
  change: {
    author: string;
    authorEmail?: string | null;
    authorKind?: 'HUMAN' | 'BOT';
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
  /** true when the same tests also fail on the base revision (known only after a base run) */
  failsOnBase?: boolean;
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
  | { skip: false; targets: string[]; checks: PreFilterCheck[] }
  | { skip: true; reason: PreFilterReason; detail: string; checks: PreFilterCheck[] };

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
    {
      filter: 'not_caused_by_change',
      enabled: pre.notCausedByChange,
      triggered: input.failsOnBase === true,
      detail: input.failsOnBase === true ? 'the tests fail on the base revision too' : 'not known to fail on the base revision',
    },
  ];

  const hit = checks.find((c) => c.enabled && c.triggered);
  if (hit) return { skip: true, reason: hit.filter, detail: hit.detail, checks };
  return { skip: false, targets: pre.knownFlaky ? nonFlaky : input.failingTests, checks };
}
