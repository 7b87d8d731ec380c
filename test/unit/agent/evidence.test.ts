import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseJunitXml } from '@/lib/junit/parse';
import { extractEvidence, parseExpectedActual } from '@/agent/testing/evidence';
import { parseTap } from '@/agent/testing/runners';
import type { TestRun } from '@/agent/types';

function runFrom(fixture: string, output = ''): TestRun {
  const xml = readFileSync(path.join('test/fixtures/junit', fixture), 'utf8');
  return {
    command: { command: 'x', exitCode: 1, signal: null, timedOut: false, durationMs: 1, output, truncatedBytes: 0 },
    results: parseJunitXml(xml).results,
  };
}

describe('extractEvidence', () => {
  test('node --test: assert values, V8 frames from file:// URLs, node internals dropped', () => {
    const ev = extractEvidence({ run: runFrom('node-test.xml'), root: '/home/ci/cart', files: ['cart.test.mjs', 'cart.mjs'] });
    assert.deepEqual(
      ev.failingTests.map((t) => t.id),
      ['test::cart > total sums prices', 'test::cart > empty cart', 'test::top-level throws'],
    );
    assert.deepEqual(ev.expectedActual[0], { testId: 'test::cart > total sums prices', actual: '4', expected: '3', operator: 'strictEqual' });
    assert.deepEqual(ev.expectedActual[1], { testId: 'test::cart > empty cart', actual: '{ a: 1 }', expected: '{ a: 0 }', operator: 'deepStrictEqual' });
    assert.deepEqual(
      ev.frames.map((f) => `${f.file}:${f.line}`),
      ['cart.test.mjs:5', 'cart.test.mjs:6', 'cart.test.mjs:11'],
    );
    assert.equal(ev.failingTests[0].file, 'cart.test.mjs');
  });

  test('pytest: assertion operands, traceback locations with their functions', () => {
    const files = ['shop/__init__.py', 'shop/cart.py', 'tests/__init__.py', 'tests/test_cart.py'];
    const ev = extractEvidence({ run: runFrom('pytest.xml'), root: '/home/ci/shop', files });
    assert.deepEqual(
      ev.expectedActual.find((e) => e.testId === 'tests.test_cart::test_total'),
      {
        testId: 'tests.test_cart::test_total',
        actual: '4',
        expected: '3',
        operator: '==',
      },
    );
    assert.ok(ev.frames.some((f) => f.file === 'shop/cart.py' && f.line === 6 && f.fn === 'average'));
    assert.ok(ev.frames.some((f) => f.file === 'tests/test_cart.py' && f.line === 8 && f.fn === 'test_total'));
    assert.ok(ev.symbols.includes('total'));
    assert.ok(ev.symbols.includes('average'));
    assert.ok(ev.messages.includes('ZeroDivisionError: division by zero'));
    assert.equal(ev.failingTests.find((t) => t.id === 'tests.test_cart::test_total')?.file, 'tests/test_cart.py');
  });

  test('targets narrow the evidence to the tests under repair', () => {
    const files = ['shop/cart.py', 'tests/test_cart.py'];
    const ev = extractEvidence({ run: runFrom('pytest.xml'), root: '/r', files, targets: ['tests.test_cart.TestAverage::test_empty'] });
    assert.deepEqual(
      ev.failingTests.map((t) => t.id),
      ['tests.test_cart.TestAverage::test_empty'],
    );
  });

  test('jest-junit: Expected/Received, deep diffs, CI paths mapped by suffix', () => {
    const files = ['src/cart.ts', 'src/cart.test.ts', 'src/discount.ts'];
    const ev = extractEvidence({ run: runFrom('jest-junit.xml'), root: '/somewhere/else', files });
    assert.deepEqual(ev.expectedActual[0], { testId: 'src/cart.test.ts::Cart total sums prices', expected: '3', actual: '4', operator: 'toBe' });
    assert.deepEqual(ev.expectedActual[1].expected, '"total": 90,');
    assert.deepEqual(ev.expectedActual[1].actual, '"total": 100,');
    assert.ok(ev.frames.some((f) => f.file === 'src/cart.test.ts' && f.line === 8));
    assert.ok(ev.frames.some((f) => f.file === 'src/discount.ts' && f.line === 5 && f.fn === 'applyDiscount'));
    assert.ok(!ev.frames.some((f) => f.file.includes('node_modules')));
  });

  test('vitest: ❯ frames with function names', () => {
    const files = ['src/cart.test.ts', 'src/price.ts', 'src/price.test.ts'];
    const ev = extractEvidence({ run: runFrom('vitest.xml'), root: '/r', files });
    assert.deepEqual(ev.expectedActual[0], { testId: 'src/cart.test.ts::cart > total sums prices', expected: '3', actual: '4' });
    assert.ok(ev.frames.some((f) => f.file === 'src/price.ts' && f.line === 3 && f.fn === 'formatCents'));
    assert.ok(ev.symbols.includes('formatCents'));
  });

  test('Surefire: Java frames mapped through the package path, library frames dropped', () => {
    const files = ['src/main/java/com/example/shop/Cart.java', 'src/test/java/com/example/shop/CartTest.java'];
    const ev = extractEvidence({ run: runFrom('surefire.xml'), root: '/r', files });
    assert.deepEqual(ev.expectedActual[0], {
      testId: 'com.example.shop.CartTest::totalSumsPrices',
      expected: '3',
      actual: '4',
      operator: 'assertEquals',
    });
    assert.deepEqual(
      ev.frames.map((f) => `${f.file}:${f.line}:${f.fn}`),
      [
        'src/test/java/com/example/shop/CartTest.java:14:CartTest.totalSumsPrices',
        'src/main/java/com/example/shop/Cart.java:9:Cart.total',
        'src/test/java/com/example/shop/CartTest.java:20:CartTest.nullCart',
      ],
    );
  });

  test('go-junit-report: test log lines and panic frames', () => {
    const files = ['cart/cart.go', 'cart/cart_test.go', 'price/price.go', 'price/price_test.go'];
    const ev = extractEvidence({ run: runFrom('go-junit-report.xml'), root: '/home/ci/shop', files });
    assert.deepEqual(ev.expectedActual[0], { testId: 'example.com/shop/cart::TestTotal', actual: '4', expected: '3' });
    assert.ok(ev.frames.some((f) => f.file === 'cart/cart_test.go' && f.line === 12));
    assert.ok(ev.frames.some((f) => f.file === 'price/price.go' && f.line === 14 && f.fn === 'Format'));
  });

  test('no report: frames come from the command output', () => {
    const run: TestRun = {
      command: {
        command: 'npm test',
        exitCode: 1,
        signal: null,
        timedOut: false,
        durationMs: 5,
        output: 'TypeError: x is not a function\n    at load (/w/src/boot.ts:3:9)\n    at node:internal/main:1:1\n',
        truncatedBytes: 0,
      },
      results: [],
      reportError: 'no JUnit report',
    };
    const ev = extractEvidence({ run, root: '/w', files: ['src/boot.ts'] });
    assert.deepEqual(ev.frames, [{ file: 'src/boot.ts', line: 3, column: 9, fn: 'load' }]);
  });
});

