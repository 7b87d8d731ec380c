import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { detectTestFiles, isTestPath } from '@/agent/testing/test-files';

const LIBS = path.join(process.cwd(), 'test/fixtures/agent-libs');
const DEFAULT_PATTERNS = ['**/*.test.*', '**/*.spec.*', '**/test/**', '**/tests/**', '**/__tests__/**', '**/test_*.py', '**/*_test.py'];

describe('isTestPath: the common layouts', () => {
  const tests = [
    'test.js',
    'tests.js',
    'test.mjs',
    'lib/test.ts',
    'test/index.js',
    'test/helpers/load-data.js',
    'tests/fixtures/rows.json',
    'spec/parse_spec.js',
    'specs/parse.js',
    'src/__tests__/parse.js',
    'src/__mocks__/fs.js',
    'src/parse.spec.ts',
    'src/parse.test.mjs',
    'test_parse.py',
    'pkg/tests/test_core.py',
    'pkg/core_test.py',
    'conftest.py',
    'pkg/conftest.py',
  ];
  const production = [
    'index.js',
    'lib/parse.js',
    'src/testing-utils-free.js',
    'src/contest.py',
    'src/attest.js',
    'src/latest.ts',
    'src/spectrum.js',
    'pkg/core.py',
    'src/test-runner.ts',
  ];
  for (const f of tests) test(`${f} is a test or test helper`, () => assert.equal(isTestPath(f), true));
  for (const f of production) test(`${f} is production code`, () => assert.equal(isTestPath(f), false));
});

describe('detectTestFiles: the runner configuration and the failing tests', () => {
  test("package.json scripts.test names the runner's own files and folders", () => {
    const files = detectTestFiles({ root: path.join(LIBS, 'layouts/mocha-spec'), patterns: DEFAULT_PATTERNS });
    assert.equal(files.is('integration/run.js'), true);
    assert.equal(files.is('spec/helpers/load-data.js'), true);
    assert.equal(files.is('src/parse.js'), false);
    assert.ok(files.sources.includes('package.json scripts.test'), files.sources.join(', '));
  });

  test('jest testMatch', () => {
    const files = detectTestFiles({ root: path.join(LIBS, 'layouts/jest-match'), patterns: DEFAULT_PATTERNS });
    assert.equal(files.is('checks/add.js'), true);
    assert.equal(files.is('src/add.js'), false);
  });

  test('pytest testpaths and python_files in pyproject.toml: the folder and its helpers', () => {
    const files = detectTestFiles({ root: path.join(LIBS, 'layouts/pytest-paths'), patterns: DEFAULT_PATTERNS });
    assert.equal(files.is('checks/check_core.py'), true);
    assert.equal(files.is('checks/data.py'), true);
    assert.equal(files.is('app/core.py'), false);
  });

  test("the failing tests' own files, wherever they are", () => {
    const files = detectTestFiles({ root: path.join(LIBS, 'slug-main'), patterns: DEFAULT_PATTERNS, failingTestFiles: ['examples/slugify.js'] });
    assert.equal(files.is('examples/slugify.js'), true);
    assert.equal(files.is('test.js'), true);
    assert.equal(files.is('lib/slugify.js'), false);
  });
});
