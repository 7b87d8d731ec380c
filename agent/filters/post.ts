import type { FilterPolicy } from '../../common/settings';
import { diffFilePath, parseUnifiedDiff, type DiffFile, type DiffLine } from '../edits/diff';
import { matcher } from '../workspace/glob';
import { isTestPath } from '../testing/test-files';
import type { PostFilterReason } from '../../common/filter-reasons';
import type { DeadParameter } from './dead-parameters';

export type { PostFilterReason } from '../../common/filter-reasons';

// FlowAgent's post-execution filters: a fix that makes the tests pass by
// weakening them, or that only undoes the developer's work, or that arrived
// after the change moved on, is dropped with a named reason. They read the
// fix's unified diff (and the change's), never the model's account of it;
// the dead-parameter findings come from the sources (fix-parameters.ts).

export interface PostFilterInput {
  fixDiff: string;
  /** the change's own diff, base..head */
  changeDiff: string;
  policy: FilterPolicy;
  /** globs for test files (RepositorySettings.testPathPatterns) */
  testPathPatterns: string[];
  /** the repository's tests and test helpers beyond the globs (agent/testing/test-files.ts: conventions, runner configuration) */
  isTestFile?: (file: string) => boolean;
  /**
   * false: a fix may not touch a test or test helper at all (the change does
   * not contradict the failing expectation, so the tests are the reference);
   * true: a stale expectation may be updated, and the filters below watch how
   */
  testEditsAllowed?: boolean;
  /** true when the change moved on (newer revision, merged) while the run worked */
  stale?: boolean;
  staleDetail?: string;
  /** what the fix stops reading in the functions it touched (filters/fix-parameters.ts): not switchable */
  deadParameters?: DeadParameter[];
}

export interface PostFilterFinding {
  reason: PostFilterReason;
  detail: string;
  file?: string;
}

export type PostFilterDecision = { drop: false } | { drop: true; reason: PostFilterReason; detail: string; findings: PostFilterFinding[] };

// ───── patterns ─────

