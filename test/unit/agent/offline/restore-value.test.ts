import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as restore from '../../../../agent/policies/offline/restore';
import type { Mutation } from '../../../../agent/policies/offline/model';

// restore-value (restore.ts): the change replaced a whole value (an
// expression, a block) by a literal (`""`, `true`/`false`, `[]`, `{}`, `0`,
// `undefined`, Python's `None`): the candidate puts back what the change's own
// diff removed, at that place in the head file.

function applied(source: string, m: Mutation): string {
  return source.slice(0, m.range.start) + m.replacement + source.slice(m.range.end);
}

const fn = (restore as unknown as { restoreValueMutations?: (i: { diff: string; file: string; source: string; start: number; end: number }) => Mutation[] })
  .restoreValueMutations;

function run(diff: string, file: string, source: string, start = 1, end = source.split('\n').length): string[] {
  assert.ok(fn, 'restoreValueMutations is not exported');
  return fn({ diff, file, source, start, end }).map((m) => applied(source, m));
}

describe('restore-value', () => {
  const BASE = 'export function label(user: { name: string }): string {\n  const name = user.name.trim();\n  return `Hi ${name}`;\n}\n';

  test('an expression the change replaced by "" comes back', () => {
    const head = BASE.replace('user.name.trim()', '""');
    const diff = [
      'diff --git a/src/label.ts b/src/label.ts',
      '--- a/src/label.ts',
      '+++ b/src/label.ts',
      '@@ -1,4 +1,4 @@',
      ' export function label(user: { name: string }): string {',
      '-  const name = user.name.trim();',
      '+  const name = "";',
      '   return `Hi ${name}`;',
      ' }',
      '',
    ].join('\n');
    assert.deepEqual(run(diff, 'src/label.ts', head), [BASE]);
  });

  test('a block the change emptied to {} comes back, and a Python value replaced by None', () => {
    const base = 'export function total(xs: number[]): number {\n  let t = 0;\n  for (const x of xs) {\n    t += x;\n  }\n  return t;\n}\n';
    const head = 'export function total(xs: number[]): number {\n  let t = 0;\n  for (const x of xs) {}\n  return t;\n}\n';
    const diff = [
      '--- a/m.ts',
      '+++ b/m.ts',
      '@@ -1,7 +1,5 @@',
      ' export function total(xs: number[]): number {',
      '   let t = 0;',
      '-  for (const x of xs) {',
      '-    t += x;',
      '-  }',
      '+  for (const x of xs) {}',
      '   return t;',
      ' }',
      '',
    ].join('\n');
    assert.deepEqual(run(diff, 'm.ts', head), [base]);
    const pyHead = 'def area(w, h):\n    return None\n';
    const pyDiff = '--- a/geo.py\n+++ b/geo.py\n@@ -1,2 +1,2 @@\n def area(w, h):\n-    return w * h\n+    return None\n';
    assert.deepEqual(run(pyDiff, 'geo.py', pyHead), ['def area(w, h):\n    return w * h\n']);
  });

  test('nothing for a change to a non-literal, for another file, for a hunk outside the suspect, or a literal replaced by a literal', () => {
    const head = BASE.replace('user.name.trim()', 'user.name');
    const diff =
      '--- a/src/label.ts\n+++ b/src/label.ts\n@@ -1,4 +1,4 @@\n export function label(user: { name: string }): string {\n-  const name = user.name.trim();\n+  const name = user.name;\n   return `Hi ${name}`;\n }\n';
    assert.deepEqual(run(diff, 'src/label.ts', head), []);
    const lit = BASE.replace('user.name.trim()', '""');
    const litDiff = diff.replace('+  const name = user.name;', '+  const name = "";');
    assert.deepEqual(run(litDiff, 'other.ts', lit), []);
    assert.deepEqual(run(litDiff, 'src/label.ts', lit, 3, 4), []);
    const flip = 'export const on = false;\n';
    assert.deepEqual(run('--- a/f.ts\n+++ b/f.ts\n@@ -1 +1 @@\n-export const on = true;\n+export const on = false;\n', 'f.ts', flip), []);
  });
});
