import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RepositorySettings } from '@/common/settings';
import { RepositorySettingsSchema } from '@/common/settings';

// Real git repositories for the agent's tests: a small TypeScript project
// tested with `node --test` (through tsx, type-checked by tsc as the build)
// and a small Python project tested with pytest. Each has a base commit whose
// tests pass and a head commit (the "change") that breaks one of them.

const ROOT = process.cwd();
const TSX = path.join(ROOT, 'node_modules/tsx/dist/loader.mjs');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

export interface TestRepo {
  dir: string;
  base: string;
  head: string;
  settings: RepositorySettings;
  git(...args: string[]): string;
  write(rel: string, content: string): void;
  remove(rel: string): void;
  commit(message: string): string;
  cleanup(): void;
}

export function makeRepo(prefix: string): Omit<TestRepo, 'base' | 'head' | 'settings'> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' } as unknown as NodeJS.ProcessEnv,
    }).trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'dev@example.com');
  git('config', 'user.name', 'Dev');
  git('config', 'commit.gpgsign', 'false');
  const write = (rel: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  };
  const remove = (rel: string) => unlinkSync(path.join(dir, rel));
  const commit = (message: string) => {
    git('add', '--all');
    git('commit', '-q', '--allow-empty', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  return { dir, git, write, remove, commit, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const TS_CART_BASE = `export interface Item {
  price: number;
  qty: number;
}

export function total(items: Item[]): number {
  let sum = 0;
  for (const item of items) {
    sum += item.price * item.qty;
  }
  return sum;
}

export function applyDiscount(amount: number, percent: number): number {
  if (percent > 100) {
    throw new Error('discount above 100%');
  }
  return amount - (amount * percent) / 100;
}
`;

export const TS_CART_TEST = `import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { total, applyDiscount } from '../src/cart.ts';

describe('cart', () => {
  test('total multiplies price by quantity', () => {
    assert.equal(total([{ price: 5, qty: 3 }, { price: 1, qty: 2 }]), 17);
  });
  test('empty cart totals zero', () => {
    assert.equal(total([]), 0);
  });
  test('discount takes a percentage off', () => {
    assert.equal(applyDiscount(200, 10), 180);
  });
});
`;

/** The change breaks total(): `*` became `+`. */
export const TS_CART_HEAD = TS_CART_BASE.replace('sum += item.price * item.qty;', 'sum += item.price + item.qty;');

export function tsSettings(overrides: Partial<RepositorySettings> = {}): RepositorySettings {
  return RepositorySettingsSchema.parse({
    language: 'typescript',
    build: `node ${TSC} -p . --noEmit`,
    test: `node --import ${TSX} --test --test-reporter=junit --test-reporter-destination=junit.xml test/*.test.ts`,
    junitReport: 'junit.xml',
    timeLimits: { testSeconds: 60, buildSeconds: 120, regressionSeconds: 120 },
    ...overrides,
  });
}

/** A TypeScript project whose head commit breaks `cart > total multiplies price by quantity`. */
export function createTsRepo(opts: { head?: string } = {}): TestRepo {
  const repo = makeRepo('flowfix-tsrepo-');
  repo.write('package.json', JSON.stringify({ name: 'shop', private: true, type: 'module' }, null, 2) + '\n');
  repo.write(
    'tsconfig.json',
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          skipLibCheck: true,
          types: [],
        },
        include: ['src/**/*.ts'],
      },
      null,
      2,
    ) + '\n',
  );
  repo.write('.gitignore', 'junit.xml\nnode_modules/\n');
  repo.write('src/cart.ts', TS_CART_BASE);
  repo.write('test/cart.test.ts', TS_CART_TEST);
  repo.write('README.md', '# shop\n');
  const base = repo.commit('base: cart with tests');
  repo.write('src/cart.ts', opts.head ?? TS_CART_HEAD);
  repo.write('README.md', '# shop\n\nTotals now computed in one pass.\n');
  const head = repo.commit('change: rework total');
  return { ...repo, base, head, settings: tsSettings() };
}

export const PY_CART_BASE = `def total(items):
    return sum(price * qty for price, qty in items)


def average_price(items):
    if not items:
        return 0
    return total(items) / len(items)
`;

/** The change adds item_count() and, by mistake, turns `price * qty` into `price + qty`. */
export const PY_CART_HEAD = PY_CART_BASE.replace('price * qty', 'price + qty') + '\n\ndef item_count(items):\n    return sum(qty for _, qty in items)\n';

export const PY_CART_TEST = `from shop.cart import total, average_price


def test_total():
    assert total([(5, 3), (1, 2)]) == 17


def test_average_empty():
    assert average_price([]) == 0


def test_average():
    assert average_price([(2, 1), (4, 1)]) == 3
`;

