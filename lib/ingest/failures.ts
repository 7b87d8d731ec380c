import { createHash } from 'node:crypto';
import type { TestResult } from '../../common/test-results';
import { junitTestId, parseJunitXml } from '../junit/parse';
import { INGEST_LIMITS, type TestInput } from './schema';
import { capChars, cleanText } from './text';

// Turns what CI uploaded (JUnit reports and/or a JSON list) into the failure
// rows of one revision: only failed and errored tests, one row per test id,
// every field bounded and storable.

export interface FailureDraft {
  testId: string;
  testName: string;
  suite: string | null;
  file: string | null;
  line: number | null;
  kind: 'failure' | 'error';
  message: string;
  logExcerpt: string;
  durationMs: number | null;
}

export interface CollectedFailures {
  failures: FailureDraft[];
  /** failures beyond INGEST_LIMITS.failuresPerRevision, not stored */
  droppedFailures: number;
  /** test cases seen in the reports and the list, whatever their status */
  testsSeen: number;
}

/** Test ids take part in a unique index: very long ones are cut and made unique again by a hash. */
export function boundTestId(id: string): string {
  if (id.length <= INGEST_LIMITS.testIdChars) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 16);
  return `${id.slice(0, INGEST_LIMITS.testIdChars - 18)}#${hash}`;
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
    logExcerpt: excerptOf({ details: test.details }),
    durationMs: test.durationMs ?? null,
  };
}

/**
 * Parses every JUnit report (a DOCTYPE, malformed XML or a non-JUnit root
 * throws JunitParseError → 400) and merges the JSON list. When the same test
 * id appears twice (shards, retries) the first report of it is kept.
 */
export function collectFailures({
  junitReports,
  tests = [],
}: {
  junitReports: Array<string | Uint8Array>;
  tests?: TestInput[];
}): CollectedFailures {
  const byId = new Map<string, FailureDraft>();
  let testsSeen = tests.length;
  const add = (draft: FailureDraft) => {
    if (!byId.has(draft.testId)) byId.set(draft.testId, draft);
  };
  for (const report of junitReports) {
    const { results } = parseJunitXml(report, { maxFieldChars: INGEST_LIMITS.excerptChars });
    testsSeen += results.length;
    for (const result of results) {
      if (result.status === 'failed' || result.status === 'error') add(fromJunit(result));
    }
  }
  for (const test of tests) add(fromJson(test));
  const all = [...byId.values()];
  return {
    failures: all.slice(0, INGEST_LIMITS.failuresPerRevision),
    droppedFailures: Math.max(0, all.length - INGEST_LIMITS.failuresPerRevision),
    testsSeen,
  };
}
