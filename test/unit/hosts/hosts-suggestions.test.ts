import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rightSideLines, suggestionsFor } from '../../../lib/code-review/suggestions';

const PR_PATCH =
  '@@ -1,3 +1,4 @@\n export const sum = (a, b) => a - b;\n-export const two = 2;\n+export const two = 3;\n+export const three = 3;\n export const four = 4;';
const FIX =
  'diff --git a/sum.js b/sum.js\n--- a/sum.js\n+++ b/sum.js\n@@ -2,2 +2,2 @@\n-export const two = 3;\n+export const two = 2;\n export const three = 3;\n';

describe('suggested changes', () => {
  test('the new side of a pull request patch: added and context lines', () => {
    assert.deepEqual([...rightSideLines(PR_PATCH)], [1, 2, 3, 4]);
  });

  test('a hunk inside the pull request diff becomes one suggestion over the lines it replaces', () => {
    const s = suggestionsFor(FIX, [{ filename: 'sum.js', patch: PR_PATCH }]);
    assert.deepEqual(s, [{ path: 'sum.js', startLine: 2, line: 3, body: '```suggestion\nexport const two = 2;\nexport const three = 3;\n```' }]);
  });

  test('any hunk outside the diff (other lines, another file, no patch) → none at all', () => {
    assert.equal(suggestionsFor(FIX.replace('@@ -2,2 +2,2 @@', '@@ -9,2 +9,2 @@'), [{ filename: 'sum.js', patch: PR_PATCH }]), null);
    assert.equal(suggestionsFor(FIX, [{ filename: 'other.js', patch: PR_PATCH }]), null);
    assert.equal(suggestionsFor(FIX, [{ filename: 'sum.js' }]), null);
  });
});
