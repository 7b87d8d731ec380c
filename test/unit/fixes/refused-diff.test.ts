import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { renderComment } from '@/lib/code-review/review-view';
import { formatFix } from '@/cli/fix';
import { inertDiff } from '@/common/text';

// A fix nobody may apply (dropped by a filter, rejected, made for an older
// head) is shown indented wherever flowfix prints it, so that a script that
// looks for "diff --git" in a terminal or a pull request comment and applies
// what follows never picks it up. A fix on offer is shown as a diff.

const DIFF = [
  'diff --git a/src/cart.ts b/src/cart.ts',
  '--- a/src/cart.ts',
  '+++ b/src/cart.ts',
  '@@ -1,3 +1,3 @@',
  ' export function total(items) {',
  '-  return items.reduce((s, i) => s + i.price + i.qty, 0);',
  '+  return items.reduce((s, i) => s + i.price * i.qty, 0);',
  ' }',
  '',
].join('\n');

const appliable = (text: string) => text.split('\n').some((l) => /^(diff --git |--- a\/|\+\+\+ b\/|@@ )/.test(l));

const comment = (status: 'READY' | 'APPLIED' | 'REJECTED' | 'STALE') =>
  renderComment({
    changeId: 'c1',
    detailsUrl: 'https://flowfix.example/changes/c1',
    fix: { id: 'fix1', status, diff: DIFF, summary: 'price times quantity', appliedCommit: status === 'APPLIED' ? 'a'.repeat(40) : null },
    suggestionsPosted: false,
    rejectedBecause: 'wrong function',
    staleBecause: 'a newer commit exists',
  } as Parameters<typeof renderComment>[0]);

const shown = (status: string) =>
  formatFix({
    id: 'fix1',
    status,
    runId: 'r1',
    summary: 'price times quantity',
    appliedCommit: null,
    files: ['src/cart.ts'],
    diff: DIFF,
    evidence: { gates: [], targets: [], proof: null },
    change: { externalId: '42', title: 'cart', repository: 'shop', branch: 'b', headRev: 'a'.repeat(40) },
  } as unknown as Parameters<typeof formatFix>[0]);

describe('a fix nobody may apply is never printed as a diff', () => {
  test('inertDiff keeps every line, each behind a bar', () => {
    const text = inertDiff(DIFF);
    assert.equal(text.split('\n').length, DIFF.trimEnd().split('\n').length);
    assert.ok(!appliable(text));
    assert.match(text, /^ {4}\| diff --git a\/src\/cart\.ts b\/src\/cart\.ts$/m);
    assert.match(text, /^ {4}\| \+ {2}return items\.reduce\(\(s, i\) => s \+ i\.price \* i\.qty, 0\);$/m);
  });

  test('the pull request comment: a rejected or stale fix indented, a fix on offer or applied as a diff', () => {
    for (const status of ['REJECTED', 'STALE'] as const) {
      const text = comment(status);
      assert.ok(!appliable(text), `${status}: ${text}`);
      assert.match(text, /indented so that no tool applies it/);
      assert.match(text, /^ {4}\| diff --git /m);
    }
    for (const status of ['READY', 'APPLIED'] as const) assert.ok(appliable(comment(status)), status);
  });

  test('`flowfix fix show`: a dropped, rejected or stale fix indented, a ready one as a diff', () => {
    for (const status of ['DROPPED', 'REJECTED', 'STALE']) {
      const text = shown(status);
      assert.ok(!appliable(text), `${status}: ${text}`);
      assert.match(text, /indented so that no tool applies it/);
    }
    assert.ok(appliable(shown('READY')));
    assert.ok(appliable(shown('APPLIED')));
  });
});
