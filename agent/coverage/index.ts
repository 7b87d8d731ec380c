// Per-test line coverage for spectrum-based localisation (spectrum.ts): one
// more run of the target tests' command, in the same sandbox as every test
// run (agent/testing/test-runner.ts → agent/workspace/exec.ts), with a bootstrap that records
// which lines each test ran:
//   - Node: V8's own block coverage (NODE_V8_COVERAGE), cut per test by
//     node-boot.cjs, preloaded with NODE_OPTIONS, inside node:test's per-file
//     processes (v8.takeCoverage() around each test);
//   - Python: sys.settrace through flowfix_coverage.py, loaded by a
//     sitecustomize.py on PYTHONPATH and as a pytest plugin (PYTEST_PLUGINS).
//   - jest, vitest, mocha, ava, node-tap and tape, which run many tests per
//     process with no per-test hook flowfix can reach: whole processes under
//     NODE_V8_COVERAGE (process.ts), the target command run twice with the
//     runner's name filter (agent/testing/runners.ts coverageCut): the failing
//     targets alone, then every other test of their files. Each run is one
//     execution of the spectrum; tape, which has no name filter, gives the
//     failing side only (its files' run).
// The bootstrap and everything it writes live in a scratch folder under the
// run's tmp/, never in the repository. Its output was written by the
// repository's code: it is parsed as untrusted input (schemas, size caps,
// no links followed). Coverage is an aid with a time budget: any failure is
// an error the caller logs, and the run goes on without it.
import { copyFile, lstat, mkdir, readdir, readFile, realpath } from 'node:fs/promises';
import { testNameOf } from '../../lib/junit/test-id';
import { testCommandOf } from '../../common/settings';
import { coverageCut, type CoverageCut } from '../testing/runners';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { RepositorySettings } from '../../common/settings';
import { runTests, stoppedBecause } from '../testing/test-runner';
import type { TestResult, TestRun } from '../types';
import type { Workspace } from '../workspace/workspace';
import { buildSpectrum, type Spectrum, type TestExecution } from './spectrum';
import { executedLines, V8CoverageSchema, type V8Coverage } from './v8';
import { readProcessCoverage } from './process';

export { buildSpectrum, ochiai, spanSuspiciousness, failingTestsRan, type Spectrum, type TestExecution } from './spectrum';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BOOTSTRAP_FILES = ['node-boot.cjs', 'flowfix_coverage.py', 'sitecustomize.py'];

/** Output caps: a test suite's coverage is a few MB; more is not worth the server's memory. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
const MAX_TESTS = 5000;

export class CoverageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CoverageError';
  }
}

export interface CoverageInput {
  workspace: Workspace;
  settings: RepositorySettings;
  /** the failing targets (RED's) */
  targets: Array<{ id: string; name?: string; file?: string }>;
  timeoutSeconds: number;
  signal?: AbortSignal;
  /** the run's deadline (epoch ms): the instrumented run gets no more than what is left */
  deadline?: number;
  /** the repository's tests and helpers: their own lines are left out of the spectrum */
  isTestFile?: (rel: string) => boolean;
}

export interface CoverageResult {
  spectrum: Spectrum;
  /** tests recorded, and how many of them count as failing (targets) and passing */
  recorded: number;
  failing: number;
  passing: number;
  /** production files some test ran */
  files: number;
  run: TestRun;
  /** every instrumented run (the cut by name runs the command twice), for the run's meter */
  runs: TestRun[];
  /** how the tests were told apart: each test alone, or whole runs filtered by the runner's name filter */
  cut: 'per test' | `by name (${CoverageCut['runner']})` | `per file (${CoverageCut['runner']})`;
}

/** One test as the bootstrap recorded it. */
interface Recorded {
  id: string;
  name: string;
  file: string;
  /** the bootstrap's own verdict (Python); Node's comes from the run's report */
  outcome?: 'passed' | 'failed' | 'skipped';
  lines: Map<string, Set<number>>;
}

const leaf = (name: string) => name.split(' > ').at(-1) ?? name;

