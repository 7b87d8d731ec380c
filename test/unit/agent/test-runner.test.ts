import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { copyFileSync } from 'node:fs';
import { commandTimeoutMs, didNotRun, findReports, readTestReports, renderTestCommand, selectTargetResults } from '@/agent/testing/test-runner';
import { matchesTarget } from '@/lib/junit/test-id';
import type { TestResult } from '@/agent/types';

describe('renderTestCommand', () => {
  test('fills ids, names, files and one name pattern, shell-quoted', () => {
    const cmd = renderTestCommand('run {ids} -- {names} | {files} | {namePattern}', [
      { id: 'test::cart > total sums', name: 'cart > total sums', file: 'test/cart.test.ts' },
      { id: "tests.x::it's", name: "it's" },
    ]);
    assert.equal(cmd, `run 'test::cart > total sums' 'tests.x::it'\\''s' -- 'total sums' 'it'\\''s' | test/cart.test.ts | '^total sums$|^it'\\''s$'`);
  });
  test('no targets: placeholders vanish (the whole suite runs)', () => {
    assert.equal(renderTestCommand('pytest {ids}', []), 'pytest');
  });
  test('the name pattern escapes regular-expression characters', () => {
    assert.equal(renderTestCommand('{namePattern}', [{ id: 'a::f(x) [1]' }]), "'^f\\(x\\) \\[1\\]$'");
  });
});

describe('matchesTarget', () => {
  const r: TestResult = { id: 'test::cart > total sums', name: 'cart > total sums', classname: 'test', status: 'failed' };
  test('exact id, full name, last segment', () => {
    assert.equal(matchesTarget(r, 'test::cart > total sums'), true);
    assert.equal(matchesTarget(r, 'cart > total sums'), true);
    assert.equal(matchesTarget(r, 'total sums'), true);
  });
  test('a different test does not match', () => {
    assert.equal(matchesTarget(r, 'total'), false);
    assert.equal(matchesTarget(r, 'other::cart > total sums'), false);
  });
});

