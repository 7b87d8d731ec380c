import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffPathProblems } from '../../../lib/diff/apply';
import { surfaceFor } from '../../../lib/fixes/schemas';

const diff = (from: string, to: string, extra = '') => `diff --git a/${from} b/${to}\n${extra}--- a/${from}\n+++ b/${to}\n@@ -1 +1 @@\n-a\n+b\n`;

test('a diff that stays in the working tree has no problems', () => {
  assert.deepEqual(diffPathProblems(diff('src/cart.js', 'src/cart.js')), []);
  assert.deepEqual(diffPathProblems(diff('a..b/x.js', 'a..b/x.js')), [], '".." inside a name is not a parent folder');
  // a hunk line that looks like a header is content
  assert.deepEqual(diffPathProblems('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-rename to ../y\n+copy to ../z\n a\n'), []);
});

test('absolute paths, parent folders, .git and rename/copy targets outside are each named', () => {
  assert.deepEqual(diffPathProblems(diff('../up.js', '../up.js')), ['"../up.js" is outside the repository']);
  assert.deepEqual(diffPathProblems('--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n'), ['"/etc/passwd" is outside the repository']);
  assert.deepEqual(diffPathProblems(diff('.git/config', '.git/config')), ['".git/config" is inside .git']);
  assert.deepEqual(diffPathProblems(diff('x.js', 'x.js', 'similarity index 90%\nrename from x.js\nrename to ../x.js\n')), [
    '"../x.js" is outside the repository',
  ]);
  assert.deepEqual(diffPathProblems('diff --git a/x.js b/y.js\ncopy from x.js\ncopy to sub/../../y.js\n'), ['"sub/../../y.js" is outside the repository']);
});

test('the surface comes from how the caller authenticated', () => {
  assert.equal(surfaceFor('cookie'), 'DASHBOARD');
  assert.equal(surfaceFor('personal_token'), 'CLI');
  assert.equal(surfaceFor('token'), 'API');
});
