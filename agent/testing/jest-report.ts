import { z } from 'zod';
import { junitTestId, relativeTestPath } from '../../lib/junit/parse';
import { capChars } from '../../common/text';
import type { TestResult } from '../types';

// jest's own report (`--json --outputFile=…`): every jest writes it without a
// package the repository may not have (jest-junit). The file is the tests'
// output, so it is read as untrusted input: a schema, size caps, and ids
// built by the JUnit reader's rule ("<file>::<full name>").

const AssertionSchema = z.object({
  ancestorTitles: z.array(z.string()).default([]),
  title: z.string(),
  fullName: z.string().optional(),
  status: z.string(),
  failureMessages: z.array(z.string()).nullish(),
  duration: z.number().nullish(),
  location: z.object({ line: z.number() }).nullish(),
});

const JestReportSchema = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string().optional(),
      message: z.string().optional(),
      assertionResults: z.array(AssertionSchema).default([]),
    }),
  ),
  numRuntimeErrorTestSuites: z.number().optional(),
  wasInterrupted: z.boolean().optional(),
});

const MAX_MESSAGE = 64 * 1024;
const ANSI = /\u001b\[[0-9;]*m/g;

/** The name a test file that failed to load answers to: it has no test of its own to fail. */
export const SUITE_FAILED = '(the test file failed to run)';

/** Reads jest's JSON report; a file that is not one throws (the caller names the report). */
export function parseJestJson(text: string, root?: string): { results: TestResult[]; incomplete?: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`not jest's JSON report: ${(err as Error).message}`, { cause: err });
  }
  const parsed = JestReportSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`not jest's JSON report: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`.trim());
  const results: TestResult[] = [];
  for (const file of parsed.data.testResults) {
    const rel = relativeTestPath(file.name, root);
    if (file.assertionResults.length === 0 && file.status === 'failed') {
      // a file that does not load (a syntax error, a missing module): its tests are unknown, the file itself failed
      const message = capChars((file.message ?? '').replace(ANSI, '').trim(), MAX_MESSAGE);
      results.push({
        ...junitTestId({ name: SUITE_FAILED, file: rel }),
        file: rel,
        status: 'error',
        message:
          message
            .split('\n')
            .find((l) => l.trim() && !/●/.test(l))
            ?.trim() ?? 'the test file failed to run',
        details: message,
      });
      continue;
    }
    for (const a of file.assertionResults) {
      const name = a.fullName ?? [...a.ancestorTitles, a.title].join(' ');
      const status: TestResult['status'] = a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'skipped';
      const failure = capChars((a.failureMessages ?? []).join('\n\n').replace(ANSI, ''), MAX_MESSAGE);
      results.push({
        ...junitTestId({ name, file: rel }),
        file: rel,
        status,
        ...(a.location?.line ? { line: a.location.line } : {}),
        ...(a.duration != null ? { durationMs: a.duration } : {}),
        ...(status === 'failed' ? { message: failure.split('\n')[0]?.trim() || 'failed', details: failure } : {}),
      });
    }
  }
  return { results, ...(parsed.data.wasInterrupted ? { incomplete: 'jest was interrupted before every test ran' } : {}) };
}
