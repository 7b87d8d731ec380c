import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyFilePatch, fragmentsFromPatch, languageForPath, parsePatch, patchPath, PatchMismatchError } from '@/lib/diff/apply';
import { unifiedDiffFromTexts, isSafeRelativePath } from '@/lib/diff/git-text';
import { gitDiff } from '../../helpers/git-diff';

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

describe('parsePatch + applyFilePatch over real git diffs', () => {
  const cases: Array<[string, string | null, string | null]> = [
    ['one changed line in the middle', lines(30), lines(30).replace('line 15\n', 'line fifteen\n')],
    ['changes at both ends (two hunks)', lines(40), lines(40).replace('line 1\n', 'first\n').replace('line 40\n', 'last\n')],
    ['lines added and removed', lines(12), lines(12).replace('line 3\n', '').replace('line 9\n', 'line 9\nnew a\nnew b\n')],
    ['no newline at the end, before', 'a\nb\nc', 'a\nB\nc\n'],
    ['no newline at the end, after', 'a\nb\nc\n', 'a\nb\nC'],
    ['an added file', null, 'x = 1\ny = 2\n'],
    ['a deleted file', 'gone\n', null],
    ['content lines that look like headers', '--- a\n+++ b\nkeep\n', '--- a\n+++ c\nkeep\n'],
  ];
  for (const [name, before, after] of cases) {
    test(name, () => {
      const diff = gitDiff({ 'src/file.py': [before, after] });
      const [patch] = parsePatch(diff);
      assert.equal(patchPath(patch), 'src/file.py');
      assert.equal(applyFilePatch({ original: before ?? '', patch }), after ?? '');
    });
  }

  test('several files, statuses and a rename', () => {
    const diff = gitDiff({
      'a.js': ['1\n2\n3\n', '1\n2\n4\n'],
      'b.js': [null, 'new\n'],
      'c.js': ['old\n', null],
    });
    const patches = parsePatch(diff);
    assert.deepEqual(
      patches.map((p) => [patchPath(p), p.status]),
      [
        ['a.js', 'modified'],
        ['b.js', 'added'],
        ['c.js', 'deleted'],
      ],
    );
  });

  test('a hunk that does not match the original is refused, not fuzzed', () => {
    const diff = gitDiff({ 'f.txt': [lines(10), lines(10).replace('line 5\n', 'five\n')] });
    const [patch] = parsePatch(diff);
    assert.throws(() => applyFilePatch({ original: lines(10).replace('line 4\n', 'moved\n'), patch }), PatchMismatchError);
  });
});

describe('fragmentsFromPatch', () => {
  test('puts hunk lines at their real line numbers on each side', () => {
    const before = lines(30);
    const after = before.replace('line 20\n', 'line 20\nextra\n');
    const [patch] = parsePatch(gitDiff({ 'f.txt': [before, after] }));
    const { original, modified } = fragmentsFromPatch(patch);
    assert.equal(original.split('\n')[19], 'line 20');
    assert.equal(modified.split('\n')[20], 'extra');
    assert.equal(modified.split('\n')[21], 'line 21');
    // nothing outside the hunks is invented
    assert.equal(original.split('\n')[0], '');
  });
});

describe('unifiedDiffFromTexts', () => {
  test('writes a diff that applies back to the same texts', async () => {
    const files = [
      { path: 'src/cart.js', original: lines(20), modified: lines(20).replace('line 7\n', 'seven\n') },
      { path: 'src/new.js', original: null, modified: 'export const x = 1;\n' },
    ];
    const diff = await unifiedDiffFromTexts({ files });
    assert.match(diff, /^diff --git a\/src\/cart\.js b\/src\/cart\.js$/m);
    const patches = parsePatch(diff);
    assert.equal(patches.length, 2);
    for (const f of files) {
      const patch = patches.find((p) => patchPath(p) === f.path)!;
      assert.equal(applyFilePatch({ original: f.original ?? '', patch }), f.modified);
    }
  });

  test('no change gives an empty diff', async () => {
    assert.equal(await unifiedDiffFromTexts({ files: [{ path: 'a.txt', original: 'x\n', modified: 'x\n' }] }), '');
  });

  test('refuses paths that leave the folder', async () => {
    await assert.rejects(unifiedDiffFromTexts({ files: [{ path: '../x', original: '', modified: 'y' }] }));
    assert.equal(isSafeRelativePath('a/../../b'), false);
    assert.equal(isSafeRelativePath('-rf'), false);
    assert.equal(isSafeRelativePath('src/a.ts'), true);
  });
});

describe('languageForPath', () => {
  test('maps file names to Monaco language ids', () => {
    assert.equal(languageForPath('src/cart.ts'), 'typescript');
    assert.equal(languageForPath('src/windows.js'), 'javascript');
    assert.equal(languageForPath('ledger/fees.py'), 'python');
    assert.equal(languageForPath('README'), 'plaintext');
  });
});
