import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { runPostFilters, type PostFilterReason } from '@/agent/filters/post';
import { repairTargets, runPreFilters, type PreFilterInput } from '@/lib/triage/pre-filters';
import { editedSpans, parseUnifiedDiff } from '@/agent/edits/diff';
import { FilterPolicySchema, RepositorySettingsSchema } from '@/common/settings';
import { gitDiff } from '../../helpers/git-diff';

const policy = FilterPolicySchema.parse({});
const testPathPatterns = RepositorySettingsSchema.parse({}).testPathPatterns;

// ───── pre-execution ─────

function pre(overrides: Partial<PreFilterInput['change']> = {}, extra: Partial<PreFilterInput> = {}) {
  return runPreFilters({
    policy,
    change: { author: 'ada', filesChanged: 3, language: 'typescript', headRev: 'h1', latestHeadRev: 'h1', ...overrides },
    failingTests: ['a::x', 'a::y'],
    ...extra,
  });
}

describe('pre-execution filters', () => {
  test('a plain change passes every filter and keeps its targets', () => {
    const d = pre();
    assert.equal(d.skip, false);
    assert.deepEqual(d.skip === false && d.targets, ['a::x', 'a::y']);
    assert.deepEqual(
      d.checks.map((c) => c.filter),
      ['stale_revision', 'draft', 'bot_author', 'unsupported_language', 'too_many_files_changed', 'too_many_failing_tests', 'known_flaky'],
    );
  });

  const cases: Array<[string, Parameters<typeof pre>, string]> = [
    ['a draft pull request', [{ draft: true }], 'draft'],
    ['bot author by name', [{ author: 'dependabot[bot]' }], 'bot_author'],
    ['bot author by kind', [{ authorKind: 'BOT' }], 'bot_author'],
    ['too many files changed', [{ filesChanged: 51 }], 'too_many_files_changed'],
    ['too many failing tests', [{}, { failingTests: Array.from({ length: 21 }, (_, i) => `t::${i}`) }], 'too_many_failing_tests'],
    ['every failing test known flaky', [{}, { knownFlaky: ['a::x', 'a::y'] }], 'known_flaky'],
    ['unsupported language', [{ language: 'go' }], 'unsupported_language'],
    ['a newer revision exists', [{ latestHeadRev: 'h2' }], 'stale_revision'],
  ];
  for (const [name, args, reason] of cases) {
    test(`skips: ${name}`, () => {
      const d = pre(...args);
      assert.equal(d.skip, true);
      assert.equal(d.skip && d.reason, reason);
    });
    test(`does not skip when the repository turns "${reason}" off: ${name}`, () => {
      const key = {
        draft: 'draft',
        bot_author: 'botAuthor',
        too_many_files_changed: 'tooManyFilesChanged',
        too_many_failing_tests: 'tooManyFailingTests',
        known_flaky: 'knownFlaky',
        unsupported_language: 'unsupportedLanguage',
        stale_revision: 'staleRevision',
      }[reason]!;
      const [change, extra] = args;
      const d = runPreFilters({
        policy: FilterPolicySchema.parse({ pre: { [key]: false } }),
        change: { author: 'ada', filesChanged: 3, language: 'typescript', headRev: 'h1', latestHeadRev: 'h1', ...change },
        failingTests: ['a::x', 'a::y'],
        ...extra,
      });
      assert.equal(d.skip, false);
    });
  }

  test('the draft filter is on by default and a change not known as a draft passes it', () => {
    assert.equal(policy.pre.draft, true);
    const d = pre({ draft: false });
    assert.equal(d.skip, false);
    assert.deepEqual(
      d.checks.find((c) => c.filter === 'draft'),
      { filter: 'draft', enabled: true, triggered: false, detail: 'ready for review' },
    );
  });

  test('known-flaky tests are left out of the targets when others remain', () => {
    const d = pre({}, { knownFlaky: ['a::x'] });
    assert.equal(d.skip, false);
    assert.deepEqual(d.skip === false && d.targets, ['a::y']);
  });

  test('repair targets: known-flaky tests dropped only when the policy says so and others remain', () => {
    const failingTests = ['a::x', 'a::y'];
    assert.deepEqual(repairTargets({ failingTests, knownFlaky: ['a::x'], dropKnownFlaky: true }), ['a::y']);
    assert.deepEqual(repairTargets({ failingTests, knownFlaky: ['a::x'], dropKnownFlaky: false }), ['a::x', 'a::y']);
    // a run started by hand on an all-flaky failure still reproduces something
    assert.deepEqual(repairTargets({ failingTests, knownFlaky: ['a::x', 'a::y'], dropKnownFlaky: true }), ['a::x', 'a::y']);
  });

  test('the targets of a revision that passes the filters are its repair targets', () => {
    const d = runPreFilters({
      policy: FilterPolicySchema.parse({ pre: { knownFlaky: false } }),
      change: { author: 'ada', filesChanged: 3, language: 'typescript', headRev: 'h1', latestHeadRev: 'h1' },
      failingTests: ['a::x', 'a::y'],
      knownFlaky: ['a::x'],
    });
    assert.deepEqual(d.skip === false && d.targets, repairTargets({ failingTests: ['a::x', 'a::y'], knownFlaky: ['a::x'], dropKnownFlaky: false }));
  });
});

