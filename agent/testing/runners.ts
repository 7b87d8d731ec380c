// Runners as they are: which test runner a repository uses (package.json
// scripts and devDependencies, config files, pyproject.toml/pytest.ini/
// setup.cfg), and the test command that makes it write a report flowfix reads
// — JUnit XML through the runner's own reporter, or TAP from a runner that
// speaks it — without changing a file of the repository. Also the TAP reader.
import { disambiguateTestIds, relativeTestPath } from '../../lib/junit/parse';
import type { TestResult } from '../types';

export type RunnerName = 'node:test' | 'jest' | 'vitest' | 'mocha' | 'tape' | 'ava' | 'node-tap' | 'pytest' | 'unittest';

export interface DetectedRunner {
  runner: RunnerName;
  language: 'javascript' | 'typescript' | 'python';
  /** the test command template (agent/README.md: placeholders) */
  test: string;
  /** where it writes its report: `.xml` is read as JUnit, `.tap` as TAP */
  junitReport: string;
  /** why this runner: the file and what in it */
  why: string;
  /** the install its dependencies need (a package with dependencies: npm ci with a lock file, npm install without) */
  install?: string;
}

/** Lock files whose presence (not their text) decides the install; `read` answers '' for one that exists. */
export const LOCK_FILES = ['package-lock.json', 'npm-shrinkwrap.json'];

/** scripts.test as it runs: `npm run [--silent] x` (alone or among `&&`) followed one level to scripts.x. */
function effectiveTestScript(scripts: Record<string, string>): string {
  const script = scripts.test ?? '';
  return script.replace(/\bnpm\s+run(?:\s+--?[\w-]+)*\s+([\w:.-]+)/g, (whole, name: string) => (name !== 'test' && scripts[name] !== undefined ? scripts[name] : whole));
}

/** The major and minor version a dependency's range names first (`^1.21.5` → [1, 21]); null when it names none (`*`, a tag, a URL). */
function declaredVersion(range: string | undefined): [number, number] | null {
  const m = /^[\s^~>=v]*(\d+)(?:\.(\d+|x|\*))?/.exec(range ?? '');
  if (!m) return null;
  return [Number(m[1]), /^\d+$/.test(m[2] ?? '') ? Number(m[2]) : 0];
}

