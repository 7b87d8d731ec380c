import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { didNotRun, findReports, matchesTarget, renderTestCommand } from '@/agent/test-runner';
import type { TestResult } from '@/agent/types';

describe('renderTestCommand', () => {
  test('fills ids, names, files and one name pattern, shell-quoted', () => {
    const cmd = renderTestCommand('run {ids} -- {names} | {files} | {namePattern}', [
      { id: 'test::cart > total sums', name: 'cart > total sums', file: 'test/cart.test.ts' },
      { id: "tests.x::it's", name: "it's" },
    ]);
    assert.equal(
      cmd,
      `run 'test::cart > total sums' 'tests.x::it'\\''s' -- 'total sums' 'it'\\''s' | test/cart.test.ts | '^total sums$|^it'\\''s$'`,
    );
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