// ───── post-execution ─────

const TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../src/cart.ts';

test('total', () => {
  const result = total([1, 2]);
  assert.equal(result, 3);
});
`;
const SRC = `export function total(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

export function label(n: number): string {
  return 'total: ' + n;
}
`;
const PY_TEST = `from shop.cart import total


def test_total():
    assert total([1, 2]) == 3
`;

function post(fixDiff: string, extra: { changeDiff?: string; stale?: boolean; policy?: unknown } = {}) {
  return runPostFilters({
    fixDiff,
    changeDiff: extra.changeDiff ?? '',
    policy: extra.policy ? FilterPolicySchema.parse(extra.policy) : policy,
    testPathPatterns,
    stale: extra.stale,
  });
}

function assertDropped(fixDiff: string, reason: PostFilterReason, extra: Parameters<typeof post>[1] = {}) {
  const d = post(fixDiff, extra);
  assert.equal(d.drop, true, `expected ${reason}, kept:\n${fixDiff}`);
  assert.equal(d.drop && d.reason, reason, d.drop ? d.detail : '');
}

function assertKept(fixDiff: string, extra: Parameters<typeof post>[1] = {}) {
  const d = post(fixDiff, extra);
  assert.equal(d.drop, false, d.drop ? `${d.reason}: ${d.detail}` : '');
}

const sourceFix = gitDiff({ 'src/cart.ts': [SRC.replace('a + b', 'a - b'), SRC] });

describe('post-execution filters', () => {
  test('a source-only fix is kept', () => assertKept(sourceFix));

  test('empty_diff', () => {
    assertDropped('', 'empty_diff');
    assertKept(sourceFix);
  });

  test('outside_repository', () => {
    assertDropped('--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+evil\n', 'outside_repository');
    assertDropped('--- /dev/null\n+++ b//etc/cron.d/x\n@@ -0,0 +1 @@\n+* * * * * root sh\n', 'outside_repository');
  });

  test('binary_files', () => {
    assertDropped(gitDiff({ 'assets/logo.png': [Buffer.from([0, 1, 2, 3]), Buffer.from([0, 1, 2, 4])] }), 'binary_files');
  });

  test('deletes_tests, both ways', () => {
    assertDropped(gitDiff({ 'test/cart.test.ts': [TEST, null] }), 'deletes_tests');
    assertKept(gitDiff({ 'src/unused.ts': ['export const x = 1;\n', null], 'src/cart.ts': [SRC.replace('a + b', 'a - b'), SRC] }));
  });

  test('renames_tests, both ways', () => {
    assertDropped(gitDiff({ 'test/cart.test.ts': [TEST, null], 'test/cart.test.ts.disabled': [null, TEST] }), 'renames_tests');
    assertDropped(gitDiff({ 'tests/test_cart.py': [PY_TEST, null], 'tests/cart_check.py.bak': [null, PY_TEST] }), 'renames_tests');
    assertKept(gitDiff({ 'src/cart.ts': [SRC, null], 'src/basket.ts': [null, SRC] }));
  });

  test('disables_tests: skip, only, todo, @Ignore, xfail, node options — and a new plain test is fine', () => {
    for (const after of [
      TEST.replace("test('total'", "test.skip('total'"),
      TEST.replace("test('total'", "test.only('total'"),
      TEST.replace("test('total'", "test.todo('total'"),
      TEST.replace("test('total', ()", "test('total', { skip: true }, ()"),
      TEST.replace("test('total'", "xit('total'"),
    ]) {
      assertDropped(gitDiff({ 'test/cart.test.ts': [TEST, after] }), 'disables_tests');
    }
    assertDropped(gitDiff({ 'tests/test_cart.py': [PY_TEST, PY_TEST.replace('def test_total', '@pytest.mark.skip\ndef test_total')] }), 'disables_tests');
    assertDropped(
      gitDiff({ 'tests/test_cart.py': [PY_TEST, PY_TEST.replace('def test_total', '@pytest.mark.xfail(reason="later")\ndef test_total')] }),
      'disables_tests',
    );
    const java = 'class CartTest {\n  @Test\n  void total() {\n    assertEquals(3, cart.total());\n  }\n}\n';
    assertDropped(gitDiff({ 'src/test/java/CartTest.java': [java, java.replace('  @Test\n', '  @Test\n  @Ignore\n')] }), 'disables_tests');
    assertKept(
      gitDiff({
        'test/cart.test.ts': [TEST, TEST + "\ntest('total of one', () => {\n  assert.equal(total([4]), 4);\n});\n"],
        'src/cart.ts': [SRC.replace('a + b', 'a - b'), SRC],
      }),
    );
  });

  test('removes_assertions: deleted or commented out, both ways', () => {
    assertDropped(gitDiff({ 'test/cart.test.ts': [TEST, TEST.replace('  assert.equal(result, 3);\n', '')] }), 'removes_assertions');
    assertDropped(gitDiff({ 'test/cart.test.ts': [TEST, TEST.replace('  assert.equal(result, 3);', '  // assert.equal(result, 3);')] }), 'removes_assertions');
    assertDropped(gitDiff({ 'tests/test_cart.py': [PY_TEST, PY_TEST.replace('    assert total', '    # assert total')] }), 'removes_assertions');
    // updating the expected value keeps the assertion
    assertKept(gitDiff({ 'test/cart.test.ts': [TEST, TEST.replace('assert.equal(result, 3)', 'assert.equal(result, 4)')] }));
  });

  test('swallows_assertions: try/catch around an assertion, both ways', () => {
    const wrapped = TEST.replace('  assert.equal(result, 3);\n', '  try {\n    assert.equal(result, 3);\n  } catch {\n    // flaky\n  }\n');
    assertDropped(gitDiff({ 'test/cart.test.ts': [TEST, wrapped] }), 'swallows_assertions');
    const py = PY_TEST.replace('    assert total([1, 2]) == 3\n', '    try:\n        assert total([1, 2]) == 3\n    except AssertionError:\n        pass\n');
    assertDropped(gitDiff({ 'tests/test_cart.py': [PY_TEST, py] }), 'swallows_assertions');
    // error handling added to source code is not a test being swallowed
    const guarded = SRC.replace("  return 'total: ' + n;", "  try {\n    return 'total: ' + n.toFixed(2);\n  } catch {\n    return 'total: ?';\n  }");
    assertKept(gitDiff({ 'src/cart.ts': [SRC, guarded] }));
  });

  test('weakens_assertions: exact value to inequality or looser, both ways', () => {
    assertDropped(gitDiff({ 'test/cart.test.ts': [TEST, TEST.replace('assert.equal(result, 3)', 'assert.ok(result > 2)')] }), 'weakens_assertions');
    assertDropped(gitDiff({ 'tests/test_cart.py': [PY_TEST, PY_TEST.replace('== 3', '>= 3')] }), 'weakens_assertions');
    const jest = "test('t', () => {\n  expect(total([1, 2])).toBe(3);\n});\n";
    assertDropped(gitDiff({ 'src/cart.test.ts': [jest, jest.replace('.toBe(3)', '.toBeGreaterThan(2)')] }), 'weakens_assertions');
    assertDropped(gitDiff({ 'src/cart.test.ts': [jest, jest.replace('.toBe(3)', '.toBeTruthy()')] }), 'weakens_assertions');
    // a new exact expectation (the behaviour changed on purpose) is not weaker
    assertKept(gitDiff({ 'tests/test_cart.py': [PY_TEST, PY_TEST.replace('== 3', '== 4')] }));
  });

  test('reverts_change: undoing the whole change is dropped, undoing one line of it is not', () => {
    const changed = SRC.replace('a + b', 'a - b').replace("'total: '", "'Total: '");
    const changeDiff = gitDiff({ 'src/cart.ts': [SRC, changed] });
    assertDropped(gitDiff({ 'src/cart.ts': [changed, SRC] }), 'reverts_change', { changeDiff });
    assertKept(gitDiff({ 'src/cart.ts': [changed, changed.replace('a - b', 'a + b')] }), { changeDiff });
    // a change that only adds a line, fixed by rewriting that line: the base never had the fixed line
    const added = SRC.replace("  return 'total: ' + n;", "  n = Math.min(n, 0);\n  return 'total: ' + n;");
    const addDiff = gitDiff({ 'src/cart.ts': [SRC, added] });
    assertKept(gitDiff({ 'src/cart.ts': [added, added.replace('Math.min(n, 0)', 'Math.max(n, 0)')] }), { changeDiff: addDiff });
    assertDropped(gitDiff({ 'src/cart.ts': [added, SRC] }), 'reverts_change', { changeDiff: addDiff });
  });

  test('stale, both ways', () => {
    assertDropped(sourceFix, 'stale', { stale: true });
    assertKept(sourceFix, { stale: false });
  });

  test('too_large', () => {
    const big = SRC + Array.from({ length: 500 }, (_, i) => `export const c${i} = ${i};`).join('\n') + '\n';
    assertDropped(gitDiff({ 'src/cart.ts': [SRC, big] }), 'too_large');
  });

  test('a filter the repository turned off does not drop', () => {
    const fix = gitDiff({ 'test/cart.test.ts': [TEST, TEST.replace("test('total'", "test.skip('total'")] });
    assertKept(fix, { policy: { post: { disablesTests: false } } });
  });
});

describe('diff reading', () => {
  test('edited spans are head-side line ranges of each hunk', () => {
    const changed = SRC.replace('a + b', 'a - b');
    assert.deepEqual(editedSpans(gitDiff({ 'src/cart.ts': [SRC, changed] })), [{ file: 'src/cart.ts', startLine: 2, endLine: 2 }]);
    const files = parseUnifiedDiff(gitDiff({ 'a.ts': ['x\n', null], 'b.ts': [null, 'y\n'] }));
    assert.deepEqual(
      files.map((f) => [f.status, f.oldPath, f.newPath]),
      [
        ['deleted', 'a.ts', null],
        ['added', null, 'b.ts'],
      ],
    );
  });
});

describe('test and test-helper edits are never a fix, bar a stale expectation the change contradicts', () => {
  const ROOT_TEST = `const assert = require('node:assert');\nconst { slugify } = require('.');\nassert.equal(slugify('A B'), 'a-b');\n`;
  // the arguments of the change's own new assertion, swapped: passes nothing the developer wrote
  const swapped = gitDiff({ 'test.js': [ROOT_TEST, ROOT_TEST.replace("slugify('A B'), 'a-b'", "'a-b', slugify('A B')")] });
  const helper = gitDiff({ 'spec/helpers/load-data.js': ['module.exports = () => [1, 2];\n', 'module.exports = () => [1, 2, 3];\n'] });

  test('a root test.js edit is dropped as a test edit when the change does not contradict it', () => {
    const d = runPostFilters({ fixDiff: swapped, changeDiff: '', policy, testPathPatterns, testEditsAllowed: false });
    assert.equal(d.drop, true);
    assert.equal(d.drop && d.reason, 'edits_tests');
    assert.match(d.drop ? d.detail : '', /test\.js/);
  });

  test("a helper beside the tests is a test file for every filter (the runner's configuration says so)", () => {
    const d = runPostFilters({
      fixDiff: helper,
      changeDiff: '',
      policy,
      testPathPatterns: [],
      testEditsAllowed: false,
      isTestFile: (f) => f.startsWith('spec/'),
    });
    assert.equal(d.drop && d.reason, 'edits_tests');
  });

  test('a stale expectation the change contradicts may be updated', () => {
    const stale = gitDiff({ 'test/greet.test.ts': ["assert.equal(greet('Ada'), 'Hello, Ada');\n", "assert.equal(greet('Ada'), 'Hi, Ada');\n"] });
    assert.equal(runPostFilters({ fixDiff: stale, changeDiff: '', policy, testPathPatterns, testEditsAllowed: true }).drop, false);
  });

  test('a production edit is not a test edit', () => {
    assert.equal(runPostFilters({ fixDiff: sourceFix, changeDiff: '', policy, testPathPatterns, testEditsAllowed: false }).drop, false);
  });
});
