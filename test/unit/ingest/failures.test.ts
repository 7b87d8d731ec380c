import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { collectFailures } from '@/lib/ingest/failures';
import { INGEST_LIMITS } from '@/lib/ingest/schema';

const fixture = (name: string) => readFileSync(path.join('test/fixtures/junit', name), 'utf8');

describe('collectFailures', () => {
  test('every failure of a jest-junit report with repeated names is kept', () => {
    const { failures } = collectFailures({ junitReports: [fixture('jest-junit-duplicates.xml')] });
    assert.equal(failures.length, 6);
    assert.equal(new Set(failures.map((f) => f.testId)).size, 6);
  });

  test('the same test failing in two reports of one upload is kept twice', () => {
    const xml = `<testsuite name="s"><testcase classname="c" name="t"><failure message="boom"/></testcase></testsuite>`;
    const { failures } = collectFailures({ junitReports: [xml, xml] });
    assert.deepEqual(
      failures.map((f) => f.testId),
      ['c::t', 'c::t [2]'],
    );
  });

  test('failure and error of one case: both kinds and messages are stored', () => {
    const { failures } = collectFailures({ junitReports: [fixture('failure-and-error.xml')] });
    const refund = failures.find((f) => f.testName === 'balanceAfterRefund');
    assert.ok(refund);
    assert.equal(refund.kind, 'error');
    assert.deepEqual(refund.problems, [
      { kind: 'failure', message: 'expected:<40> but was:<50>' },
      { kind: 'error', message: 'Connection pool closed during teardown' },
    ]);
    assert.match(refund.logExcerpt, /\[failure\] expected:<40> but was:<50>/);
    assert.match(refund.logExcerpt, /\[error\] Connection pool closed during teardown/);
  });

  test('a 5 MB message and body are cut once, head and tail, with the true count', () => {
    const message = 'M'.repeat(2_500_000) + 'm'.repeat(2_500_000);
    const body = 'B'.repeat(2_500_000) + 'b'.repeat(2_500_000);
    const xml = `<testsuite name="s"><testcase classname="c" name="huge"><failure message="${message}">${body}</failure></testcase></testsuite>`;
    const [failure] = collectFailures({ junitReports: [xml] }).failures;
    for (const [text, total, max] of [
      [failure.message, message.length, INGEST_LIMITS.messageChars],
      [failure.logExcerpt, body.length, INGEST_LIMITS.excerptChars],
    ] as const) {
      const notes = [...text.matchAll(/\[(\d+) characters cut\]/g)];
      assert.equal(notes.length, 1, 'cut exactly once');
      const kept = text.replace(/\n… \[\d+ characters cut\] …\n/, '');
      assert.equal(Number(notes[0][1]), total - kept.length, 'the note counts what was really cut');
      assert.ok(kept.length <= max);
      assert.ok(kept.startsWith(text[0].repeat(10)) && kept.endsWith(text.at(-1)!.repeat(10)), 'head and tail kept');
    }
    assert.match(failure.message, /^M+\n… \[\d+ characters cut\] …\nm+$/);
  });

  test('the counts of every report add up', () => {
    const { counts } = collectFailures({ junitReports: [fixture('jest-junit-duplicates.xml'), fixture('failure-and-error.xml')] });
    assert.deepEqual(counts, { tests: 11, passed: 2, failed: 6, errored: 2, skipped: 1, durationMs: 2146 });
  });
});
