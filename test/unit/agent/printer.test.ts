import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { formatReport, REPAIR_USAGE } from '@/agent/cli/repair';
import type { RepairResult } from '@/agent/pipeline';
import { createPrintSink, formatEvent } from '@/agent/report/sinks';
import { gateEvent, runEvent } from '@/common/run-events';

// What a person (or a script) reads from `flowfix repair`: the live
// trajectory and the closing report.

const gate = (g: 'red' | 'base' | 'compile' | 'green', passed: boolean) => gateEvent({ gate: g, passed, durationMs: 5, detail: 'x' });

describe('the trajectory', () => {
  test('RED and base say what their outcome means, with the good one marked', () => {
    assert.match(formatEvent(gate('red', true)), /red\s+the target tests fail on the head ✓/);
    assert.match(formatEvent(gate('red', false)), /red\s+the target tests pass on the head ✗/);
    assert.match(formatEvent(gate('base', false)), /base\s+the target tests pass without the change ✓/);
    assert.match(formatEvent(gate('base', true)), /base\s+the target tests fail without the change too ✗/);
    assert.doesNotMatch(formatEvent(gate('base', false)), /FAIL/);
  });

  test("each candidate line comes before its own gates' results", async () => {
    const lines: string[] = [];
    const sink = createPrintSink((t) => lines.push(t));
    await sink.emit(gate('red', true));
    await sink.emit(gate('compile', true));
    await sink.emit(gate('green', false));
    await sink.emit(
      runEvent(
        'candidate',
        {
          rank: 1,
          template: 'swap-operator',
          file: 'src/a.ts',
          line: 3,
          symbol: 'total',
          description: 'swap + for *',
          score: 1,
          onEditedLine: true,
          edits: 1,
          outcome: 'tests_failed',
        },
        'patch',
      ),
    );
    await sink.emit(gate('compile', true));
    await sink.emit(gate('green', true));
    await sink.emit(
      runEvent(
        'candidate',
        {
          rank: 2,
          template: 'swap-operator',
          file: 'src/a.ts',
          line: 3,
          symbol: 'total',
          description: 'swap + for -',
          score: 1,
          onEditedLine: true,
          edits: 1,
          outcome: 'green',
        },
        'patch',
      ),
    );
    const text = lines.join('');
    const order = ['red', 'candidate 1', 'compile', 'green', 'candidate 2', 'compile', 'green'];
    let at = 0;
    for (const word of order) {
      const i = text.indexOf(word, at);
      assert.ok(i >= at, `"${word}" after position ${at} in:\n${text}`);
      at = i + word.length;
    }
  });
});

function result(overrides: Partial<RepairResult>): RepairResult {
  return {
    status: 'no_fix',
    exitReason: 'dropped:weakens_assertions',
    exitDetail: 'loosens an exact assertion',
    diff: 'diff --git a/test/a.test.ts b/test/a.test.ts\n--- a/test/a.test.ts\n+++ b/test/a.test.ts\n@@ -1 +1 @@\n-assert.equal(a, 1);\n+assert.ok(a);\n',
    files: ['test/a.test.ts'],
    summaryHtml: '',
    evidence: { verdicts: [] } as unknown as RepairResult['evidence'],
    suspects: [
      { file: 'src/a.js', symbol: 'src/a.js:30-40', kind: 'window', startLine: 30, endLine: 40, score: 3, reasons: ['stack frame src/a.js:35'] },
      { file: 'src/b.js', symbol: 'parse', kind: 'function', startLine: 1, endLine: 9, score: 2, reasons: [] },
    ],
    phaseTimings: {},
    timings: { wallMs: 1, commandMs: 0, modelMs: 0, overheadMs: 1, builds: 0, targetRuns: 1, regressionRuns: 0, timeouts: 0, timeoutMs: 0 },
    usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 },
    dropped: { reason: 'weakens_assertions', detail: 'loosens an exact assertion', findings: [] },
    changeDiff: '',
    ...overrides,
  };
}

describe('the closing report', () => {
  test('a dropped fix is shown, but never as a diff a script would apply', () => {
    const text = formatReport(result({}));
    assert.doesNotMatch(text, /^diff --git/m);
    assert.doesNotMatch(text, /^[-+]{3} [ab]\//m);
    assert.match(text, /Dropped fix \(weakens_assertions\)/);
    assert.match(text, /assert\.ok\(a\)/);
  });

  test('a kept fix is printed as a diff', () => {
    const text = formatReport(result({ status: 'fixed', exitReason: 'fixed', dropped: undefined }));
    assert.match(text, /^diff --git a\/test\/a\.test\.ts/m);
  });

  test('suspects are labelled once, by their function', () => {
    const text = formatReport(result({}));
    assert.match(text, /1\. src\/a\.js:30-40 \(lines around/);
    assert.doesNotMatch(text, /src\/a\.js:30-40 src\/a\.js:30-40/);
    assert.match(text, /2\. src\/b\.js:1-9 parse/);
  });

  test('the time line says how much of the run went to commands a time limit stopped', () => {
    assert.match(formatReport(result({})), /^Time: .*; no command timed out$/m);
    const timings = {
      wallMs: 80_000,
      commandMs: 70_000,
      modelMs: 0,
      overheadMs: 10_000,
      builds: 0,
      targetRuns: 4,
      regressionRuns: 0,
      timeouts: 2,
      timeoutMs: 60_000,
    };
    assert.match(formatReport(result({ timings })), /^Time: .*; 2 commands timed out: 60\.0 s, 75% of the run's 80\.0 s$/m);
    assert.match(formatReport(result({ timings: { ...timings, timeouts: 1, timeoutMs: 15_000 } })), /1 command timed out: 15\.0 s, 19% of the run's 80\.0 s$/m);
  });

  test('--help points to where the placeholders are documented', () => {
    assert.match(REPAIR_USAGE, /\{ids\}.*agent\/README\.md/s);
    assert.doesNotMatch(REPAIR_USAGE, /see the README\)/);
  });
});
