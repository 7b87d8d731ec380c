// Runners as they are: which test runner a repository uses (package.json
// scripts and devDependencies, config files, pyproject.toml/pytest.ini/
// setup.cfg), and the test command that makes it write a report flowfix reads
// — JUnit XML through the runner's own reporter, or TAP from a runner that
// speaks it — without changing a file of the repository. Also the TAP reader.
import { parse as parseToml } from 'smol-toml';
import { disambiguateTestIds, relativeTestPath } from '../../lib/junit/parse';
import type { TestResult } from '../types';
import { escapeRegExp } from '../../common/text';
import { shellQuote } from '../workspace/exec';
import { dropOptions, parseStep, scriptSteps, stepCommand, type ScriptStep } from './scripts';
import { uvuReporterImport } from './uvu-report';

export type RunnerName = 'node:test' | 'jest' | 'vitest' | 'mocha' | 'tape' | 'ava' | 'node-tap' | 'uvu' | 'pytest' | 'unittest';

export interface DetectedRunner {
  runner: RunnerName;
  language: 'javascript' | 'typescript' | 'python';
  /** the test command template (agent/README.md: placeholders) */
  test: string;
  /** where it writes its report: `.xml` is read as JUnit, `.tap` as TAP, `.json` as jest's JSON */
  junitReport: string;
  /** why this runner: the file and what in it */
  why: string;
  /** the install its dependencies need, by the lock file (none for a package without dependencies) */
  install?: string;
  /** what the tests need built first (the test script's own build steps, or a `main` that only a build writes) */
  build?: string;
  /** a monorepo's package whose tests run (its folder), when not the root */
  dir?: string;
  /** the runner's own shuffle, `{seed}` for the seed, where the declared version has one (the proof's repeats) */
  shuffleArgs?: string;
}

/** A repository's files at the revision detection reads: a file's text (null: absent), and every path when known. */
export type ReadFile = (rel: string) => string | null;
export interface DetectOptions {
  /** every path at that revision: config files are found by name, a missing build output is seen, workspaces are listed */
  paths?: readonly string[];
  /** the files the change touched: in a monorepo, the package that holds them is the one tested */
  changedFiles?: readonly string[];
  /** how to run pnpm and yarn (classic, berry) here; without them, npm installs a pnpm or yarn project */
  tools?: { pnpm?: string; yarn?: string; yarnBerry?: string };
}

/** The major and minor version a dependency's range names first (`^1.21.5` → [1, 21]); null when it names none (`*`, a tag, a URL). */
function declaredVersion(range: string | undefined): [number, number] | null {
  const m = /^[\s^~>=v]*(\d+)(?:\.(\d+|x|\*))?/.exec(range ?? '');
  if (!m) return null;
  return [Number(m[1]), /^\d+$/.test(m[2] ?? '') ? Number(m[2]) : 0];
}

/** a declared version at or after `min` (an undeclared or unreadable one is not) */
function declaredAtLeast(range: string | undefined, min: [number, number]): boolean {
  const v = declaredVersion(range);
  return v !== null && (v[0] > min[0] || (v[0] === min[0] && v[1] >= min[1]));
}

/** The runners' own shuffle with a seed (`{seed}`), for the proof's repeats (agent/gates/proof.ts). */
const JEST_SHUFFLE = '--randomize --seed={seed}';
export const VITEST_SHUFFLE = '--sequence.shuffle --sequence.seed={seed}';

/** The shuffle the proof's repeats use: jest's `--randomize` came in 29.2 (older jest refuses the flag), vitest's in its first releases. */
function shuffleOf(runner: RunnerName, deps: Record<string, string>): string | undefined {
  if (runner === 'jest') return declaredAtLeast(deps.jest, [29, 2]) ? JEST_SHUFFLE : undefined;
  if (runner === 'vitest') return VITEST_SHUFFLE;
  return undefined;
}

/** The report every detected command writes (kept out of the fix by the workspace's excludes). */
export const JUNIT_REPORT = 'flowfix-report.xml';
export const TAP_REPORT = 'flowfix-report.tap';
/** jest's own JSON (`--json --outputFile`): jest writes neither JUnit nor TAP without a package the repository may not have */
export const JEST_REPORT = 'flowfix-report.json';

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

interface PackageJson {
  name?: string;
  main?: string;
  type?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  workspaces?: string[] | { packages?: string[] };
  packageManager?: string;
  jest?: unknown;
  mocha?: unknown;
  ava?: unknown;
  tap?: unknown;
}

function parsePackage(text: string | null): PackageJson | null {
  if (text === null) return null;
  try {
    const pkg = JSON.parse(text) as unknown;
    return pkg && typeof pkg === 'object' && !Array.isArray(pkg) ? (pkg as PackageJson) : {};
  } catch {
    return {};
  }
}