describe('findReports', () => {
  test('a plain path is returned as is; a glob walks below its fixed prefix, skipping node_modules', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-reports-'));
    try {
      for (const f of ['reports/a.xml', 'reports/sub/b.xml', 'reports/c.txt', 'node_modules/x/reports/d.xml']) {
        mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        writeFileSync(path.join(dir, f), '');
      }
      assert.deepEqual(await findReports(dir, 'reports/**/*.xml'), ['reports/a.xml', 'reports/sub/b.xml']);
      assert.deepEqual(await findReports(dir, 'reports/*.xml'), ['reports/a.xml']);
      assert.deepEqual(await findReports(dir, '**/*.xml'), ['reports/a.xml', 'reports/sub/b.xml']);
      assert.deepEqual(await findReports(dir, 'junit.xml'), ['junit.xml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('didNotRun recognises only the placeholder for a missing target', () => {
  assert.equal(didNotRun({ id: 'a', name: 'a', status: 'error', message: 'did not run: the test is not in the JUnit report' }), true);
  assert.equal(didNotRun({ id: 'a', name: 'a', status: 'error', message: 'TypeError: boom' }), false);
});

describe('repeated test ids (parametrised tests, runners that name every assertion alike)', () => {
  const FIXTURES = path.join(process.cwd(), 'test/fixtures/junit');
  async function readBoth() {
    const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-dupes-'));
    try {
      mkdirSync(path.join(dir, 'reports'));
      copyFileSync(path.join(FIXTURES, 'vitest-each.xml'), path.join(dir, 'reports/a-vitest.xml'));
      copyFileSync(path.join(FIXTURES, 'node-tap-xunit.xml'), path.join(dir, 'reports/b-tap.xml'));
      // the same report twice (a retried shard): ids stay unique across reports too
      copyFileSync(path.join(FIXTURES, 'node-tap-xunit.xml'), path.join(dir, 'reports/c-tap.xml'));
      return await readTestReports(dir, 'reports/*.xml');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('ids are unique across the reports by the ingestion rule, and the renames are reported as warnings', async () => {
    const { results, warnings, reportError } = await readBoth();
    assert.equal(reportError, undefined);
    const ids = results.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(ids.slice(0, 3), [
      'test/clamp.test.ts::clamp > keeps the value inside the range',
      'test/clamp.test.ts::clamp > keeps the value inside the range [2]',
      'test/clamp.test.ts::clamp > keeps the value inside the range [3]',
    ]);
    // the second report's ids are renamed as ingestion renames an upload's (lib/ingest collectFailures)
    assert.deepEqual(ids.slice(3), [
      'test/parse.js::should be equal',
      'test/parse.js::should be equal [2]',
      'test/parse.js::should be equal [3]',
      'test/parse.js::should be equal [4]',
      'test/parse.js::should be equal [2] [2]',
      'test/parse.js::should be equal [3] [2]',
    ]);
    assert.ok(
      warnings.some((w) => /repeated test id test\/clamp\.test\.ts::clamp > keeps the value inside the range stored as .* \[2\]/.test(w)),
      warnings.join('\n'),
    );
    assert.ok(
      warnings.some((w) => w.includes('across reports stored as test/parse.js::should be equal [3] [2]')),
      warnings.join('\n'),
    );
  });

  test('a target fails when any of its instances fails (here the second one)', async () => {
    const { results } = await readBoth();
    const [vitest, tap] = selectTargetResults(results, [
      { id: 'test/clamp.test.ts::clamp > keeps the value inside the range' },
      { id: 'test/parse.js::should be equal' },
    ]);
    assert.equal(vitest.status, 'failed');
    assert.equal(vitest.id, 'test/clamp.test.ts::clamp > keeps the value inside the range');
    assert.match(vitest.message ?? '', /expected 10 to be 9/);
    assert.match(vitest.message ?? '', /instance 2 of 3/);
    assert.equal(tap.status, 'failed');
    assert.match(tap.details ?? '', /wanted: 4/);
    // every instance of every report answers to the target: its second report's failures too
    const [second] = selectTargetResults(results.slice(6), [{ id: 'test/parse.js::should be equal' }]);
    assert.equal(second.status, 'failed');
  });

  test('an ingested instance id ("<id> [2]") and a bare name reach the same instances', async () => {
    const { results } = await readBoth();
    const [byInstance, byName] = selectTargetResults(results, [
      { id: 'test/clamp.test.ts::clamp > keeps the value inside the range [3]' },
      { id: 'keeps the value inside the range' },
    ]);
    assert.equal(byInstance.status, 'failed');
    assert.equal(byName.status, 'failed');
  });

  test('a target passes only when every instance passes', () => {
    const pass = (id: string): TestResult => ({ id, name: 'n', status: 'passed' });
    const [t] = selectTargetResults([pass('f::n'), pass('f::n [2]'), { id: 'f::other', name: 'other', status: 'failed' }], [{ id: 'f::n' }]);
    assert.equal(t.status, 'passed');
    const [missing] = selectTargetResults([pass('f::n')], [{ id: 'f::gone' }]);
    assert.equal(didNotRun(missing), true);
  });
});

describe('commandTimeoutMs', () => {
  test('a command gets its own limit, cut to what is left of the run, and nothing once the deadline passed', () => {
    assert.equal(commandTimeoutMs(60, undefined, 1000), 60_000);
    assert.equal(commandTimeoutMs(60, 1000 + 90_000, 1000), 60_000);
    assert.equal(commandTimeoutMs(60, 1000 + 5_000, 1000), 5_000);
    assert.equal(commandTimeoutMs(60, 1000, 1000), 0);
    assert.equal(commandTimeoutMs(60, 500, 1000), 0);
  });
});

describe('a report cut short', () => {
  test('a JUnit report cut off mid-write is a report error; a TAP stream cut off is read, and marked incomplete', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-cut-'));
    try {
      writeFileSync(path.join(dir, 'junit.xml'), '<?xml version="1.0"?>\n<testsuites>\n\t<testcase name="a" classname="test"/>\n\t<testcase name="b" cla');
      const junit = await readTestReports(dir, 'junit.xml');
      assert.match(junit.reportError ?? '', /^junit\.xml: JUnit report is not well-formed XML/);
      writeFileSync(path.join(dir, 'report.tap'), 'TAP version 13\n# Subtest: a\nok 1 - a\n  ---\n  duration_ms: 1\n  ...\n');
      const tap = await readTestReports(dir, 'report.tap');
      assert.equal(tap.reportError, undefined);
      assert.deepEqual(
        tap.results.map((r) => [r.id, r.status]),
        [['tap::a', 'passed']],
      );
      assert.equal(tap.incomplete, 'report.tap: the TAP stream ends before its plan (1..N), after 1 result(s)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
