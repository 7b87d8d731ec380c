// What is a test or a test helper. One answer for localisation (suspects are
// production code), the offline policy (no edit candidates in test code) and
// the post-execution filters (assertions deleted, weakened, disabled): a file
// one of them takes for production code and another for a test is how a fix
// that rewrites the change's own assertion slips through.
//
// Three sources: the layouts runners use by convention, the repository's own
// runner configuration (package.json `scripts.test`, jest/vitest/mocha/ava
// settings, pytest's `testpaths` and `python_files`), and the failing tests'
// own files, wherever they are.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { matcher } from '../workspace/glob';

const CONVENTION = new RegExp(
  [
    // folders of tests and what lives beside them (helpers, fixtures, mocks, data loaders)
    '(^|/)(tests?|__tests__|specs?|__mocks__|__fixtures__|fixtures)/',
    // test files by name
    '\\.(test|spec)\\.[cm]?[jt]sx?$',
    '_(test|spec)\\.[cm]?[jt]sx?$',
    '(^|/)tests?\\.([cm]?[jt]sx?|py)$',
    '(^|/)test_[^/]*\\.py$',
    '_test\\.(py|go)$',
    '(^|/)conftest\\.py$',
  ].join('|'),
);

/** Test files and helpers by the layouts node:test, jest, vitest, mocha, tape, ava, node-tap and pytest use. */
export function isTestPath(file: string): boolean {
  return CONVENTION.test(file.replace(/^\.\//, ''));
}

export interface TestFiles {
  /** a test or a test helper: never offered as a fix, except a stale expectation the change contradicts */
  is(file: string): boolean;
  /** the globs learnt from the repository (the conventions and the settings' patterns come on top) */
  patterns: string[];
  /** where they came from ("package.json scripts.test", "pyproject.toml testpaths", …) */
  sources: string[];
}

const SOURCE_EXT = /\.([cm]?[jt]sx?|py|coffee)$/;

function readText(root: string, rel: string): string | null {
  const abs = path.join(root, rel);
  try {
    return existsSync(abs) ? readFileSync(abs, 'utf8') : null;
  } catch {
    return null;
  }
}

/** A path or glob from a configuration, as a workspace-relative glob (a folder becomes everything below it). */
function asGlob(value: string): string | null {
  let v = value
    .trim()
    .replace(/^['"]|['"]$/g, '')
    .replace(/^\.\//, '')
    .replace(/^<rootDir>\//, '');
  if (!v || v.startsWith('-') || v.startsWith('$') || v.includes('node_modules') || v.startsWith('/') || v.startsWith('..')) return null;
  v = v.replace(/\/$/, '');
  if (v === '.' || v === '**' || v === '**/*') return null;
  if (/[*?{]/.test(v)) return v.replace(/\{([^{}]*)\}/g, '*');
  if (SOURCE_EXT.test(v)) return v;
  // a bare word is a folder only when it looks like a path, not a runner's argument ("dot", "spec")
  if (v.includes('/') || /^(tests?|specs?|__tests__|checks?|e2e|integration)$/.test(v)) return `${v}/**`;
  return null;
}

/** File and folder arguments in a shell command line ("mocha 'spec/**' test/x.js"). */
function commandPaths(command: string): string[] {
  const out: string[] = [];
  for (const token of command.match(/'[^']*'|"[^"]*"|[^\s;&|]+/g) ?? []) {
    const g = asGlob(token);
    if (g && !/^(node|npx|npm|mocha|jest|vitest|tape|tap|ava|pytest|python3?)$/.test(token)) out.push(g);
  }
  return out;
}

/** String literals in `key: [...]` or `key: '...'` of a JS/JSON/YAML configuration. */
function configStrings(text: string, key: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`["']?${key}["']?\\s*[:=]\\s*(\\[[^\\]]*\\]|"[^"]*"|'[^']*'|[^\\s,}]+)`, 'g');
  for (const m of text.matchAll(re)) {
    const value = m[1];
    const strings = value.startsWith('[') ? (value.match(/"[^"]*"|'[^']*'|[^\s,[\]]+/g) ?? []) : [value];
    out.push(...strings.map((s) => s.replace(/^['"]|['"]$/g, '')));
  }
  return out;
}

/** pytest's `testpaths`/`python_files` in an ini-style section or pyproject.toml. */
function pytestOption(text: string, section: RegExp, key: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  let inside = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*\[/.test(line)) inside = section.test(line.trim());
    else if (inside) {
      const m = new RegExp(`^\\s*${key}\\s*=\\s*(.*)$`).exec(line);
      if (!m) continue;
      let value = m[1];
      // an ini value continues on indented lines; a TOML array may span lines
      while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]) || (value.includes('[') && !value.includes(']')))) value += ` ${lines[++i].trim()}`;
      out.push(...(value.match(/"[^"]*"|'[^']*'|[^\s,[\]]+/g) ?? []).map((s) => s.replace(/^['"]|['"]$/g, '')));
    }
  }
  return out;
}

/** The repository's tests and test helpers: conventions, its runner's configuration, the settings, the failing tests' files. */
export function detectTestFiles(input: { root: string; patterns?: string[]; failingTestFiles?: string[] }): TestFiles {
  const { root } = input;
  const learnt: string[] = [];
  const sources: string[] = [];
  const learn = (source: string, globs: Array<string | null>) => {
    const good = globs.filter((g): g is string => !!g);
    if (good.length === 0) return;
    learnt.push(...good);
    sources.push(source);
  };

  const pkgText = readText(root, 'package.json');
  if (pkgText) {
    try {
      const pkg = JSON.parse(pkgText) as {
        scripts?: Record<string, string>;
        jest?: { testMatch?: string[]; roots?: string[] };
        mocha?: { spec?: string | string[] };
        ava?: { files?: string[] };
      };
      for (const name of ['test', 'test:unit', 'test:node', 'unit', 'spec']) {
        const script = pkg.scripts?.[name];
        if (script) learn(`package.json scripts.${name}`, commandPaths(script));
      }
      learn('package.json jest.testMatch', (pkg.jest?.testMatch ?? []).map(asGlob));
      learn('package.json mocha.spec', [pkg.mocha?.spec ?? []].flat().map(asGlob));
      learn('package.json ava.files', (pkg.ava?.files ?? []).filter((f) => !f.startsWith('!')).map(asGlob));
    } catch {
      // not JSON: the conventions still apply
    }
  }
  for (const file of ['jest.config.js', 'jest.config.cjs', 'jest.config.mjs', 'jest.config.ts', 'jest.config.json']) {
    const text = readText(root, file);
    if (text) learn(`${file} testMatch`, configStrings(text, 'testMatch').map(asGlob));
  }
  for (const file of ['vitest.config.ts', 'vitest.config.js', 'vitest.config.mjs', 'vite.config.ts', 'vite.config.js']) {
    const text = readText(root, file);
    if (text) learn(`${file} include`, configStrings(text, 'include').map(asGlob));
  }
  for (const file of ['.mocharc.json', '.mocharc.jsonc', '.mocharc.yml', '.mocharc.yaml', '.mocharc.js', '.mocharc.cjs']) {
    const text = readText(root, file);
    if (text) learn(`${file} spec`, configStrings(text, 'spec').map(asGlob));
  }
  for (const file of ['ava.config.js', 'ava.config.cjs', 'ava.config.mjs']) {
    const text = readText(root, file);
    if (text)
      learn(
        `${file} files`,
        configStrings(text, 'files')
          .filter((f) => !f.startsWith('!'))
          .map(asGlob),
      );
  }
  const pytestConfigs: Array<[string, RegExp]> = [
    ['pytest.ini', /^\[pytest\]$/],
    ['tox.ini', /^\[pytest\]$/],
    ['setup.cfg', /^\[tool:pytest\]$/],
    ['pyproject.toml', /^\[tool\.pytest\.ini_options\]$/],
  ];
  for (const [file, section] of pytestConfigs) {
    const text = readText(root, file);
    if (!text) continue;
    learn(
      `${file} testpaths`,
      pytestOption(text, section, 'testpaths').map((p) => asGlob(p.includes('/') || SOURCE_EXT.test(p) ? p : `${p}/`) ?? `${p}/**`),
    );
    learn(
      `${file} python_files`,
      pytestOption(text, section, 'python_files').map((p) => `**/${p}`),
    );
  }
  const failing = [...new Set((input.failingTestFiles ?? []).map((f) => f.replace(/^\.\//, '')))];
  if (failing.length) sources.push('the failing tests');

  const patterns = [...new Set(learnt)];
  const configured = matcher([...(input.patterns ?? []), ...patterns]);
  const own = new Set(failing);
  return {
    is: (file: string) => {
      const f = file.replace(/^\.\//, '');
      return own.has(f) || isTestPath(f) || configured(f);
    },
    patterns,
    sources,
  };
}