describe('ava --tap', () => {
  // what ava 6 prints for a failing t.is(actual, expected): the values as a diff, where the assertion was
  const AVA_TAP = `TAP version 13
not ok 1 - camelCase › number then separator
  ---
    name: AssertionError
    message: ''
    assertion: t.is()
    values:
      'Difference (- actual, + expected):': |-
        - 'b2BRegistrationRequest'
        + 'b2bRegistrationRequest'
    at: 'file:///home/ci/camelcase/test.js:5:4'
  ...
ok 2 - camelCase › plain

1..2
# tests 2
# pass 1
# fail 1
`;
  test('the diff gives the actual and expected values, `at:` the frame', () => {
    const results = parseTap(AVA_TAP);
    const run: TestRun = { command: { command: 'x', exitCode: 1, signal: null, timedOut: false, durationMs: 1, output: '', truncatedBytes: 0 }, results };
    const ev = extractEvidence({ run, root: '/home/ci/camelcase', files: ['index.js', 'test.js'] });
    assert.deepEqual(ev.expectedActual, [
      { testId: 'tap::camelCase › number then separator', actual: "'b2BRegistrationRequest'", expected: "'b2bRegistrationRequest'", operator: 'is' },
    ]);
    assert.deepEqual(
      ev.frames.map((f) => `${f.file}:${f.line}`),
      ['test.js:5'],
    );
  });
});

describe('parseExpectedActual', () => {
  test('returns null when there is nothing to read', () => {
    assert.equal(parseExpectedActual('t', 'Segmentation fault'), null);
  });
  test('pytest comparison operators other than ==', () => {
    assert.deepEqual(parseExpectedActual('t', 'E       assert 5 <= 3'), { testId: 't', actual: '5', expected: '3', operator: '<=' });
  });
  test("pytest's JUnit message, which starts with the exception name", () => {
    assert.deepEqual(parseExpectedActual('t', 'AssertionError: assert 4 == 3\n +  where 4 = pages(7, 2)'), {
      testId: 't',
      actual: '4',
      expected: '3',
      operator: '==',
    });
  });
});
