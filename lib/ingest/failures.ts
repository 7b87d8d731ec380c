import 'server-only';
import { boundTestId } from '../junit/test-id';
import { createHash } from 'node:crypto';
import type { TestProblem, TestResult } from '../../common/test-results';
import { addJunitCounts, disambiguateTestIds, junitTestId, parseJunitXml, type JunitCounts } from '../junit/parse';
import { INGEST_LIMITS, type TestInput } from './schema';
import { capChars } from '../../common/text';
import { cleanText } from './text';

// Turns what CI uploaded (JUnit reports and/or a JSON list) into the failure
// rows of one revision: only failed and errored tests, one row per test id,
// every field bounded and storable, each cut at most once (the parser is told
// not to cut, so a note's count is the true one); and the reports' counts of
// every test, passing ones included.

export interface FailureDraft {
  testId: string;
  testName: string;
  suite: string | null;
  file: string | null;
  line: number | null;
  kind: 'failure' | 'error';
  message: string;
  /** every <failure> and <error> of the case with its message (a case may have both) */
  problems: TestProblem[];
  logExcerpt: string;
  durationMs: number | null;
}

export interface CollectedFailures {
  failures: FailureDraft[];
  /** failures beyond INGEST_LIMITS.failuresPerRevision, not stored */
  droppedFailures: number;
  /** test cases seen in the reports and the list, whatever their status */
  testsSeen: number;
  /** the JUnit reports' counts added up; null when the upload had no report (a JSON list only) */
  counts: JunitCounts | null;
  /** one entry per JUnit report, in upload order */
  reports: Array<{ counts: JunitCounts; digest: string }>;
}

function bounded(text: string | undefined, max: number): string | null {
  if (text === undefined || text === '') return null;
  return capChars(cleanText(text), max);
}

function excerptOf({ details, output }: { details?: string; output?: string }): string {
  const parts = [details?.trim(), output?.trim() ? `[output]\n${output.trim()}` : undefined].filter(Boolean);
  return capChars(cleanText(parts.join('\n\n')), INGEST_LIMITS.excerptChars);
}

function fromJunit(result: TestResult): FailureDraft {
  return {
    testId: boundTestId(cleanText(result.id)),
    testName: capChars(cleanText(result.name), INGEST_LIMITS.testNameChars),
    suite: bounded(result.classname, INGEST_LIMITS.pathChars),
    file: bounded(result.file, INGEST_LIMITS.pathChars),
    line: result.line ?? null,
    kind: result.status === 'error' ? 'error' : 'failure',
    message: capChars(cleanText(result.message ?? ''), INGEST_LIMITS.messageChars),
    problems: (result.problems ?? []).map((p) => ({
      kind: p.kind,
      ...(p.message ? { message: capChars(cleanText(p.message), INGEST_LIMITS.messageChars) } : {}),
    })),
    logExcerpt: excerptOf({ details: result.details, output: result.systemOut }),
    durationMs: result.durationMs ?? null,
  };
}

function fromJson(test: TestInput): FailureDraft {
  // the same id rule as JUnit reports, so a JSON repost of a JUnit upload matches
  const derived = junitTestId({ name: test.name, classname: test.classname, file: test.file });
  return {
    testId: boundTestId(test.id ?? derived.id),
    testName: capChars(derived.name, INGEST_LIMITS.testNameChars),
    suite: bounded(test.classname, INGEST_LIMITS.pathChars),
    file: bounded(test.file, INGEST_LIMITS.pathChars),
    line: test.line ?? null,
    kind: test.kind ?? 'failure',
    message: capChars(test.message ?? '', INGEST_LIMITS.messageChars),
    problems: [{ kind: test.kind ?? 'failure', ...(test.message ? { message: capChars(test.message, INGEST_LIMITS.messageChars) } : {}) }],
    logExcerpt: excerptOf({ details: test.details }),
    durationMs: test.durationMs ?? null,
  };
}

/**
 * Parses every JUnit report (a DOCTYPE, malformed XML or a non-JUnit root
 * throws JunitParseError → 400) and merges the JSON list. Test ids are unique
 * across the upload's reports by the parser's own rule (the second report of
 * a shard or a retry that fails the same test keeps its failure as
 * "<id> [2]"); a JSON entry with an id a report already has is the same
 * failure posted twice and is kept once.
 */
export function collectFailures({ junitReports, tests = [] }: { junitReports: Array<string | Uint8Array>; tests?: TestInput[] }): CollectedFailures {
  const results: TestResult[] = [];
  const reports: CollectedFailures['reports'] = [];
  for (const report of junitReports) {
    // no field cap in the parser: each field is cut once, below, with a true count
    const parsed = parseJunitXml(report, { maxFieldChars: Number.POSITIVE_INFINITY });
    results.push(...parsed.results);
    reports.push({ counts: parsed.summary, digest: createHash('sha256').update(report).digest('hex') });
  }
  disambiguateTestIds(results);
  const byId = new Map<string, FailureDraft>();
  const add = (draft: FailureDraft) => {
    if (!byId.has(draft.testId)) byId.set(draft.testId, draft);
  };
  for (const result of results) {
    if (result.status === 'failed' || result.status === 'error') add(fromJunit(result));
  }
  for (const test of tests) add(fromJson(test));
  const all = [...byId.values()];
  return {
    failures: all.slice(0, INGEST_LIMITS.failuresPerRevision),
    droppedFailures: Math.max(0, all.length - INGEST_LIMITS.failuresPerRevision),
    testsSeen: tests.length + results.length,
    counts: reports.length === 0 ? null : addJunitCounts(reports.map((r) => r.counts)),
    reports,
  };
}