/** The environment that switches the bootstrap on, over the repository's own settings. */
export function coverageEnv({ settings, root, bootDir, v8Dir, outDir }: { settings: RepositorySettings; root: string; bootDir: string; v8Dir: string; outDir: string }): Record<string, string> {
  const own = settings.env;
  return {
    NODE_V8_COVERAGE: v8Dir,
    REPAIR_COVERAGE_DIR: outDir,
    REPAIR_COVERAGE_ROOT: root,
    NODE_OPTIONS: [own.NODE_OPTIONS, `--require=${JSON.stringify(path.join(bootDir, 'node-boot.cjs'))}`].filter(Boolean).join(' '),
    PYTHONPATH: [bootDir, own.PYTHONPATH].filter(Boolean).join(path.delimiter),
    PYTEST_PLUGINS: [own.PYTEST_PLUGINS, 'flowfix_coverage'].filter(Boolean).join(','),
  };
}

/**
 * Runs the target tests' command once with the bootstrap (node:test, Python),
 * or twice cut by name for a runner with many tests per process (the header),
 * and returns the spectrum. Throws CoverageError.
 */
export async function collectCoverage(input: CoverageInput): Promise<CoverageResult> {
  const cut = coverageCut(testCommandOf(input.settings));
  if (cut) return collectByProcess(input, cut);
  const { workspace: ws, settings, targets } = input;
  const scratch = await ws.scratchDir('flowfix-coverage');
  const bootDir = path.join(scratch, 'boot');
  const v8Dir = path.join(scratch, 'v8');
  const outDir = path.join(scratch, 'out');
  await Promise.all([mkdir(bootDir), mkdir(v8Dir), mkdir(outDir)]);
  // the bootstrap ships beside this file; the build must not trace the whole project for it
  for (const f of BOOTSTRAP_FILES) await copyFile(path.join(/*turbopackIgnore: true*/ HERE, f), path.join(bootDir, f));

  // The target tests' command, which runs the failing tests' files (their
  // passing tests too: the spectrum needs both). A command that picks tests
  // by name or id would run the failing tests alone: it runs with no targets,
  // the whole suite, within the same time budget.
  const byName = /\{(ids|names|namePattern)\}/.test(settings.test ?? '');
  const run = await runTests({
    workspace: ws,
    settings,
    signal: input.signal,
    ...(input.deadline !== undefined ? { deadline: input.deadline } : {}),
    kind: 'target',
    targets: byName ? [] : targets,
    timeoutSeconds: input.timeoutSeconds,
    env: coverageEnv({ settings, root: ws.root, bootDir, v8Dir, outDir }),
    allResults: true,
  });
  const stopped = stoppedBecause(run.command, input.signal);
  if (stopped) throw new CoverageError(stopped);
  if (run.command.limit) throw new CoverageError(`the sandbox stopped the instrumented run (${run.command.limit})`);

  const recorded = await readRecords({ outDir, root: ws.root, readSource: (rel) => ws.readFile(rel).catch(() => null) });
  if (recorded.length === 0) throw new CoverageError('the instrumented run recorded no test (a runner the bootstrap does not know?)');
  return spectrumOf({ recorded, run, targets, ...(input.isTestFile ? { isTestFile: input.isTestFile } : {}) });
}

/** Which recorded tests are failing targets and which passed, and the spectrum over production lines. */
export function spectrumOf({ recorded, run, targets, isTestFile }: { recorded: Recorded[]; run: TestRun; targets: CoverageInput['targets']; isTestFile?: (rel: string) => boolean }): CoverageResult {
  const executions: TestExecution[] = [];
  let failing = 0;
  let passing = 0;
  for (const r of recorded) {
    const outcome = r.outcome ?? outcomeFromReport(r, run.results);
    const isTarget = targets.some((t) => isSameTest(r, t));
    let failed: boolean;
    if (outcome === 'failed' && isTarget) failed = true;
    else if (outcome === 'passed' && !isTarget) failed = false;
    // a target that passed here (flaky) or another test that fails says nothing reliable
    else continue;
    const lines = new Map([...r.lines].filter(([file]) => !isTestFile?.(file)));
    executions.push({ failed, lines });
    if (failed) failing += 1;
    else passing += 1;
  }
  if (failing === 0) throw new CoverageError(`none of the ${recorded.length} recorded test(s) is a failing target`);
  const spectrum = buildSpectrum(executions);
  return { spectrum, recorded: recorded.length, failing, passing, files: spectrum.lines.size, run, runs: [run], cut: 'per test' };
}

/** A tool's configuration file (jest.config.js, babel.config.cjs, .mocharc.js): run by the runner's parent process. */
const CONFIG_FILE = /^(?:[\w-]+\.config|\.[\w-]+rc)\.[cm]?[jt]s$/;