/** Mocha's own arguments from a script, without what would fight the JUnit reporter or stop at the first failure. */
function mochaArgs(script: string): string {
  const m = /(?:^|[\s/])mocha\s+([^&|;]*)/.exec(script);
  if (!m) return '';
  return m[1]
    .replace(/(^|\s)(--reporter|-R|--reporter-options?|-O)(\s+|=)\S+/g, ' ')
    .replace(/(^|\s)(--bail|-b|--watch|-w|--forbid-only|--forbid-pending)(?=\s|$)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The report every detected command writes (kept out of the fix by the workspace's excludes). */
export const JUNIT_REPORT = 'flowfix-report.xml';
export const TAP_REPORT = 'flowfix-report.tap';

/** Per-test time limit for runners that have one (node --test): a looping test ends alone, not the whole run. */
export const PER_TEST_TIMEOUT_MS = 60_000;

// unittest has no JUnit or TAP reporter: a few lines of Python make its results TAP (nothing written in the repository)
const UNITTEST_TAP = [
  'import sys, unittest, traceback',
  'names = sys.argv[1:]',
  'loader = unittest.TestLoader()',
  "suite = loader.loadTestsFromNames(names) if names else loader.discover('.')",
  'tests = []',
  'def walk(s):',
  '    for t in s:',
  '        walk(t) if isinstance(t, unittest.TestSuite) else tests.append(t)',
  'walk(suite)',
  "out = open('flowfix-report.tap', 'w')",
  "out.write('TAP version 13\\n1..%d\\n' % len(tests))",
  'for i, t in enumerate(tests, 1):',
  '    r = unittest.TestResult()',
  '    t.run(r)',
  '    bad = r.failures + r.errors',
  '    name = t.id()',
  "    if r.skipped: out.write('ok %d - %s # SKIP\\n' % (i, name))",
  "    elif not bad: out.write('ok %d - %s\\n' % (i, name))",
  '    else:',
  "        out.write('not ok %d - %s\\n  ---\\n' % (i, name))",
  "        for line in bad[0][1].splitlines(): out.write('  # ' + line + '\\n')",
  "        out.write('  ...\\n')",
  'out.close()',
].join('\n');

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The first runner a repository's files name. `read` answers a workspace-relative file's text, or null. */
export function detectRunner(read: (rel: string) => string | null): DetectedRunner | null {
  const pkgText = read('package.json');
  if (pkgText) {
    let pkg: { scripts?: Record<string, string>; devDependencies?: Record<string, string>; dependencies?: Record<string, string>; type?: string } = {};
    try {
      pkg = JSON.parse(pkgText) as typeof pkg;
    } catch {
      pkg = {};
    }
    const script = effectiveTestScript(pkg.scripts ?? {});
    const deps = { ...pkg.dependencies, ...pkg.devDependencies };
    const ts = !!read('tsconfig.json') || 'typescript' in deps;
    const language = ts ? 'typescript' : 'javascript';
    const uses = (name: string, bin = name) => new RegExp(`(^|[\\s/;&|])${bin}(\\s|$)`).test(script) || name in deps;
    const args = (re: RegExp) => (re.exec(script)?.[1] ?? '').trim();
    const bin = (name: string) => `./node_modules/.bin/${name}`;
    const locked = LOCK_FILES.some((f) => read(f) !== null);
    const install = Object.keys(deps).length === 0 ? {} : { install: locked ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund --no-package-lock' };
    const junit = (test: string, runner: RunnerName, why: string): DetectedRunner => ({ runner, language, test, junitReport: JUNIT_REPORT, why, ...install });
    const tap = (test: string, runner: RunnerName, why: string): DetectedRunner => ({ runner, language, test, junitReport: TAP_REPORT, why, ...install });
    if (uses('vitest')) return junit(`${bin('vitest')} run --reporter=default --reporter=junit --outputFile=${JUNIT_REPORT} {files}`, 'vitest', 'package.json: vitest');
    if (uses('jest')) {
      if ('jest-junit' in deps) return junit(`JEST_JUNIT_OUTPUT_NAME=${JUNIT_REPORT} ${bin('jest')} --ci --reporters=default --reporters=jest-junit {files}`, 'jest', 'package.json: jest with jest-junit');
      return null; // jest writes neither JUnit nor TAP by itself: the README says what to add
    }
    if (uses('mocha')) {
      const spec = mochaArgs(script);
      // mocha before 2.2 has no reporter options (its xunit writes to stdout, among the tests' own output): TAP, which
      // every version writes; from 2.2 on `--reporter-options` (an alias of 6's `--reporter-option`) names the file
      const v = declaredVersion(deps.mocha);
      if (v && (v[0] < 2 || (v[0] === 2 && v[1] < 2))) {
        return tap(`${bin('mocha')} --reporter tap ${spec} > ${TAP_REPORT}`.replace(/\s+>/, ' >'), 'mocha', `package.json: mocha ${deps.mocha} (TAP: no reporter options before 2.2)`);
      }
      return junit(`${bin('mocha')} --reporter xunit --reporter-options output=${JUNIT_REPORT} ${spec}`.trim(), 'mocha', 'package.json: mocha');
    }
    if (uses('ava')) return tap(`${bin('ava')} --tap > ${TAP_REPORT}`, 'ava', 'package.json: ava');
    if (uses('tap')) return tap(`${bin('tap')} --reporter=tap ${args(/(?:^|\s)tap\s+([^&|;]*)/)} > ${TAP_REPORT}`.replace(/\s+>/, ' >'), 'node-tap', 'package.json: tap');
    if (uses('tape')) {
      const files = args(/tape\s+([^&|;>]*)/) || "'test/**/*.js'";
      return tap(`${bin('tape')} ${files} > ${TAP_REPORT}`, 'tape', 'package.json: tape');
    }
    const nodeTest = /\bnode\b[^&|;]*--test\b/.exec(script);
    if (nodeTest || /^node\s/.test(script)) {
      // node --test [files]: its own JUnit reporter, a time limit per test
      const rest = script.replace(/^.*?\bnode\b/, '').replace(/--test\b/, '').trim();
      return junit(
        `node --test --test-timeout=${PER_TEST_TIMEOUT_MS} --test-reporter=spec --test-reporter-destination=stderr --test-reporter=junit --test-reporter-destination=${JUNIT_REPORT} ${rest}`.trim(),
        'node:test',
        `package.json scripts.test: ${script}`,
      );
    }
  }
  const pyproject = read('pyproject.toml') ?? '';
  const pytestCfg = read('pytest.ini') !== null || /\[tool\.pytest/.test(pyproject) || /\[tool:pytest\]/.test(read('setup.cfg') ?? '') || read('conftest.py') !== null;
  const pytestDep = /(^|["'\s])pytest\b/m.test(pyproject) || /\bpytest\b/.test(read('requirements-dev.txt') ?? '') || /\bpytest\b/.test(read('requirements.txt') ?? '') || /\bpytest\b/.test(read('tox.ini') ?? '');
  const python = pyproject || read('setup.py') !== null || read('setup.cfg') !== null || read('requirements.txt') !== null;
  if (pytestCfg || pytestDep) {
    return {
      runner: 'pytest',
      language: 'python',
      test: `python3 -m pytest -q -p no:cacheprovider --junitxml=${JUNIT_REPORT} -o junit_family=xunit1`,
      junitReport: JUNIT_REPORT,
      why: pytestCfg ? 'pytest configuration' : 'pytest among the dependencies',
    };
  }
  if (python) {
    return {
      runner: 'unittest',
      language: 'python',
      // the target ids are unittest's own dotted names ("tests.test_x.Case.test_y")
      test: `python3 -c ${shq(UNITTEST_TAP)} {names}`,
      junitReport: TAP_REPORT,
      why: 'a Python project without pytest: unittest',
    };
  }
  return null;
}

/** Why detectRunner found nothing, in one line a user can act on (it returned null). */
export function whyNoRunner(read: (rel: string) => string | null): string {
  const pkgText = read('package.json');
  if (pkgText !== null) {
    let pkg: { scripts?: Record<string, string>; devDependencies?: Record<string, string>; dependencies?: Record<string, string> } = {};
    try {
      pkg = JSON.parse(pkgText) as typeof pkg;
    } catch {
      return 'package.json does not parse';
    }
    const deps = { ...pkg.dependencies, ...pkg.devDependencies };
    const script = effectiveTestScript(pkg.scripts ?? {});
    if (/(^|[\s/;&|])jest(\s|$)/.test(script) || 'jest' in deps) {
      return 'jest writes neither JUnit XML nor TAP by itself: add jest-junit to the devDependencies (flowfix then runs jest with it), or set a test command that writes one of them';
    }
    if (!script.trim()) return 'package.json has no scripts.test';
    return `package.json scripts.test runs \`${script.length > 120 ? `${script.slice(0, 120)}…` : script}\`, and no runner flowfix reads results from (node --test, vitest, jest with jest-junit, mocha, ava, tap, tape, pytest, unittest) is in it or in the dependencies`;
  }
  return 'no package.json, pyproject.toml, setup.py, setup.cfg or requirements.txt at the base revision';
}

/**
 * Why a TAP stream does not account for every test, if it does not: a
 * `Bail out!`, no plan (the producers that print it last died before it), or
 * a plan of N with fewer top-level results. A process that dies mid-stream
 * leaves only the results before it, every one of which may be "ok".
 */
export function tapCutShort(text: string): string | undefined {
  let plan: number | undefined;
  let points = 0;
  for (const raw of text.split(/\r?\n/)) {
    const bail = /^\s*Bail out!\s*(.*)$/.exec(raw);
    if (bail) return `the TAP stream bails out${bail[1] ? ` (${bail[1].trim()})` : ''} after ${points} result(s)`;
    // subtests are indented, with plans of their own
    if (/^\s/.test(raw)) continue;
    const planned = /^1\.\.(\d+)/.exec(raw);
    if (planned) plan = Number(planned[1]);
    else if (/^(not )?ok\b/.test(raw)) points++;
  }
  if (plan === undefined) return `the TAP stream ends before its plan (1..N), after ${points} result(s)`;
  if (points < plan) return `the TAP stream has ${points} of the ${plan} results its plan announces`;
  return undefined;
}

/**
 * Reads TAP (tape, node-tap, ava --tap, mocha's tap reporter, the unittest
 * producer above): one result per `ok`/`not ok` line, subtests' names joined
 * with " > ", the YAML or comment block below a failure as its details. Ids are
 * "<file or 'tap'>::<name>", made unique by the JUnit reader's rule; a name
 * that is an absolute path below `root` (node's TAP names a file that fails to
 * load so) is read relative to it, as the JUnit reader does.
 */
export function parseTap(text: string, file = 'tap', root?: string): TestResult[] {
  const results: TestResult[] = [];
  const lines = text.split(/\r?\n/);
  const stack: Array<{ indent: number; name: string }> = [];
  let last: TestResult | null = null;
  let inYaml = false;
  for (const raw of lines) {
    const indent = raw.length - raw.trimStart().length;
    const line = raw.trim();
    if (inYaml) {
      if (line === '...') inYaml = false;
      else if (last) last.details = `${last.details ? `${last.details}\n` : ''}${raw.replace(/^\s*(# )?/, '')}`;
      continue;
    }
    const sub = /^# Subtest: (.*)$/.exec(line);
    if (sub) {
      while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
      stack.push({ indent, name: relativeTestPath(sub[1], root) });
      continue;
    }
    const m = /^(not )?ok\b\s*\d*\s*(?:- )?([^#]*?)\s*(?:#\s*(SKIP|TODO)\b.*)?$/i.exec(line);
    if (m) {
      while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
      const own = relativeTestPath(m[2].trim(), root) || '(unnamed)';
      // a subtest's summary line closes it: its own name, not repeated
      const parents = stack.map((s) => s.name);
      if (parents.at(-1) === own) parents.pop();
      const hadChildren = results.some((r) => r.name.startsWith(`${[...parents, own].join(' > ')} > `));
      const name = [...parents, own].join(' > ');
      const skipped = !!m[3];
      const status: TestResult['status'] = skipped ? 'skipped' : m[1] ? 'failed' : 'passed';
      // a parent's summary line repeats its children's verdicts: keep only leaves
      if (hadChildren) {
        last = null;
        continue;
      }
      last = { id: `${file}::${name}`, name, status, ...(status === 'failed' ? { message: own } : {}) };
      results.push(last);
      continue;
    }
    if (line === '---' && last) {
      inYaml = true;
      continue;
    }
    // tape prints a failure's diagnostics as indented comments or YAML
    if (last && last.status === 'failed' && /^#\s/.test(line) && indent > 0) last.details = `${last.details ? `${last.details}\n` : ''}${line.slice(2)}`;
  }
  for (const r of results) {
    if (r.status !== 'failed' || !r.details) continue;
    const msg = /(?:^|\n)\s*(?:message|operator):\s*(.+)/.exec(r.details);
    if (msg) r.message = `${r.name}: ${msg[1].replace(/^['"]|['"]$/g, '')}`;
  }
  disambiguateTestIds(results);
  return results;
}

/**
 * pytest's own configuration (`addopts` in pytest.ini, pyproject.toml,
 * setup.cfg or tox.ini) naming an option of a plugin that is not installed
 * (`--cov` without pytest-cov): pytest stops with exit code 4, "error:
 * unrecognized arguments", before it runs a test. Returns the command to try
 * once more with the configuration's addopts cleared (`-o addopts=`) and what
 * to say about it, or undefined for any other outcome.
 */
export function pytestAddoptsRetry(
  command: string,
  result: { exitCode: number | null; output: string },
): { command: string; note: string } | undefined {
  if (result.exitCode !== 4 || !/\bpytest\b/.test(command) || /-o\s*['"]?addopts=/.test(command)) return undefined;
  const m = /error: unrecognized arguments: ([^\n]*)/.exec(result.output);
  if (!m) return undefined;
  const ini = /inifile: ([^\n]*)/.exec(result.output)?.[1]?.trim();
  const args = m[1]!.trim();
  return {
    command: `${command} -o addopts=`,
    note: `pytest exited 4 (unrecognized arguments: ${args}${ini ? ` from addopts in ${ini.replace(/^.*\/repo\//, '')}` : ''}: a plugin the configuration names is not installed); retried once with -o addopts=`,
  };
}
