import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { detectRunner, whyNoRunner, parseTap, tapCutShort, TAP_REPORT, JUNIT_REPORT } from '@/agent/testing/runners';

const repo = (files: Record<string, string>) => (rel: string) => files[rel] ?? null;
const pkg = (json: object) => JSON.stringify(json);

describe('whyNoRunner', () => {
  test('names the script and what its runner lacks, so a user knows what to set', () => {
    const uvu = repo({ 'package.json': pkg({ scripts: { test: 'uvu -r esm test' }, devDependencies: { uvu: '0.5.1' } }) });
    assert.equal(detectRunner(uvu), null);
    assert.equal(
      whyNoRunner(uvu),
      'package.json scripts.test runs `uvu -r esm test`, and no runner flowfix reads results from (node --test, vitest, jest with jest-junit, mocha, ava, tap, tape, pytest, unittest) is in it or in the dependencies',
    );
    const jest = repo({ 'package.json': pkg({ scripts: { test: 'jest' }, devDependencies: { jest: '29.0.0' } }) });
    assert.match(whyNoRunner(jest), /^jest writes neither JUnit XML nor TAP by itself: add jest-junit to the devDependencies/);
    assert.equal(whyNoRunner(repo({ 'package.json': pkg({ name: 'x' }) })), 'package.json has no scripts.test');
    assert.equal(whyNoRunner(repo({ 'README.md': '# x' })), 'no package.json, pyproject.toml, setup.py, setup.cfg or requirements.txt at the base revision');
  });
});

describe('detectRunner', () => {
  test('node --test in scripts.test: its JUnit reporter and a time limit per test', () => {
    const d = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'node --test test/' } }) }));
    assert.equal(d?.runner, 'node:test');
    assert.equal(d?.language, 'javascript');
    assert.match(d?.test ?? '', /^node --test --test-timeout=\d+ .*--test-reporter=junit --test-reporter-destination=flowfix-report\.xml test\/$/);
    assert.equal(d?.junitReport, JUNIT_REPORT);
  });

  test('TypeScript when there is a tsconfig.json', () => {
    assert.equal(detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'node --test' } }), 'tsconfig.json': '{}' }))?.language, 'typescript');
  });

  const js: Array<[string, object, string, RegExp, string]> = [
    ['vitest', { devDependencies: { vitest: '1' } }, 'vitest', /vitest run .*--reporter=junit --outputFile=flowfix-report\.xml/, JUNIT_REPORT],
    ['jest with jest-junit', { scripts: { test: 'jest' }, devDependencies: { jest: '29', 'jest-junit': '16' } }, 'jest', /--reporters=jest-junit/, JUNIT_REPORT],
    ['mocha', { scripts: { test: "mocha --timeout 5000 'spec/**/*.js'" } }, 'mocha', /mocha --reporter xunit --reporter-options output=flowfix-report\.xml .*'spec\/\*\*\/\*\.js'/, JUNIT_REPORT],
    ['ava', { scripts: { test: 'ava' } }, 'ava', /ava --tap > flowfix-report\.tap$/, TAP_REPORT],
    ['node-tap', { scripts: { test: 'tap test/*.js' } }, 'node-tap', /tap --reporter=tap test\/\*\.js > flowfix-report\.tap$/, TAP_REPORT],
    ['tape', { scripts: { test: 'tape test/*.js' } }, 'tape', /tape test\/\*\.js > flowfix-report\.tap$/, TAP_REPORT],
  ];
  for (const [label, json, runner, command, report] of js) {
    test(label, () => {
      const d = detectRunner(repo({ 'package.json': pkg(json) }));
      assert.equal(d?.runner, runner);
      assert.match(d?.test ?? '', command);
      assert.equal(d?.junitReport, report);
    });
  }

  test("mocha: the script's reporter and --bail are dropped with their values, its other options kept", () => {
    const d = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha --reporter spec --bail --check-leaks -r ./setup.js test/' } }) }));
    assert.equal(d?.test, './node_modules/.bin/mocha --reporter xunit --reporter-options output=flowfix-report.xml --check-leaks -r ./setup.js test/');
  });

  test('mocha before 2.2 (no reporter options) writes TAP to the report; 2.2 and later, the version unknown: xunit to the file', () => {
    const old = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha --check-leaks --reporter spec' }, devDependencies: { mocha: '1.21.5' } }) }));
    assert.equal(old?.test, './node_modules/.bin/mocha --reporter tap --check-leaks > flowfix-report.tap');
    assert.equal(old?.junitReport, 'flowfix-report.tap');
    assert.equal(detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha' }, devDependencies: { mocha: '~2.1.0' } }) }))?.junitReport, 'flowfix-report.tap');
    for (const range of ['^2.2.5', '3.x', '>=6', 'latest', '*']) {
      const d = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'mocha' }, devDependencies: { mocha: range } }) }));
      assert.equal(d?.test, './node_modules/.bin/mocha --reporter xunit --reporter-options output=flowfix-report.xml', range);
    }
  });

  test('scripts.test that only runs another script (npm run tests-only) is followed to it', () => {
    const d = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'npm run --silent tests-only', 'tests-only': "nyc tape 'test/*.js'" }, devDependencies: { tape: '5', nyc: '15' } }) }));
    assert.equal(d?.runner, 'tape');
    assert.equal(d?.test, "./node_modules/.bin/tape 'test/*.js' > flowfix-report.tap");
    const m = detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'npm run lint && npm run mocha', mocha: 'mocha --reporter dot' }, devDependencies: { mocha: '6' } }) }));
    assert.equal(m?.test, './node_modules/.bin/mocha --reporter xunit --reporter-options output=flowfix-report.xml');
  });

  test('a package with dependencies gets the install its lock file calls for', () => {
    const json = pkg({ scripts: { test: 'mocha' }, devDependencies: { mocha: '10' } });
    assert.equal(detectRunner(repo({ 'package.json': json }))?.install, 'npm install --no-audit --no-fund --no-package-lock');
    assert.equal(detectRunner(repo({ 'package.json': json, 'package-lock.json': '{}' }))?.install, 'npm ci --no-audit --no-fund');
    assert.equal(detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'node --test' } }) }))?.install, undefined);
    assert.equal(detectRunner(repo({ 'pytest.ini': '[pytest]\n' }))?.install, undefined);
  });

  test('jest without a JUnit reporter is not guessed', () => {
    assert.equal(detectRunner(repo({ 'package.json': pkg({ scripts: { test: 'jest' } }) })), null);
  });

  test('pytest from pyproject.toml, pytest.ini or setup.cfg', () => {
    const configs: Array<Record<string, string>> = [{ 'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' }, { 'pytest.ini': '[pytest]\n' }, { 'setup.cfg': '[tool:pytest]\n' }];
    for (const files of configs) {
      const d = detectRunner(repo(files));
      assert.equal(d?.runner, 'pytest');
      assert.match(d?.test ?? '', /pytest .*--junitxml=flowfix-report\.xml/);
    }
  });

  test('a Python project without pytest runs unittest, its results as TAP', () => {
    const d = detectRunner(repo({ 'setup.py': 'from setuptools import setup\nsetup()\n' }));
    assert.equal(d?.runner, 'unittest');
    assert.equal(d?.junitReport, TAP_REPORT);
    assert.match(d?.test ?? '', /^python3 -c '.*unittest.*' \{names\}$/s);
  });

  test('nothing to go on: nothing detected', () => {
    assert.equal(detectRunner(repo({ 'README.md': '# x' })), null);
  });
});

