import { z } from 'zod';

// What a test run says, in the words the agent, the ingestion API, the run
// events and the pages share. Browser-safe: no server or node: imports.

export const TestStatusSchema = z.enum(['passed', 'failed', 'error', 'skipped']);
export type TestStatus = z.infer<typeof TestStatusSchema>;

/** One <failure> (an assertion) or <error> (a crash) of a test case; a case may have both. */
export interface TestProblem {
  kind: 'failure' | 'error';
  message?: string;
}

export interface TestResult {
  /** stable id "<classname or file>::<name>" (same as Failure.testId) */
  id: string;
  name: string;
  classname?: string;
  file?: string;
  line?: number;
  status: TestStatus;
  message?: string;
  /** failure/error body: stack trace, assertion diff (several problems: each under a "[kind] message" heading) */
  details?: string;
  /** every <failure> and <error>, in order; `message` is the first one's */
  problems?: TestProblem[];
  systemOut?: string;
  durationMs?: number;
}

/** How many tests a run reported and how they ended (an error counts as failed): run = passed + failed + skipped. */
export const TestCountsSchema = z.object({
  run: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
});
export type TestCounts = z.infer<typeof TestCountsSchema>;

export function countTests(results: ReadonlyArray<Pick<TestResult, 'status'>>): TestCounts {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const r of results) {
    if (r.status === 'passed') passed++;
    else if (r.status === 'skipped') skipped++;
    else failed++;
  }
  return { run: results.length, passed, failed, skipped };
}

export const ExpectedActualSchema = z.object({
  testId: z.string(),
  expected: z.string(),
  actual: z.string(),
  operator: z.string().optional(),
});
export type ExpectedActual = z.infer<typeof ExpectedActualSchema>;

export const StackFrameSchema = z.object({
  /** workspace-relative path when it lies inside the workspace */
  file: z.string(),
  line: z.number(),
  column: z.number().optional(),
  fn: z.string().optional(),
});
export type StackFrame = z.infer<typeof StackFrameSchema>;

// Expected and actual values read from a failure's message, for the agent's
// evidence and for the change page's expected/actual diff alike.

export function clip(s: string, max = 500): string {
  const t = s.trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** Expected and actual values from the assertion styles flowfix knows. */
export function parseExpectedActual(testId: string, text: string): ExpectedActual | null {
  let m: RegExpExecArray | null;
  // node:assert's AssertionError properties, printed by the node --test reporters
  const actual = /^\s*actual: (.+?),?\s*$/m.exec(text);
  const expected = /^\s*expected: (.+?),?\s*$/m.exec(text);
  if (actual && expected) {
    const op = /^\s*operator: '(\w+)'/m.exec(text);
    return { testId, actual: clip(actual[1]), expected: clip(expected[1]), ...(op ? { operator: op[1] } : {}) };
  }
  // ava's TAP diagnostics: "'Difference (- actual, + expected):': |-" (or "'Difference:'"), then "- actual" and "+ expected" lines
  if ((m = /^\s*'Difference(?: \(- actual, \+ expected\))?:':[^\n]*\n((?:\s*[-+ ] [^\n]*\n?)+)/m.exec(text))) {
    const lines = m[1].split('\n').map((l) => l.trim());
    const minus = lines.filter((l) => l.startsWith('- ')).map((l) => l.slice(2));
    const plus = lines.filter((l) => l.startsWith('+ ')).map((l) => l.slice(2));
    const assertion = /^\s*assertion: (?:t\.)?(\w+)/m.exec(text);
    if (minus.length && plus.length)
      return { testId, actual: clip(minus.join('\n')), expected: clip(plus.join('\n')), ...(assertion ? { operator: assertion[1] } : {}) };
  }
  // node:assert's message "4 !== 3"
  if ((m = /^\s*(.+?) (!==|!=|===|==) (.+?)\s*$/m.exec(text)) && /Expected values to be/.test(text)) {
    return { testId, actual: clip(m[1]), expected: clip(m[3]), operator: 'strictEqual' };
  }
  // jest: "Expected: 3\nReceived: 4"
  if ((m = /^\s*Expected(?: value)?: (.+)\n\s*Received(?: value)?: (.+)$/m.exec(text))) {
    const matcher = /expect\(received\)\.(\w+)\(/.exec(text);
    return { testId, expected: clip(m[1]), actual: clip(m[2]), ...(matcher ? { operator: matcher[1] } : {}) };
  }
  // jest deep diff ("- Expected  - 1 / + Received  + 1") and vitest ("- Expected / + Received")
  if (/^\s*- Expected/m.test(text) && /^\s*\+ Received/m.test(text)) {
    const minus = [...text.matchAll(/^-\s{1,3}(?!Expected)(.*)$/gm)].map((x) => x[1]);
    const plus = [...text.matchAll(/^\+\s{1,3}(?!Received)(.*)$/gm)].map((x) => x[1]);
    if (minus.length && plus.length) return { testId, expected: clip(minus.join('\n')), actual: clip(plus.join('\n')) };
  }
  // chai / vitest: "expected 4 to be 3", "expected 4 to deeply equal 3"
  if ((m = /expected (.+?) to (?:be|equal|deeply equal|strictly equal) (.+?)(?: \/\/.*)?$/m.exec(text))) {
    return { testId, actual: clip(m[1]), expected: clip(m[2]), operator: 'toBe' };
  }
  // JUnit 4/5, AssertJ: "expected: <3> but was: <4>"
  if ((m = /expected:\s*<(.*?)>\s*but was:\s*<(.*?)>/s.exec(text))) {
    return { testId, expected: clip(m[1]), actual: clip(m[2]), operator: 'assertEquals' };
  }
  // pytest: "assert 4 == 3" (the test's own left-hand side is the actual value)
  if ((m = /^(?:E\s+)?(?:AssertionError:\s*)?assert (.+?) (==|!=|<=|>=|<|>|is not|is|not in|in) (.+)$/m.exec(text))) {
    return { testId, actual: clip(m[1]), expected: clip(m[3]), operator: m[2] };
  }
  // Go: "Total([1 2]) = 4, want 3" / "got 4, want 3"
  if ((m = /(?:= |got:? )(.+?),? want:? (.+)$/m.exec(text))) {
    return { testId, actual: clip(m[1]), expected: clip(m[2]) };
  }
  return null;
}
