import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedLinesOf } from '../../../lib/fixes/views';

const DIFF = [
  'diff --git a/src/cart.ts b/src/cart.ts',
  '--- a/src/cart.ts',
  '+++ b/src/cart.ts',
  '@@ -10,3 +10,3 @@ export function total',
  ' const xs = items();',
  '-return xs.reduce((a, b) => a + b, 1);',
  '+return xs.reduce((a, b) => a + b, 0);',
  ' }',
  'diff --git a/src/new.ts b/src/new.ts',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/src/new.ts',
  '@@ -0,0 +1,2 @@',
  '+export const a = 1;',
  '+export const b = 2;',
  '',
].join('\n');

test('the changed lines of a fix, per file and hunk, with both sides’ line numbers', () => {
  const c = changedLinesOf(DIFF);
  assert.equal(c.omittedLines, 0);
  assert.deepEqual(
    c.files.map((f) => [f.path, f.status]),
    [
      ['src/cart.ts', 'modified'],
      ['src/new.ts', 'added'],
    ],
  );
  assert.deepEqual(c.files[0].hunks[0].lines, [
    { type: ' ', text: 'const xs = items();', oldLine: 10, newLine: 10 },
    { type: '-', text: 'return xs.reduce((a, b) => a + b, 1);', oldLine: 11, newLine: null },
    { type: '+', text: 'return xs.reduce((a, b) => a + b, 0);', oldLine: null, newLine: 11 },
    { type: ' ', text: '}', oldLine: 12, newLine: 12 },
  ]);
  assert.equal(c.files[0].hunks[0].header, '@@ -10,3 +10,3 @@');
  assert.deepEqual(
    c.files[1].hunks[0].lines.map((l) => [l.type, l.newLine]),
    [
      ['+', 1],
      ['+', 2],
    ],
  );
});

test('a long diff is cut at a number of lines, and says how many more there are', () => {
  const long = ['--- a/x.txt', '+++ b/x.txt', '@@ -1,0 +1,50 @@', ...Array.from({ length: 50 }, (_, i) => `+line ${i}`), ''].join('\n');
  const c = changedLinesOf(long, 20);
  assert.equal(c.files[0].hunks[0].lines.length, 20);
  assert.equal(c.omittedLines, 30);
});