/** The runner a step's program is, by its name (null: not a runner). */
function runnerOfStep(step: ScriptStep, deps: Record<string, string>): RunnerName | null {
  switch (step.bin) {
    case 'jest':
      return 'jest';
    case 'vitest':
      // `vitest --run typecheck`, `vitest typecheck`: type tests, not the suite
      return step.args.some((a) => a === 'typecheck' || a.startsWith('--typecheck.only')) ? null : 'vitest';
    case 'bnt':
      // better-node-test: node --test over the usual test files, its own options (coverage) aside
      return 'node:test';
    case 'mocha':
    case '_mocha':
    case 'ts-mocha':
      return 'mocha';
    case 'ava':
      return 'ava';
    case 'tap':
      return 'node-tap';
    case 'tape':
      return 'tape';
    case 'uvu':
      return 'uvu';
    case 'node':
    case 'tsx':
      if (step.program.includes('--test')) return 'node:test';
      // `node test/index.js` in a tape project: the tests are a script that prints tape's TAP
      if (step.args.length > 0 && !step.args[0]!.startsWith('-') && 'tape' in deps) return 'tape';
      return null;
    default:
      return null;
  }
}

/** Steps that build what the tests load (the rest of a test script is lint and type checks, which a fix need not pass here). */
function isBuildStep(step: ScriptStep): boolean {
  if (/build|compile|bundle|prepare|prepublish/.test(step.script)) return !runnerOfStep(step, {});
  if (step.bin === 'tsc') return !step.args.some((a) => a === '--noEmit' || a === '--noemit');
  return ['babel', 'rollup', 'tsup', 'esbuild', 'webpack', 'swc', 'unbuild', 'microbundle', 'ncc', 'bunchee', 'pkgroll'].includes(step.bin);
}

const CONFIGS: Record<'jest' | 'vitest' | 'mocha' | 'ava' | 'node-tap', RegExp> = {
  jest: /^jest\.config\.(js|cjs|mjs|ts|cts|mts|json)$/,
  vitest: /^vitest\.(config|workspace)\.(js|cjs|mjs|ts|cts|mts)$/,
  mocha: /^\.mocharc(\.(js|cjs|mjs|json|jsonc|yml|yaml))?$|^test\/mocha\.opts$/,
  ava: /^ava\.config\.(js|cjs|mjs)$/,
  'node-tap': /^\.taprc$/,
};

/** The flags each runner is run with; the repository's own options that would fight them are dropped. */
/**
 * better-node-test's own file search: every `*.test.js`/`*.spec.js` (and
 * `.ts`) outside node_modules, found when the command runs (a change may add
 * one); node --test's default patterns would also run a test/ folder's
 * helpers, benchmarks and demos.
 */
const BNT_FILES =
  "$(find . \\( -name node_modules -o -name .git \\) -prune -o -type f \\( -name '*.test.js' -o -name '*.spec.js' -o -name '*.test.ts' -o -name '*.spec.ts' \\) -print)";

/** bnt's options as node's: `-t` names tests, its coverage options are no test's verdict; the rest are files. */
function bntArgs(args: string[]): { options: string[]; files: string[] } {
  const options: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-t') options.push(`--test-name-pattern=${args[++i] ?? ''}`);
    else if (a === '--coverage' || a === '--coverage-include' || a === '--coverage-exclude') i++;
    else if (a !== '--debug') files.push(a);
  }
  return { options, files };
}