/**
 * A runner with many tests per process (the header): the failing targets
 * alone under NODE_V8_COVERAGE, then every other test of their files; each
 * run's processes united are one execution. The passing side counts only when
 * every test it ran passed; tape (no name filter) runs the targets' files
 * once, the failing side alone.
 */
async function collectByProcess(input: CoverageInput, cut: CoverageCut): Promise<CoverageResult> {
  const { workspace: ws, settings, targets } = input;
  const scratch = await ws.scratchDir('flowfix-coverage');
  const names = [...new Set(targets.map((t) => cut.filterName(t.name ?? testNameOf(t.id))))];
  const isTarget = (r: TestResult) => targets.some((t) => t.id === r.id || cut.filterName(t.name ?? testNameOf(t.id)) === cut.filterName(r.name));
  const sides = [{ failed: true, args: cut.only?.(names) }, ...(cut.except ? [{ failed: false, args: cut.except(names) }] : [])];
  // both folders before the first run: the sandbox's user is handed the scratch folder as it is then
  const dirOf = (failed: boolean) => path.join(scratch, failed ? 'failing' : 'passing');
  for (const side of sides) await mkdir(dirOf(side.failed));
  const executions: TestExecution[] = [];
  const runs: TestRun[] = [];
  let failing = 0;
  let passing = 0;
  for (const side of sides) {
    const v8Dir = dirOf(side.failed);
    const run = await runTests({
      workspace: ws,
      settings,
      signal: input.signal,
      ...(input.deadline !== undefined ? { deadline: input.deadline } : {}),
      kind: 'target',
      targets,
      timeoutSeconds: input.timeoutSeconds,
      env: { NODE_V8_COVERAGE: v8Dir },
      allResults: true,
      ...(side.args ? { extraArgs: side.args } : {}),
    });
    runs.push(run);
    const stopped = stoppedBecause(run.command, input.signal) ?? (run.command.limit ? `the sandbox stopped the instrumented run (${run.command.limit})` : undefined);
    if (stopped && side.failed) throw new CoverageError(stopped);
    if (stopped) break;
    const ran = run.results.filter((r) => r.status !== 'skipped');
    let count: number;
    if (side.failed) {
      count = ran.filter((r) => isTarget(r) && (r.status === 'failed' || r.status === 'error')).length;
      if (count === 0) throw new CoverageError(`the failing targets did not fail in the instrumented run (${ran.length} test(s) ran)`);
    } else {
      // another failure, or a target that ran anyway (a filter the runner ignored), says nothing reliable
      count = ran.every((r) => r.status === 'passed' && !isTarget(r)) ? ran.length : 0;
      if (count === 0) continue;
    }
    const cov = await readProcessCoverage({ v8Dir, root: ws.root, readSource: (rel) => ws.readFile(rel).catch(() => null) });
    if (cov.processes === 0) {
      if (side.failed) throw new CoverageError(`the instrumented ${cut.runner} run wrote no V8 coverage`);
      continue;
    }
    // the runner's own configuration ran in its parent process, not in any test
    const lines = new Map([...cov.lines].filter(([file]) => !input.isTestFile?.(file) && !CONFIG_FILE.test(path.posix.basename(file))));
    executions.push({ failed: side.failed, lines });
    if (side.failed) failing = count;
    else passing = count;
  }
  const spectrum = { ...buildSpectrum(executions), unit: 'run' as const };
  const recorded = runs.reduce((n, r) => n + r.results.length, 0);
  return { spectrum, recorded, failing, passing, files: spectrum.lines.size, run: runs[0]!, runs, cut: cut.only ? `by name (${cut.runner})` : `per file (${cut.runner})` };
}

/**
 * Whether a recorded test is a target: the same id (pytest's node id read as
 * the JUnit id), the same leaf name (node:test reports names, not files), or
 * the runner's whole dotted id as the target's name (unittest through TAP).
 */
function isSameTest(r: Recorded, t: CoverageInput['targets'][number]): boolean {
  const name = t.name ?? testNameOf(t.id);
  return t.id === r.id || t.id === pytestIdAsJunit(r.id) || leaf(name) === r.name || name === r.id;
}

/** pytest's node id "tests/test_x.py::TestA::test_b" as the JUnit id flowfix stores ("tests.test_x.TestA::test_b"). */
function pytestIdAsJunit(id: string): string {
  const parts = id.split('::');
  if (parts.length < 2 || !parts[0].endsWith('.py')) return id;
  const mod = parts[0].slice(0, -3).split('/').join('.');
  return `${[mod, ...parts.slice(1, -1)].join('.')}::${parts[parts.length - 1]}`;
}