export function pySettings(overrides: Partial<RepositorySettings> = {}): RepositorySettings {
  return RepositorySettingsSchema.parse({
    language: 'python',
    test: 'python3 -m pytest -q -p no:cacheprovider --junitxml=junit.xml tests',
    junitReport: 'junit.xml',
    timeLimits: { testSeconds: 60 },
    ...overrides,
  });
}

/** A Python project whose head commit breaks total() (and average_price() through it). */
export function createPyRepo(): TestRepo {
  const repo = makeRepo('flowfix-pyrepo-');
  repo.write('.gitignore', 'junit.xml\n__pycache__/\n');
  repo.write('shop/__init__.py', '');
  repo.write('shop/cart.py', PY_CART_BASE);
  repo.write('tests/__init__.py', '');
  repo.write('tests/test_cart.py', PY_CART_TEST);
  const base = repo.commit('base');
  repo.write('shop/cart.py', PY_CART_HEAD);
  const head = repo.commit('change: item_count, and a slip in total');
  return { ...repo, base, head, settings: pySettings() };
}

/**
 * A JavaScript library tested with mocha as its package.json says, and no
 * flowfix settings at all: `npm test` runs `npm run unit`, which runs mocha
 * with its own reporter and --bail. Mocha comes from the npm registry
 * (devDependencies), installed by the run. `lock`: with a package-lock.json
 * (written here by `npm install --package-lock-only`, which needs the registry).
 */
export function createMochaRepo(opts: { lock?: boolean } = {}): Omit<TestRepo, 'settings'> {
  const repo = makeRepo('flowfix-mocharepo-');
  repo.write(
    'package.json',
    JSON.stringify(
      {
        name: 'totals',
        version: '1.0.0',
        private: true,
        scripts: { test: 'npm run unit', unit: 'mocha --reporter dot --bail --timeout 10000 test/' },
        devDependencies: { mocha: '10.8.2' },
      },
      null,
      2,
    ) + '\n',
  );
  repo.write('.gitignore', 'node_modules/\njunit.xml\n');
  repo.write(
    'index.js',
    'exports.total = function total(items) {\n  let sum = 0;\n  for (const item of items) sum += item.price + item.qty;\n  return sum;\n};\n',
  );
  repo.write(
    'test/total.test.js',
    "const assert = require('node:assert/strict');\nconst { total } = require('..');\n\ndescribe('total', () => {\n  it('is 0 for no items', () => {\n    assert.equal(total([]), 0);\n  });\n});\n",
  );
  if (opts.lock) {
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: repo.dir, stdio: 'ignore' });
  }
  const base = repo.commit('base');
  // as a real bug is framed: the code was wrong already, the change adds the test that shows it
  repo.write(
    'test/total.test.js',
    "const assert = require('node:assert/strict');\nconst { total } = require('..');\n\ndescribe('total', () => {\n  it('is 0 for no items', () => {\n    assert.equal(total([]), 0);\n  });\n  it('multiplies price by quantity', () => {\n    assert.equal(total([{ price: 5, qty: 3 }]), 15);\n  });\n});\n",
  );
  const head = repo.commit('test: total of one item');
  return { ...repo, base, head };
}

/** A runner's layout as real libraries have it: package.json, its config files, the tests at base and at head. */
export interface RunnerLayout {
  packageJson: object;
  /** config files and other files at both revisions */
  files?: Record<string, string>;
  /** test files at the base (every test passes) and at the head (the new test fails: the code was wrong already) */
  tests: { base: Record<string, string>; head: Record<string, string> };
}

const TOTAL_JS = 'exports.total = function total(items) {\n  let sum = 0;\n  for (const item of items) sum += item.price + item.qty;\n  return sum;\n};\n';

/**
 * A small npm package with `total()` wrong (price + qty), tested by the
 * layout's runner; the head adds the test that shows it, as a real bug is
 * framed (base = the code with its old tests, head = + the new test).
 */
export function createRunnerRepo(layout: RunnerLayout): Omit<TestRepo, 'settings'> {
  const repo = makeRepo('flowfix-runnerrepo-');
  repo.write('package.json', `${JSON.stringify({ name: 'totals', version: '1.0.0', private: true, main: 'index.js', ...layout.packageJson }, null, 2)}\n`);
  repo.write('.gitignore', 'node_modules/\n');
  repo.write('index.js', TOTAL_JS);
  for (const [rel, text] of Object.entries(layout.files ?? {})) repo.write(rel, text);
  for (const [rel, text] of Object.entries(layout.tests.base)) repo.write(rel, text);
  const base = repo.commit('base');
  for (const [rel, text] of Object.entries(layout.tests.head)) repo.write(rel, text);
  const head = repo.commit('test: total of one item');
  return { ...repo, base, head };
}