function runnerCommand(runner: RunnerName, given: ScriptStep, deps: Record<string, string>): { test: string; report: string; note?: string } {
  let step = given;
  const run = (args: string[]) => stepCommand(step, args);
  switch (runner) {
    case 'jest': {
      // the test files first: jest 28 read a file after --reporters as a reporter module
      const args = dropOptions(
        step.args,
        // -u rewrites snapshots: a snapshot test could never fail, and the rewritten .snap files would be in the fix
        ['--coverage', '--watch', '--watchAll', '--ci', '--json', '--silent', '--bail', '-b', '--onlyChanged', '-o', '--listTests', '-u', '--updateSnapshot'],
        ['--reporters', '--outputFile', '--coverageReporters', '--coverageThreshold'],
      );
      return { test: run(['{files}', ...args, '--ci', '--json', `--outputFile=${JEST_REPORT}`]), report: JEST_REPORT };
    }
    case 'vitest': {
      let args = dropOptions(
        step.args,
        ['--coverage', '--watch', '-w', '--ui', '--run', '--bail', '--silent'],
        ['--reporter', '--outputFile', '--coverage.enabled'],
      );
      if (/^(run|watch|dev|related)$/.test(args[0] ?? '')) args = args.slice(1);
      return { test: run(['run', '{files}', ...args, '--reporter=default', '--reporter=junit', `--outputFile=${JUNIT_REPORT}`]), report: JUNIT_REPORT };
    }
    case 'mocha': {
      const args = dropOptions(
        step.args,
        ['--bail', '-b', '--watch', '-w', '--forbid-only', '--forbid-pending'],
        ['--reporter', '-R', '--reporter-options', '--reporter-option', '-O', '--watch-files'],
      );
      // mocha before 2.2 has no reporter options (its xunit writes to stdout, among the tests' own output): TAP, which
      // every version writes; from 2.2 on `--reporter-options` (an alias of 6's `--reporter-option`) names the file
      const v = declaredVersion(deps.mocha);
      if (v && v[0] < 2 && step.bin === 'mocha') {
        // mocha 1's bin/mocha spawns bin/_mocha with `customFds`, which Node 20 ignores: the tests' output is lost
        const at = step.program.length - 1;
        step = { ...step, program: [...step.program.slice(0, at), step.program[at]!.replace(/mocha$/, '_mocha')] };
      }
      if (v && (v[0] < 2 || (v[0] === 2 && v[1] < 2))) {
        return {
          test: `${run(['--reporter', 'tap', ...args])} > ${TAP_REPORT}`,
          report: TAP_REPORT,
          note: `mocha ${deps.mocha}: TAP, no reporter options before 2.2`,
        };
      }
      return { test: run(['--reporter', 'xunit', '--reporter-options', `output=${JUNIT_REPORT}`, ...args]), report: JUNIT_REPORT };
    }
    case 'ava': {
      const args = dropOptions(step.args, ['--tap', '-t', '--verbose', '-v', '--watch', '-w', '--fail-fast'], ['--reporter']);
      return { test: `${run([...args, '--tap'])} > ${TAP_REPORT}`, report: TAP_REPORT };
    }
    case 'node-tap': {
      // node-tap checks coverage by default (15 and later: 100% or exit 1), which is no test's verdict; 18 renamed the switch
      const v = declaredVersion(deps.tap);
      const noCoverage = v && v[0] < 18 ? '--no-coverage' : '--disable-coverage';
      const args = dropOptions(
        step.args,
        [
          '--100',
          '--check-coverage',
          '--no-check-coverage',
          '--coverage',
          '--no-coverage',
          '--cov',
          '--no-cov',
          '--disable-coverage',
          '--allow-incomplete-coverage',
          '--bail',
          '-b',
          '--watch',
          '-w',
          '--color',
          '-c',
        ],
        ['--reporter', '-R', '--coverage-report', '--nyc-arg', '--branches', '--lines', '--functions', '--statements', '--reporter-arg', '--output-file', '-o'],
      );
      return { test: `${run([...args, '--reporter=tap', noCoverage])} > ${TAP_REPORT}`, report: TAP_REPORT };
    }
    case 'tape': {
      const args = step.bin === 'tape' && step.args.length === 0 ? ["'test/**/*.js'"] : step.args;
      return { test: `${run(args)} > ${TAP_REPORT}`, report: TAP_REPORT };
    }
    case 'uvu': {
      // uvu has no reporter: flowfix's own, preloaded (agent/testing/uvu-report.ts), writes TAP beside its dots
      const args = dropOptions(step.args, ['--bail', '-b'], []);
      const own = step.env
        .find((w) => w.startsWith('NODE_OPTIONS='))
        ?.slice('NODE_OPTIONS='.length)
        .replace(/^(['"])(.*)\1$/, '$2');
      const options = ['$NODE_OPTIONS', own, uvuReporterImport()].filter(Boolean).join(' ');
      const env = [...step.env.filter((w) => !w.startsWith('NODE_OPTIONS=')), `NODE_OPTIONS="${options}"`];
      return { test: stepCommand({ env, program: step.program }, args), report: TAP_REPORT };
    }
    case 'node:test': {
      if (step.bin === 'bnt') {
        // bnt runs `node --test` over its own file search, TypeScript through tsx
        const { options, files } = bntArgs(step.args);
        const ts = 'tsx' in deps ? ['--enable-source-maps', '--import', 'tsx'] : [];
        step = { ...step, program: ['node', ...ts, '--test'], args: [...options, ...(files.length ? files : [BNT_FILES])] };
      }
      // node [options] --test [files]: its own JUnit reporter, a time limit per test
      const program = dropOptions(step.program, ['--test'], ['--test-reporter', '--test-reporter-destination', '--test-timeout']);
      const args = dropOptions(step.args, [], ['--test-reporter', '--test-reporter-destination']);
      const reporters = [
        `--test-timeout=${PER_TEST_TIMEOUT_MS}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stderr',
        '--test-reporter=junit',
        `--test-reporter-destination=${JUNIT_REPORT}`,
      ];
      return { test: stepCommand({ env: step.env, program: [...program, '--test', ...reporters] }, args), report: JUNIT_REPORT };
    }
    default:
      return { test: run(step.args), report: JUNIT_REPORT };
  }
}

/** The install a lock file calls for, with the tools at hand (npm without them). */
function installFor(lock: (name: string) => boolean, options: DetectOptions, read: ReadFile, pkg: PackageJson): { install: string; note?: string } {
  if (lock('package-lock.json') || lock('npm-shrinkwrap.json')) return { install: 'npm ci --no-audit --no-fund' };
  const tools = options.tools ?? {};
  if (lock('pnpm-lock.yaml')) {
    // `packageManager: pnpm@x` would make pnpm fetch and switch to that version (and refuse it unsigned): the lock file is what counts
    // pnpm 10 reads lock files of version 9 only: an older one (pnpm 8 and before) is left as it is, and pnpm resolves from package.json
    const lockVersion = /^lockfileVersion:\s*['"]?([\d.]+)/m.exec(read('pnpm-lock.yaml') ?? '')?.[1];
    if (tools.pnpm && lockVersion && Number.parseFloat(lockVersion) < 9) {
      return {
        install: `${tools.pnpm} install --config.lockfile=false --config.manage-package-manager-versions=false`,
        note: `pnpm-lock.yaml version ${lockVersion} (pnpm 8 or older), which pnpm 10 cannot read: installed from package.json`,
      };
    }
    if (tools.pnpm) return { install: `${tools.pnpm} install --frozen-lockfile --config.manage-package-manager-versions=false` };
    return { install: 'npm install --no-audit --no-fund --no-package-lock', note: 'pnpm-lock.yaml, but no pnpm here: npm installs from package.json' };
  }
  if (lock('yarn.lock')) {
    // berry writes a `__metadata` block and usually commits its own release (yarnPath in .yarnrc.yml)
    const berry = /__metadata:/.test(read('yarn.lock') ?? '') || read('.yarnrc.yml') !== null || /^yarn@[2-9]/.test(pkg.packageManager ?? '');
    const yarnPath = /^yarnPath:\s*['"]?([^'"\s]+)/m.exec(read('.yarnrc.yml') ?? '')?.[1];
    if (berry) {
      // node_modules, not Plug'n'Play: the runners' bins must be in node_modules/.bin
      const env = 'YARN_NODE_LINKER=node-modules YARN_ENABLE_GLOBAL_CACHE=false YARN_ENABLE_TELEMETRY=0';
      if (yarnPath && !yarnPath.includes('..')) return { install: `${env} node ${shq(yarnPath)} install --immutable` };
      if (tools.yarnBerry) return { install: `${env} ${tools.yarnBerry} install --immutable` };
    } else if (tools.yarn) return { install: `${tools.yarn} install --frozen-lockfile --non-interactive --ignore-engines` };
    return { install: 'npm install --no-audit --no-fund --no-package-lock', note: 'yarn.lock, but no yarn here: npm installs from package.json' };
  }
  return { install: 'npm install --no-audit --no-fund --no-package-lock' };
}

/**
 * The install a JavaScript repository needs (npm, pnpm or yarn, by its lock
 * file), or undefined when its package.json declares no dependencies.
 */
export function detectInstall(read: ReadFile, options: DetectOptions = {}): { install: string; note?: string } | undefined {
  const root = parsePackage(read('package.json'));
  if (!root) return undefined;
  const workspaces = Array.isArray(root.workspaces) ? root.workspaces.length : (root.workspaces?.packages?.length ?? 0);
  const deps = { ...root.dependencies, ...root.devDependencies };
  if (Object.keys(deps).length === 0 && workspaces === 0 && read('pnpm-workspace.yaml') === null) return undefined;
  return installFor((name) => read(name) !== null, options, read, root);
}

/** A monorepo's package folders (package.json `workspaces`, pnpm-workspace.yaml), as globs' matches among `paths`. */
function workspaceDirs(pkg: PackageJson, read: ReadFile, paths: readonly string[]): string[] {
  const fromPkg = Array.isArray(pkg.workspaces) ? pkg.workspaces : (pkg.workspaces?.packages ?? []);
  const fromPnpm = [...(read('pnpm-workspace.yaml') ?? '').matchAll(/^\s*-\s*['"]?([^'"\n#]+?)['"]?\s*$/gm)].map((m) => m[1]!);
  const patterns = [...fromPkg, ...fromPnpm].filter((p) => !p.startsWith('!'));
  if (patterns.length === 0) return [];
  const res = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/\/+$/, '')
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*/g, '.*')
          .replace(/\*/g, '[^/]+')}$`,
      ),
  );
  return paths
    .filter((p) => p.endsWith('/package.json') && !p.includes('node_modules/'))
    .map((p) => p.slice(0, -'/package.json'.length))
    .filter((dir) => res.some((re) => re.test(dir)));
}

interface JsFound {
  runner: RunnerName;
  step: ScriptStep;
  why: string;
  /** the build steps, each a command */
  build?: string[];
}

/** The runner of one package folder's package.json: its test script first, then its config files, then its dependencies. */
function findJsRunner(pkg: PackageJson, has: (name: string) => boolean): JsFound | { tried: string } {
  const scripts = pkg.scripts ?? {};
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  const steps = scriptSteps(scripts, 'test');
  const at = steps.findIndex((s) => runnerOfStep(s, deps) !== null);
  if (at >= 0) {
    const step = steps[at]!;
    const builds = steps.slice(0, at).filter(isBuildStep);
    const chain = step.script === 'test' ? 'scripts.test' : `scripts.test → ${step.script}`;
    return {
      runner: runnerOfStep(step, deps)!,
      step,
      why: `package.json ${chain}: ${step.text.length > 100 ? `${step.text.slice(0, 100)}…` : step.text}`,
      ...(builds.length ? { build: builds.map((b) => stepCommand(b, b.args)) } : {}),
    };
  }
  const plain = (bin: string, runner: RunnerName, why: string): JsFound => ({ runner, step: parseStep(bin, 'test'), why });
  for (const [runner, re] of Object.entries(CONFIGS) as Array<[keyof typeof CONFIGS, RegExp]>) {
    const key = runner === 'node-tap' ? 'tap' : runner;
    if (has(re.source) || (key in pkg && key !== 'vitest')) return plain(key, runner, has(re.source) ? `its ${runner} configuration` : `package.json "${key}"`);
  }
  for (const [dep, runner] of [
    ['vitest', 'vitest'],
    ['jest', 'jest'],
    ['mocha', 'mocha'],
    ['ava', 'ava'],
    ['tap', 'node-tap'],
    ['tape', 'tape'],
    ['uvu', 'uvu'],
  ] as const) {
    if (dep in deps) return plain(dep, runner, `package.json: ${dep} among the dependencies`);
  }
  const script = scripts.test?.trim();
  return {
    tried: script
      ? `package.json scripts.test runs \`${script.length > 120 ? `${script.slice(0, 120)}…` : script}\`, a runner flowfix does not know`
      : 'package.json has no scripts.test and no test runner among its dependencies or config files',
  };
}

/**
 * The runner a repository's files name and the command that makes it write a
 * report flowfix reads, with the install its lock file calls for and the
 * build its tests need; nothing is written to the repository. In a monorepo
 * the package holding the change's files is the one tested.
 */
export function detectRunner(read: ReadFile, options: DetectOptions = {}): DetectedRunner | null {
  const result = detectSetup(read, options);
  return 'runner' in result ? result : null;
}

/** detectRunner's answer, or what it tried when it found nothing (whyNoRunner). */
export function detectSetup(read: ReadFile, options: DetectOptions = {}): DetectedRunner | { tried: string[] } {
  const tried: string[] = [];
  const root = parsePackage(read('package.json'));
  if (root) {
    const paths = options.paths ?? [];
    const dirs = workspaceDirs(root, read, paths);
    // the package the change's files are in (the longest folder that holds one), else the root
    const changed = options.changedFiles ?? [];
    const dir = dirs.filter((d) => changed.some((f) => f.startsWith(`${d}/`))).sort((a, b) => b.length - a.length)[0];
    const candidates: Array<[string, PackageJson]> = [];
    if (dir) candidates.push([dir, parsePackage(read(`${dir}/package.json`)) ?? {}]);
    candidates.push(['', root]);
    for (const [folder, pkg] of candidates) {
      const inDir = (rel: string) => (folder ? `${folder}/${rel}` : rel);
      const has = (re: string) => {
        const pattern = new RegExp(re);
        if (paths.length) return paths.some((p) => (folder ? p.startsWith(`${folder}/`) && pattern.test(p.slice(folder.length + 1)) : pattern.test(p)));
        // without a listing, the common names one by one
        return [
          'jest.config.js',
          'jest.config.ts',
          'jest.config.cjs',
          'jest.config.mjs',
          'vitest.config.ts',
          'vitest.config.js',
          'vitest.config.mts',
          '.mocharc.json',
          '.mocharc.js',
          '.mocharc.cjs',
          '.mocharc.yml',
          '.mocharc.yaml',
          'ava.config.js',
          'ava.config.cjs',
          'ava.config.mjs',
          '.taprc',
        ].some((name) => pattern.test(name) && read(inDir(name)) !== null);
      };
      const found = findJsRunner(pkg, has);
      if ('tried' in found) {
        tried.push(folder ? `${folder}/${found.tried}` : found.tried);
        continue;
      }
      const deps = { ...root.dependencies, ...root.devDependencies, ...pkg.dependencies, ...pkg.devDependencies };
      const { test, report, note } = runnerCommand(found.runner, found.step, deps);
      const shuffleArgs = shuffleOf(found.runner, deps);
      const ts = read(inDir('tsconfig.json')) !== null || read('tsconfig.json') !== null || 'typescript' in deps;
      // the bins of the package's own node_modules and (in a workspace) the root's, whatever the script's PATH was
      const up = folder
        ? folder
            .split('/')
            .map(() => '..')
            .join('/')
        : '';
      const pathPrefix = `PATH="$PWD/node_modules/.bin:${up ? `$PWD/${up}/node_modules/.bin:` : ''}$PATH"`;
      const cd = folder ? `cd ${shq(folder)} && ` : '';
      const install = detectInstall(read, options);
      // a package whose entry point only a build writes (dist/, lib/ not in the repository) is built before its tests
      let build = found.build;
      const main = pkg.main?.replace(/^\.\//, '');
      if (!build && main && paths.length && !paths.includes(inDir(main)) && !paths.includes(inDir(`${main}.js`)) && pkg.scripts?.build)
        build = ['npm run build'];
      return {
        runner: found.runner,
        language: ts ? 'typescript' : 'javascript',
        test: `${cd}${pathPrefix} ${test}`,
        junitReport: folder ? `${folder}/${report}` : report,
        why: [found.why, note, install?.note, folder ? `the package ${folder} holds the change` : undefined].filter(Boolean).join('; '),
        ...(install ? { install: install.install } : {}),
        // each step with the bins on its PATH: an assignment in front of a command reaches that command only
        ...(build ? { build: `${cd}${build.map((b) => `${pathPrefix} ${b}`).join(' && ')}` } : {}),
        ...(folder ? { dir: folder } : {}),
        ...(shuffleArgs ? { shuffleArgs } : {}),
      };
    }
  }
  const pyproject = read('pyproject.toml') ?? '';
  const pytestCfg =
    read('pytest.ini') !== null || /\[tool\.pytest/.test(pyproject) || /\[tool:pytest\]/.test(read('setup.cfg') ?? '') || read('conftest.py') !== null;
  const pytestDep =
    /(^|["'\s])pytest\b/m.test(pyproject) ||
    /\bpytest\b/.test(read('requirements-dev.txt') ?? '') ||
    /\bpytest\b/.test(read('requirements.txt') ?? '') ||
    /\bpytest\b/.test(read('tox.ini') ?? '');
  const python = pyproject || read('setup.py') !== null || read('setup.cfg') !== null || read('requirements.txt') !== null;
  if (pytestCfg || pytestDep || python) {
    const venv = pythonInstall(read, pyproject, options.paths ?? []);
    const found: DetectedRunner =
      pytestCfg || pytestDep
        ? {
            runner: 'pytest',
            language: 'python',
            test: `python3 -m pytest -q -p no:cacheprovider --junitxml=${JUNIT_REPORT} -o junit_family=xunit1`,
            junitReport: JUNIT_REPORT,
            why: pytestCfg ? 'pytest configuration' : 'pytest among the dependencies',
          }
        : {
            runner: 'unittest',
            language: 'python',
            // the target ids are unittest's own dotted names ("tests.test_x.Case.test_y")
            test: `python3 -c ${shq(UNITTEST_TAP)} {names}`,
            junitReport: TAP_REPORT,
            why: 'a Python project without pytest: unittest',
          };
    return venv ? { ...found, install: venv.install, why: `${found.why}; ${venv.why}` } : found;
  }
  if (!root) tried.push('no package.json, pyproject.toml, setup.py, setup.cfg or requirements.txt at the base revision');
  return { tried };
}

/** The virtualenv a Python project's commands run in (agent/testing/test-runner.ts puts its bin/ first on PATH). */
export const PYTHON_VENV = '.flowfix-venv';

/** Requirement files pip reads, by the names projects give them at their root. */
const REQUIREMENT_FILES = [
  'requirements.txt',
  'requirements-dev.txt',
  'requirements_dev.txt',
  'dev-requirements.txt',
  'requirements-test.txt',
  'requirements_test.txt',
  'test-requirements.txt',
  'requirements/dev.txt',
  'requirements/test.txt',
  'requirements/tests.txt',
];

/** pyproject.toml's extras that hold what the tests need. */
const TEST_EXTRAS = ['test', 'tests', 'testing', 'dev'];

/**
 * A PEP 508 requirement by name ("attrs>=22", "pkg[extra] ; python_version >= '3.8'"):
 * never a pip option, a URL or a path, whatever the repository writes.
 */
const REQUIREMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*\s*(\[[A-Za-z0-9._,\s-]*\])?\s*(\(?\s*(===|==|~=|!=|<=|>=|<|>)[^;@]*\)?)?\s*(;[^@]*)?$/;

/** The names pyproject.toml's `[project]` lists as dependencies and test extras (PEP 621). */
function pyprojectRequirements(pyproject: string): string[] {
  let parsed: unknown;
  try {
    parsed = parseToml(pyproject);
  } catch {
    return [];
  }
  const project = (parsed as { project?: { dependencies?: unknown; 'optional-dependencies'?: Record<string, unknown> } }).project;
  if (!project || typeof project !== 'object') return [];
  const extras = project['optional-dependencies'] ?? {};
  const lists = [project.dependencies, ...TEST_EXTRAS.map((name) => extras[name])];
  return lists
    .flatMap((list) => (Array.isArray(list) ? list : []))
    .filter((r): r is string => typeof r === 'string')
    .map((r) => r.trim())
    .filter((r) => r.length <= 200 && REQUIREMENT.test(r));
}

/**
 * A virtualenv of the run's own, made from what the repository declares: its
 * requirement files, pyproject.toml's dependencies and test extras, and a
 * src/ layout made importable (a .pth file, what an editable install writes).
 * The venv sees the system's packages (the test runner flowfix found there,
 * and pip), so what is already installed is not fetched again. Nothing to
 * install: no venv, the interpreter as found.
 */
function pythonInstall(read: ReadFile, pyproject: string, paths: readonly string[]): { install: string; why: string } | undefined {
  const files = REQUIREMENT_FILES.filter((f) => read(f) !== null);
  const named = pyprojectRequirements(pyproject);
  const srcLayout =
    paths.some((p) => /^src\/[A-Za-z_][\w]*\/__init__\.py$/.test(p)) && !paths.some((p) => /^[A-Za-z_]\w*\/__init__\.py$/.test(p) && !p.startsWith('tests/'));
  if (files.length === 0 && named.length === 0 && !srcLayout) return undefined;
  const python = `${PYTHON_VENV}/bin/python`;
  const steps = [`python3 -m venv --system-site-packages --without-pip ${PYTHON_VENV}`];
  const args = [...files.map((f) => `-r ${shq(f)}`), ...named.map(shq)];
  if (args.length) steps.push(`${python} -m pip install --disable-pip-version-check --no-input ${args.join(' ')}`);
  if (srcLayout) {
    const pth = "import os, site; open(os.path.join(site.getsitepackages()[0], '_flowfix_src.pth'), 'w').write(os.path.abspath('src') + '\\n')";
    steps.push(`${python} -c ${shq(pth)}`);
  }
  const from = [...files, ...(named.length ? ['pyproject.toml dependencies'] : [])];
  const why = [
    from.length ? `a virtualenv (${PYTHON_VENV}) from ${from.join(', ')}` : `a virtualenv (${PYTHON_VENV})`,
    srcLayout ? 'src/ importable' : undefined,
  ];
  return { install: steps.join(' && '), why: why.filter(Boolean).join(', ') };
}

/**
 * Why detectRunner found nothing, in one line a user can act on: what was
 * tried, and the `.flowfix.json` that would make the run go (its test
 * command writing JUnit XML that flowfix reads).
 */
export function whyNoRunner(read: ReadFile, options: DetectOptions = {}): string {
  const result = detectSetup(read, options);
  return 'runner' in result ? '' : whyNoRunnerLine(result.tried);
}

/** The one line a run that found no runner ends with: what was tried, and the `.flowfix.json` that would fix it. */
export function whyNoRunnerLine(tried: string[]): string {
  const example = JSON.stringify({ settings: { install: 'npm ci', test: '<your test command, writing JUnit XML to junit.xml>', junitReport: 'junit.xml' } });
  return `no test runner detected (tried: ${tried.join('; ') || 'nothing to go on'}); add a .flowfix.json such as ${example}`;
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
    // a `#` starts a directive (SKIP, TODO, node-tap's `time=`) or is part of the name: `\#` as TAP escapes it, or a plain one
    const m = /^(not )?ok\b\s*\d*\s*(?:- )?(.*?)\s*(?:#\s*(SKIP|TODO)\b.*|#\s*time=\S*)?$/i.exec(line);
    if (m) {
      while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
      const own = relativeTestPath(m[2].trim().replace(/\\#/g, '#'), root) || '(unnamed)';
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
  return tapeGroups(text) ? byTapeTest(text, results, file) : results;
}

/** Comment lines tape prints that are not a test's name (its closing counts). */
const TAPE_SUMMARY = /^(tests|pass|fail|ok|skip|todo)\b|^time=|^Ran \d|^\{/;

/**
 * tape's stream: each test's name as a top-level comment (`# parses numbers`),
 * then its assertions. True when the stream has such names and no node-tap
 * subtests (ava's logs are indented comments, `#   …`).
 */
function tapeGroups(text: string): boolean {
  return /^# (?!Subtest:)\S/m.test(text) && !/^\s*# Subtest:/m.test(text) && text.split(/\r?\n/).some((l) => /^# \S/.test(l) && !TAPE_SUMMARY.test(l.slice(2)));
}

/**
 * One result per tape test, named by its comment: it fails when any of its
 * assertions fails (the first failure's message speaks for it), and a test
 * the stream stops in (the process died in it: an exception, an exit) fails
 * too. Assertions' own messages repeat ("should be strictly equal") and their
 * number changes with the code; the test's name does not.
 */
function byTapeTest(text: string, assertions: TestResult[], file: string): TestResult[] {
  const groups: Array<{ name: string; count: number }> = [];
  const loose: number[] = [];
  let assertion = 0;
  let open: { name: string; count: number } | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const name = /^# (\S.*)$/.exec(raw)?.[1]?.trim();
    if (name && !TAPE_SUMMARY.test(name)) {
      open = { name, count: 0 };
      groups.push(open);
    } else if (/^1\.\.\d+/.test(raw)) open = null;
    else if (/^(not )?ok\b/.test(raw)) {
      if (open) open.count++;
      else loose.push(assertion);
      assertion++;
    }
  }
  const cut = tapCutShort(text);
  const out: TestResult[] = loose.map((i) => assertions[i]).filter((r): r is TestResult => !!r);
  let i = 0;
  for (const [index, g] of groups.entries()) {
    while (loose.includes(i)) i++;
    const own = assertions.slice(i, i + g.count);
    i += g.count;
    const failed = own.find((r) => r.status === 'failed');
    const last = index === groups.length - 1;
    const id = `${file}::${g.name}`;
    if (failed)
      out.push({
        id,
        name: g.name,
        status: 'failed',
        message: failed.message?.startsWith(`${failed.name}: `) ? `${g.name}: ${failed.message.slice(failed.name.length + 2)}` : (failed.message ?? g.name),
        ...(failed.details ? { details: failed.details } : {}),
      });
    else if (last && cut) out.push({ id, name: g.name, status: 'failed', message: `${g.name}: the test process ended during this test (${cut})` });
    else if (own.length > 0 && own.every((r) => r.status === 'skipped')) out.push({ id, name: g.name, status: 'skipped' });
    else out.push({ id, name: g.name, status: 'passed' });
  }
  disambiguateTestIds(out);
  return out;
}

/**
 * pytest's own configuration (`addopts` in pytest.ini, pyproject.toml,
 * setup.cfg or tox.ini) naming an option of a plugin that is not installed
 * (`--cov` without pytest-cov): pytest stops with exit code 4, "error:
 * unrecognized arguments", before it runs a test. Returns the command to try
 * once more with the configuration's addopts cleared (`-o addopts=`) and what
 * to say about it, or undefined for any other outcome.
 */
export function pytestAddoptsRetry(command: string, result: { exitCode: number | null; output: string }): { command: string; note: string } | undefined {
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

// ───── coverage: the runners that run many tests per process ─────

/**
 * How the coverage run (agent/coverage) cuts a runner that runs many tests in
 * one process with no per-test hook flowfix can reach: the arguments that run
 * only the named tests, and those that run every other test of the same files.
 * Each process writes its V8 coverage at exit (NODE_V8_COVERAGE), so the two
 * runs are the failing and the passing side of the spectrum.
 */
export interface CoverageCut {
  runner: 'jest' | 'vitest' | 'mocha' | 'ava' | 'node-tap' | 'tape';
  /** appended to the target command: only these tests (leaf names); null when the runner has no name filter (tape) */
  only: ((names: string[]) => string) | null;
  /** appended to the target command: every test of the same files but these */
  except: ((names: string[]) => string) | null;
  /** the part of a reported name ("suite > case", TAP's "file > subtest > assertion") the filter matches */
  filterName: (name: string) => string;
}

const leafOf = (name: string) => name.split(' > ').at(-1) ?? name;
/** node-tap's --grep matches each file's top-level subtests: TAP names them after the file, before their assertions */
const topLevelOf = (name: string) => {
  const parts = name.split(' > ');
  const rest = parts.length > 1 && /\.[cm]?[jt]sx?$/.test(parts[0]!) ? parts.slice(1) : parts;
  return rest[0] ?? name;
};

/** A regular expression for full names ("suite test") that end with one of the leaf names. */
const endsWithOne = (names: string[]) => `(?:${names.map(escapeRegExp).join('|')})$`;
const exceptOne = (names: string[]) => `^(?!.*${endsWithOne(names)})`;
/** ava's --match is a glob where `*` is a wildcard and a leading `!` negates: both are matched as themselves */
const avaTitle = (name: string) => name.replace(/\*/g, '?').replace(/^!/, '?');

const CUTS: Record<CoverageCut['runner'], Omit<CoverageCut, 'runner' | 'filterName'> & { filterName?: CoverageCut['filterName'] }> = {
  // jest and vitest match --testNamePattern against the full name, describe blocks first
  jest: { only: (n) => `-t ${shellQuote(endsWithOne(n))}`, except: (n) => `-t ${shellQuote(exceptOne(n))}` },
  // vitest ends its forks with a signal, before they write their coverage; its worker threads write theirs
  vitest: { only: (n) => `-t ${shellQuote(endsWithOne(n))} --pool=threads`, except: (n) => `-t ${shellQuote(exceptOne(n))} --pool=threads` },
  mocha: { only: (n) => `--grep ${shellQuote(endsWithOne(n))}`, except: (n) => `--grep ${shellQuote(endsWithOne(n))} --invert` },
  ava: {
    only: (n) => n.map((x) => `--match ${shellQuote(avaTitle(x))}`).join(' '),
    except: (n) => n.map((x) => `--match ${shellQuote(`!${avaTitle(x)}`)}`).join(' '),
  },
  // node-tap's --grep matches the top-level subtests of each file
  'node-tap': {
    only: (n) => `--grep=${shellQuote(`^${endsWithOne(n)}`)}`,
    except: (n) => `--grep=${shellQuote(`^${endsWithOne(n)}`)} --invert`,
    filterName: topLevelOf,
  },
  tape: { only: null, except: null },
};

/** The runner a test command runs, for coverage: the first word naming one (`npx jest`, `node_modules/.bin/tap`); undefined for others. */
export function coverageCut(command: string): CoverageCut | undefined {
  const words = command.split(/\s+/);
  for (const w of words) {
    if (w === '>' || w === '&&' || w === '|' || w === ';') break;
    const bin = (w.split('/').at(-1) ?? '').replace(/\.(c|m)?js$/, '');
    const runner = bin === '_mocha' ? 'mocha' : bin === 'tap' ? 'node-tap' : bin;
    if (runner in CUTS) {
      const cut = CUTS[runner as CoverageCut['runner']];
      return { runner: runner as CoverageCut['runner'], only: cut.only, except: cut.except, filterName: cut.filterName ?? leafOf };
    }
  }
  return undefined;
}