/** A Node test's verdict from the instrumented run's report: the worst instance of its name. */
function outcomeFromReport(r: Recorded, results: TestResult[]): 'passed' | 'failed' | 'skipped' | undefined {
  const same = results.filter((x) => leaf(x.name) === r.name && (!x.file || !r.file || r.file.endsWith(x.file)));
  if (same.length === 0) return undefined;
  if (same.some((x) => x.status === 'failed' || x.status === 'error')) return 'failed';
  if (same.every((x) => x.status === 'skipped')) return 'skipped';
  return 'passed';
}

const NodeRecordSchema = z.object({ kind: z.literal('test'), name: z.string().max(2000), file: z.string().max(4096), coverage: z.string().regex(/^node-\d+-\d+-\d+\.json$/) });
const PythonFileSchema = z.object({
  tests: z
    .array(
      z.object({
        id: z.string().max(4000),
        name: z.string().max(2000),
        file: z.string().max(4096),
        outcome: z.enum(['passed', 'failed', 'skipped']),
        lines: z.record(z.string().max(4096), z.array(z.number().int().positive()).max(200_000)),
      }),
    )
    .max(MAX_TESTS),
});

/**
 * Reads what the bootstrap wrote. Only regular files directly in `outDir` are
 * read (a link the test code left there could point at a server file), with
 * a cap per file and in total; lines are kept for files inside the workspace.
 */
export async function readRecords({ outDir, root, readSource }: { outDir: string; root: string; readSource: (rel: string) => Promise<string | null> }): Promise<Recorded[]> {
  let budget = MAX_TOTAL_BYTES;
  const realOut = await realpath(outDir);
  async function readCapped(name: string): Promise<string | null> {
    const abs = path.join(realOut, name);
    const info = await lstat(abs).catch(() => null);
    if (!info?.isFile() || info.size > MAX_FILE_BYTES || info.size > budget) return null;
    budget -= info.size;
    return readFile(abs, 'utf8');
  }
  const relOf = (abs: string): string | null => {
    const rel = path.relative(root, abs);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('node_modules')) return null;
    return rel.split(path.sep).join('/');
  };
  const out: Recorded[] = [];
  const names = (await readdir(realOut)).sort();

  for (const name of names.filter((n) => /^python-\d+\.json$/.test(n))) {
    const text = await readCapped(name);
    if (text === null) continue;
    const parsed = PythonFileSchema.safeParse(safeJson(text));
    if (!parsed.success) continue;
    for (const t of parsed.data.tests) {
      if (out.length >= MAX_TESTS) break;
      const lines = new Map<string, Set<number>>();
      for (const [file, ls] of Object.entries(t.lines)) {
        const rel = relOf(path.resolve(root, file));
        if (rel) lines.set(rel, new Set(ls));
      }
      out.push({ id: t.id, name: t.name, file: t.file, outcome: t.outcome, lines });
    }
  }

  for (const name of names.filter((n) => /^node-\d+-\d+\.jsonl$/.test(n))) {
    const text = await readCapped(name);
    if (text === null) continue;
    // a process writes each module's source map once, in the first window that ran it
    const maps: NonNullable<V8Coverage['source-map-cache']> = {};
    for (const line of text.split('\n')) {
      if (out.length >= MAX_TESTS) break;
      const rec = NodeRecordSchema.safeParse(safeJson(line));
      if (!rec.success) continue;
      const raw = await readCapped(rec.data.coverage);
      if (raw === null) continue;
      const cov = V8CoverageSchema.safeParse(safeJson(raw));
      if (!cov.success) continue;
      Object.assign(maps, cov.data['source-map-cache'] ?? {});
      const executed = await executedLines(
        { ...cov.data, 'source-map-cache': maps },
        (abs) => relOf(abs) !== null,
        (abs) => {
          const rel = relOf(abs);
          return rel ? readSource(rel) : Promise.resolve(null);
        },
      ).catch(() => null);
      if (!executed) continue;
      const lines = new Map<string, Set<number>>();
      for (const [abs, set] of executed.files) {
        const rel = relOf(abs);
        if (rel) lines.set(rel, set);
      }
      const file = relOf(rec.data.file) ?? rec.data.file;
      out.push({ id: `${file}::${rec.data.name}`, name: rec.data.name, file, lines });
    }
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