const DISABLE_PATTERNS: Array<[RegExp, string]> = [
  [/\b(?:it|test|describe|suite|context)\s*\.\s*(?:skip|only|todo|fixme)\s*\(/, 'skip/only/todo'],
  [/\b(?:xit|xdescribe|xtest|fit|fdescribe)\s*\(/, 'x-/f- prefixed test'],
  [/\b(?:it|test|describe)\s*\([^)\n]*\{\s*(?:skip|only|todo)\s*:/, 'node:test skip/only/todo option'],
  [/\bt\s*\.\s*(?:skip|todo)\s*\(/, 't.skip()'],
  [/@(?:Ignore|Disabled)\b/, '@Ignore/@Disabled'],
  [/@pytest\.mark\.(?:skip|skipif|xfail)\b/, '@pytest.mark.skip/xfail'],
  [/\bpytest\s*\.\s*(?:skip|xfail)\s*\(/, 'pytest.skip()/xfail()'],
  [/@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b/, '@unittest.skip'],
  [/\bself\s*\.\s*skipTest\s*\(/, 'self.skipTest()'],
  [/\bt\s*\.\s*Skip(?:Now|f)?\s*\(/, 't.Skip()'],
  [/\breturn\s*;?\s*\/\/\s*skip/i, 'early return'],
];

const ASSERTION =
  /\bassert\b|\bassert\s*\.|\bexpect\s*\(|\bassert[A-Z]\w*\s*\(|\bself\s*\.\s*assert\w*\s*\(|\bt\s*\.\s*(?:Error|Errorf|Fatal|Fatalf|Fail)\s*\(|\bshould\s*\.|\.should\b|\bverify\s*\(/;

const COMMENT_PREFIX = /^\s*(?:\/\/|#|\/\*|\*(?!\*))/;

/** Assertions of exact equality. */
const EXACT =
  /\bassert\s*\.\s*(?:strictEqual|equal|deepEqual|deepStrictEqual)\s*\(|\.(?:toBe|toEqual|toStrictEqual)\s*\(|\bassert(?:Equals|ArrayEquals|Same)\s*\(|\bself\s*\.\s*assertEqual\s*\(|\bassert\b[^=\n]*[^=!<>]==[^=]|===|\bassertThat\b.*\bisEqualTo\s*\(/;

/** Assertions that accept more than one value. */
const LOOSE =
  /\.(?:toBeGreaterThan|toBeGreaterThanOrEqual|toBeLessThan|toBeLessThanOrEqual|toBeTruthy|toBeFalsy|toBeDefined|toBeUndefined|toBeNull|toBeCloseTo|toContain|toMatch|toHaveLength|toBeInstanceOf|toBeTypeOf|toHaveProperty|toMatchObject)\s*\(|\bassert\s*\.\s*(?:ok|notEqual|notStrictEqual|notDeepEqual|match|doesNotThrow)\s*\(|\bassert\s*\(|\bassert(?:True|False|NotNull|Null|NotEquals)\s*\(|\bself\s*\.\s*assert(?:True|False|IsNotNone|IsNone|In|Greater|GreaterEqual|Less|LessEqual|AlmostEqual|NotEqual)\s*\(|\bassert\b[^=\n]*(?:[^=!<>]>=?|<=?[^=]|!=|\bin\b|\bis not\b|\bapprox\s*\()|\bisNotNull\s*\(|\bisGreaterThan\s*\(/;

function changedLines(file: DiffFile): { added: DiffLine[]; removed: DiffLine[] } {
  const added: DiffLine[] = [];
  const removed: DiffLine[] = [];
  for (const h of file.hunks)
    for (const l of h.lines) {
      if (l.type === '+') added.push(l);
      else if (l.type === '-') removed.push(l);
    }
  return { added, removed };
}

const norm = (s: string) => s.trim().replace(/\s+/g, ' ');
const meaningful = (s: string) => norm(s) !== '' && !/^[{}()[\];,]*$/.test(norm(s));

function count(lines: DiffLine[], re: RegExp, skipComments = true): number {
  return lines.filter((l) => (!skipComments || !COMMENT_PREFIX.test(l.text)) && re.test(l.text)).length;
}

// ───── checks ─────

function outsideRepository(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.split('/').includes('..') || path === '.git' || path.startsWith('.git/');
}

function disablingPattern(added: DiffLine[], removed: DiffLine[]): string | null {
  for (const [re, name] of DISABLE_PATTERNS) {
    if (count(added, re) > count(removed, re)) return name;
  }
  return null;
}

function commentsOutAssertion(added: DiffLine[], removed: DiffLine[]): boolean {
  const removedAssertions = new Set(removed.filter((l) => ASSERTION.test(l.text) && !COMMENT_PREFIX.test(l.text)).map((l) => norm(l.text)));
  return added.some((l) => {
    if (!COMMENT_PREFIX.test(l.text) || !ASSERTION.test(l.text)) return false;
    const uncommented = norm(l.text.replace(COMMENT_PREFIX, ''));
    return removedAssertions.size === 0 || [...removedAssertions].some((r) => uncommented.includes(r) || r.includes(uncommented));
  });
}

function swallowsAssertions(file: DiffFile): boolean {
  for (const h of file.hunks) {
    const added = h.lines.filter((l) => l.type === '+');
    const addsTry = added.some((l) => /\btry\s*(?:\{|:)/.test(l.text));
    const addsCatch = added.some((l) => /\bcatch\b|\bexcept\b|\bfinally\b/.test(l.text));
    const addsPromiseCatch = added.some((l) => /\.catch\s*\(\s*\(?\s*\w*\s*\)?\s*=>\s*(?:\{\s*\}|undefined|null)/.test(l.text));
    const touchesAssertion = h.lines.some((l) => l.type !== '-' && ASSERTION.test(l.text));
    if (((addsTry && addsCatch) || addsPromiseCatch) && touchesAssertion) return true;
    // pytest.raises(AssertionError) / assert.throws around an assertion also swallows it
    if (added.some((l) => /raises\s*\(\s*AssertionError|assertRaises\s*\(\s*AssertionError/.test(l.text))) return true;
  }
  return false;
}

function weakensAssertion(file: DiffFile): string | null {
  for (const h of file.hunks) {
    const removed = h.lines.filter((l) => l.type === '-' && !COMMENT_PREFIX.test(l.text));
    const added = h.lines.filter((l) => l.type === '+' && !COMMENT_PREFIX.test(l.text));
    const exactRemoved = removed.filter((l) => EXACT.test(l.text) && ASSERTION.test(l.text)).length;
    const exactAdded = added.filter((l) => EXACT.test(l.text) && ASSERTION.test(l.text)).length;
    const looseAdded = added.filter((l) => LOOSE.test(l.text) && !EXACT.test(l.text)).length;
    const looseRemoved = removed.filter((l) => LOOSE.test(l.text) && !EXACT.test(l.text)).length;
    if (exactRemoved > exactAdded && looseAdded > looseRemoved) {
      const before = removed.find((l) => EXACT.test(l.text))?.text.trim() ?? '';
      const after = added.find((l) => LOOSE.test(l.text))?.text.trim() ?? '';
      return `${before} → ${after}`;
    }
  }
  return null;
}

/**
 * Does the fix undo the whole change? Per file the change touched (outside
 * tests): the fix removes every line the change added and restores every
 * line it removed, and adds nothing else. Undoing one line of a larger change
 * is a legitimate fix; undoing all of it is "revert your change", which nobody
 * needs a bot for. (A change that only added a line, fixed by rewriting that
 * line, is not reverted: the fix adds a line the base never had.)
 */
function revertsChange(fix: DiffFile[], change: DiffFile[], isTest: (f: string) => boolean): boolean {
  const source = change.filter((f) => !isTest(diffFilePath(f)) && !f.binary);
  const considered = source.length ? source : change;
  if (considered.length === 0) return false;
  const fixByPath = new Map(fix.map((f) => [diffFilePath(f), f]));
  for (const cf of considered) {
    const path = diffFilePath(cf);
    const ff = fixByPath.get(path);
    if (!ff) return false;
    const c = changedLines(cf);
    const f = changedLines(ff);
    const multiset = (lines: DiffLine[]) => {
      const m = new Map<string, number>();
      for (const l of lines) if (meaningful(l.text)) m.set(norm(l.text), (m.get(norm(l.text)) ?? 0) + 1);
      return m;
    };
    const covers = (big: Map<string, number>, small: Map<string, number>) => [...small].every(([k, n]) => (big.get(k) ?? 0) >= n);
    if (!covers(multiset(f.removed), multiset(c.added)) || !covers(multiset(f.added), multiset(c.removed))) return false;
    if (!covers(multiset(c.removed), multiset(f.added))) return false;
  }
  return true;
}

/** Every finding on a fix (empty when it is clean), in the order the filters run. */
export function findPostFilterIssues(input: PostFilterInput): PostFilterFinding[] {
  const post = input.policy.post;
  const byPattern = matcher(input.testPathPatterns);
  const isTest = (f: string) => byPattern(f) || isTestPath(f) || !!input.isTestFile?.(f);
  const files = parseUnifiedDiff(input.fixDiff);
  const findings: PostFilterFinding[] = [];
  const add = (reason: PostFilterReason, detail: string, file?: string) => findings.push({ reason, detail, ...(file ? { file } : {}) });

  const lineCount = files.reduce((n, f) => n + changedLines(f).added.length + changedLines(f).removed.length, 0);
  if (files.length === 0 || (lineCount === 0 && !files.some((f) => f.binary || f.status !== 'modified'))) {
    if (post.emptyDiff) add('empty_diff', 'the fix changes nothing');
    return findings;
  }
  if (post.stale && input.stale) add('stale', input.staleDetail ?? 'the change moved on while the run was working');

  for (const f of files) {
    const path = diffFilePath(f);
    // not switchable: the workspace refuses these too, this is the second line
    for (const p of [f.oldPath, f.newPath]) if (p && outsideRepository(p)) add('outside_repository', `touches ${p}`, p);
    if (f.binary) add('binary_files', `changes the binary file ${path}`, path);
    const test = [f.oldPath, f.newPath].some((p) => p && isTest(p));
    if (!test) continue;
    const { added, removed } = changedLines(f);
    if (post.deletesTests && f.status === 'deleted') add('deletes_tests', `deletes the test file ${f.oldPath}`, path);
    if (post.deletesTests && f.status === 'renamed' && f.oldPath && f.newPath && (!isTest(f.newPath) || isTest(f.oldPath))) {
      add('renames_tests', `renames the test file ${f.oldPath} to ${f.newPath}`, path);
    }
    if (post.disablesTests) {
      const pattern = disablingPattern(added, removed);
      if (pattern) add('disables_tests', `adds ${pattern} in ${path}`, path);
    }
    if (post.removesAssertions) {
      const removedCount = count(removed, ASSERTION);
      const addedCount = count(added, ASSERTION);
      if (commentsOutAssertion(added, removed)) add('removes_assertions', `comments out an assertion in ${path}`, path);
      else if (f.status !== 'deleted' && removedCount > addedCount) {
        add('removes_assertions', `removes ${removedCount - addedCount} assertion(s) from ${path}`, path);
      }
    }
    if (post.swallowsAssertions && swallowsAssertions(f)) add('swallows_assertions', `wraps assertions in try/catch in ${path}`, path);
    if (post.weakensAssertions) {
      const weakened = weakensAssertion(f);
      if (weakened) add('weakens_assertions', `loosens an exact assertion: ${weakened}`, path);
    }
    // the specific findings above name what the edit does; this one says it may not be there at all
    if (input.testEditsAllowed === false) {
      add('edits_tests', `edits the test or test helper ${path}: only a stale expectation the change contradicts is ever updated there`, path);
    }
  }

  for (const dead of input.deadParameters ?? []) add('dead_parameter', dead.detail, dead.file);
  if (post.revertsChange && input.changeDiff && revertsChange(files, parseUnifiedDiff(input.changeDiff), isTest)) {
    add('reverts_change', "the fix undoes the change's own edits");
  }
  if (lineCount > post.maxFixLines) add('too_large', `${lineCount} changed lines (limit ${post.maxFixLines})`);
  return findings;
}

/** The first finding decides; all of them are kept for the record. */
export function runPostFilters(input: PostFilterInput): PostFilterDecision {
  const findings = findPostFilterIssues(input);
  if (findings.length === 0) return { drop: false };
  return { drop: true, reason: findings[0].reason, detail: findings[0].detail, findings };
}
