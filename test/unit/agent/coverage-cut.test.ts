import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { coverageCut } from '@/agent/testing/runners';

// How the coverage run cuts a runner with many tests per process
// (agent/coverage/index.ts): the runner named by the test command, and the
// name filters that pick the failing tests alone and every other test.

/** The single-quoted argument after `flag` (as /bin/sh would pass it). */
function arg(args: string, flag: string): string {
  const m = new RegExp(`${flag}[ =]'((?:[^']|'\\\\'')*)'`).exec(args);
  assert.ok(m, `${flag} in ${args}`);
  return m[1]!.replace(/'\\''/g, "'");
}

describe('coverageCut', () => {
  test('the runner of the commands detection writes; none for node:test or an unknown script', () => {
    assert.equal(coverageCut('jest {files} --ci --json --outputFile=flowfix-report.json')?.runner, 'jest');
    assert.equal(coverageCut('npx vitest run {files} --reporter=junit')?.runner, 'vitest');
    assert.equal(coverageCut('node_modules/.bin/_mocha --reporter xunit')?.runner, 'mocha');
    assert.equal(coverageCut('ava --tap > flowfix-report.tap')?.runner, 'ava');
    assert.equal(coverageCut('tap --reporter=tap --no-coverage > flowfix-report.tap')?.runner, 'node-tap');
    assert.equal(coverageCut("tape 'test/**/*.js' > flowfix-report.tap")?.runner, 'tape');
    assert.equal(coverageCut('node --test --test-reporter=junit'), undefined);
    assert.equal(coverageCut('node test/run.mjs > report.tap'), undefined, 'the report file .tap is not the runner');
    assert.equal(coverageCut('python3 -m pytest {files}'), undefined);
  });

  test('jest and vitest: a full name ending with a target name runs alone; every other test runs in the other run', () => {
    for (const runner of ['jest', 'vitest']) {
      const cut = coverageCut(`${runner} {files}`)!;
      const names = ['multiplies price (by) quantity', "it's *"];
      const only = new RegExp(arg(cut.only!(names), '-t'), 'i');
      const except = new RegExp(arg(cut.except!(names), '-t'), 'i');
      for (const full of ['total multiplies price (by) quantity', "it's *", 'multiplies price (by) quantity']) {
        assert.ok(only.test(full), full);
        assert.ok(!except.test(full), full);
      }
      for (const full of ['total is 0 for no items', 'multiplies price (by) quantity twice']) {
        assert.ok(!only.test(full), full);
        assert.ok(except.test(full), full);
      }
    }
    assert.match(coverageCut('vitest run')!.only!(['x']), /--pool=threads/);
  });

  test('mocha and node-tap invert their own grep; ava negates each title; tape has no filter', () => {
    assert.match(coverageCut('mocha')!.except!(['a']), /--grep '\(\?:a\)\$' --invert$/);
    assert.match(coverageCut('tap')!.only!(['git+ssh urls']), /^--grep='\^\(\?:git\\\+ssh urls\)\$'$/);
    assert.equal(coverageCut('ava')!.only!(['adds', '*weird']), "--match adds --match '?weird'");
    assert.equal(coverageCut('ava')!.except!(['adds']), "--match '!adds'");
    // the part of a reported name each filter matches: node-tap's top-level subtest (TAP names the file, then the assertion), the others' leaf
    assert.equal(coverageCut('tap')!.filterName('test/total.js > multiplies price by quantity > should be equal'), 'multiplies price by quantity');
    assert.equal(coverageCut('tap')!.filterName('multiplies price by quantity'), 'multiplies price by quantity');
    assert.equal(coverageCut('jest')!.filterName('total > multiplies price by quantity'), 'multiplies price by quantity');
    const tape = coverageCut('tape test/*.js')!;
    assert.equal(tape.only, null);
    assert.equal(tape.except, null);
  });
});