describe('parseTap', () => {
  test('tape: every assertion named alike, the failure with its YAML diagnostics', () => {
    const tape = [
      'TAP version 13',
      '# slugify',
      'ok 1 should be strictly equal',
      'not ok 2 should be strictly equal',
      '  ---',
      '    operator: equal',
      "    expected: 'hello_world'",
      "    actual:   'hello-world'",
      '    at: Test.<anonymous> (/repo/test/slugify.js:9:5)',
      '  ...',
      'ok 3 should be strictly equal # SKIP not yet',
      '',
      '1..3',
      '# tests 3',
    ].join('\n');
    const results = parseTap(tape);
    assert.deepEqual(
      results.map((r) => [r.id, r.status]),
      [
        ['tap::should be strictly equal', 'passed'],
        ['tap::should be strictly equal [2]', 'failed'],
        ['tap::should be strictly equal [3]', 'skipped'],
      ],
    );
    assert.match(results[1].details ?? '', /expected: 'hello_world'/);
    assert.match(results[1].details ?? '', /test\/slugify\.js:9:5/);
  });

  test('node-tap subtests: leaves named by their parents, the parents themselves not repeated', () => {
    const tap = [
      'TAP version 13',
      '# Subtest: parse',
      '    # Subtest: numbers',
      '        ok 1 - should be equal',
      '        not ok 2 - should be equal',
      '          ---',
      '          found: 3',
      '          wanted: 4',
      '          ...',
      '        1..2',
      '    not ok 1 - numbers',
      '    1..1',
      'not ok 1 - parse',
      '1..1',
    ].join('\n');
    const results = parseTap(tap);
    assert.deepEqual(
      results.map((r) => [r.id, r.status]),
      [
        ['tap::parse > numbers > should be equal', 'passed'],
        ['tap::parse > numbers > should be equal [2]', 'failed'],
      ],
    );
    assert.match(results[1].details ?? '', /wanted: 4/);
  });

  test('a stream cut short: a Bail out!, no plan, or fewer top-level results than the plan; subtests\' own plans do not count', () => {
    assert.equal(tapCutShort('TAP version 13\n1..2\nok 1 - a\nok 2 - b\n'), undefined);
    assert.equal(tapCutShort('TAP version 13\nok 1 - a\nok 2 - b\n1..2\n'), undefined);
    assert.equal(tapCutShort('1..0 # SKIP nothing to run\n'), undefined);
    assert.equal(tapCutShort('TAP version 13\nok 1 - a\n'), 'the TAP stream ends before its plan (1..N), after 1 result(s)');
    assert.equal(tapCutShort('1..3\nok 1 - a\nok 2 - b\n'), 'the TAP stream has 2 of the 3 results its plan announces');
    assert.equal(tapCutShort('1..3\nok 1 - a\nBail out! database unreachable\n'), 'the TAP stream bails out (database unreachable) after 1 result(s)');
    // node-tap: one top-level point per file, its subtests indented with plans of their own
    const nested = ['TAP version 13', '# Subtest: test/a.js', '    ok 1 - x', '    ok 2 - y', '    1..2', 'ok 1 - test/a.js', '1..1'].join('\n');
    assert.equal(tapCutShort(nested), undefined);
    assert.equal(tapCutShort(nested.replace('ok 1 - test/a.js\n1..1', '')), 'the TAP stream ends before its plan (1..N), after 0 result(s)');
  });
});
