// `npm run bench:mutants`: seeded classic mutants (see mutate.ts) of two
// corpora: flowfix's own production modules with unit tests (lib/, agent/,
// common/; framed by frame.ts) and the realistic repositories (the demo's,
// the repair corpus's projects, the fixtures' library; realistic.ts). Each
// in two orders: one mutation, or two in the same function. Each mutant some
// test kills is framed as a change (base = original, head = mutant) and
// repaired by the real pipeline with the offline policy in the sandbox, as
// bench/agent/run.ts does for its corpus. Prints, per group (corpus × order),
// plausible / correct / overfitting, where the mutated function ranked, time
// per run, test-file edits and a per-operator breakdown; writes the raw
// results to bench/out/.
//
//   npm run bench:mutants -- [--corpus own|realistic|all] [--order 1|2|mixed] [--seed N] [--sample N] [--jobs N] [--max-candidates N] [--no-coverage] [--json PATH]
//   npm run bench:mutants -- --report bench/out/mutants-….json   (the report of a saved run, partial ones too)
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { isTestPath } from '../../agent/testing/test-files';
import { createOfflinePolicy } from '../../agent/policies/offline';
import { runRepair } from '../../agent/pipeline';
import { detectRunner } from '../../agent/testing/runners';
import { indexTsFile } from '../../agent/scaffold/typescript';
import { readTestReports, renderTestCommand, runTests } from '../../agent/testing/test-runner';
import type { AgentEvent, Suspect } from '../../agent/types';
import { Workspace } from '../../agent/workspace/workspace';
import { killGroup } from '../../agent/workspace/exec';
import { parseJunitXml } from '../../lib/junit/parse';
import { FilterPolicySchema, ModelSettingsSchema, RepositorySettingsSchema, type RepositorySettings } from '../../common/settings';
import { buildMutantRepo, modulesUnderTest, packageJson, ROOT, writeFrame, type ModuleUnderTest } from './frame';
import { applyMutant, higherOrderMutants, orderOf, ownMutants, pythonMutants, seededRandom, shuffled, strykerMutants, type Mutant } from './mutate';
import { buildRealisticMutantRepo, realisticRepos, sourcesOf, writeRepo, type RealisticRepo } from './realistic';
import { pct, quantile } from '../stats';

const OUT = path.join(ROOT, 'bench', 'out');
/** a module whose unit tests take longer than this on the base is left out: the budget is ~13 s per mutant */
export const MAX_SUITE_MS = 12_000;
/**
 * the realistic repositories are a fixed handful chosen by hand, each suite a second or two on a quiet
 * machine: only a suite that hangs leaves one out, not a busy machine (the 12 s above dropped the demo's
 * checkout-ts, 18 s at a load of 14 on 2 cores)
 */
const MAX_REALISTIC_SUITE_MS = 60_000;
/** screens of one module's mutants that all survive before the module is given up */
const MAX_SURVIVORS_PER_MODULE = 12;
const SCREEN_TIMEOUT_MS = 30_000;

export interface ScreenResult {
  killed: boolean;
  /** junit ids of the failing tests */
  failing: string[];
  /** the test files that have a failing test */
  failingFiles: string[];
  ms: number;
  note?: string;
}

export interface Cache {
  version: 1;
  base: Record<string, ScreenResult & { tests: number; hash: string }>;
  screened: Record<string, ScreenResult>;
}

/** A command in its own process group, killed as a group when it ends or outlives `timeoutMs`. */
async function runGroup(dir: string, argv: string[], env: Record<string, string | undefined>, timeoutMs = SCREEN_TIMEOUT_MS): Promise<number | 'timeout'> {
  return new Promise<number | 'timeout'>((resolve) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: dir,
      stdio: 'ignore',
      // a run of its own even when the bench itself runs under node --test
      env: { ...process.env, NODE_TEST_CONTEXT: undefined, ...env },
      detached: true,
    });
    const timer = setTimeout(() => {
      killGroup(child.pid, 'SIGKILL');
      resolve('timeout');
    }, timeoutMs);
    child.on('close', (c) => {
      clearTimeout(timer);
      // a mutant can break a test's own clean-up: what the suite left running goes with it
      killGroup(child.pid, 'SIGKILL');
      resolve(c ?? 1);
    });
  });
}

/** One node --test run of test files in a framed folder, JUnit read back with the product's parser. */
export async function runSuite(dir: string, tests: string[]): Promise<ScreenResult & { tests: number }> {
  const started = performance.now();
  const report = path.join(dir, 'junit.xml');
  await rm(report, { force: true });
  const code = await runGroup(
    dir,
    ['node', '--import', 'tsx', '--test', '--test-timeout=20000', '--test-reporter=junit', `--test-reporter-destination=junit.xml`, ...tests],
    { NODE_ENV: 'test' },
  );
  const ms = performance.now() - started;
  if (code === 'timeout') return { killed: false, failing: [], failingFiles: [], ms, tests: 0, note: 'timeout' };
  if (!existsSync(report)) return { killed: false, failing: [], failingFiles: [], ms, tests: 0, note: `no report (exit ${code})` };
  const parsed = parseJunitXml(await readFile(report));
  const failed = parsed.results.filter((r) => r.status === 'failed' || r.status === 'error');
  // node --test's JUnit has no file per case; the failing files are the test files whose own run fails
  return {
    killed: failed.length > 0,
    failing: failed.map((r) => r.id),
    failingFiles: [],
    ms,
    tests: parsed.results.length,
    ...(failed.length === 0 && code !== 0 ? { note: `exit ${code} with every test passing` } : {}),
  };
}

/**
 * A realistic repository's whole suite in a folder: its own command (the
 * regression command, else the test command with no targets) through
 * /bin/sh as flowfix runs commands, outside the sandbox, its report read by
 * the product's reader (so the failing ids are the ones the pipeline sees).
 */
export async function runRepoSuite(dir: string, settings: RepositorySettings): Promise<ScreenResult & { tests: number }> {
  const started = performance.now();
  const root = await realpath(dir);
  if (!/[*?]/.test(settings.junitReport)) await rm(path.join(root, settings.junitReport), { force: true });
  const command = settings.regression ?? renderTestCommand(settings.test ?? '', []);
  if (!command) return { killed: false, failing: [], failingFiles: [], ms: 0, tests: 0, note: 'no test command' };
  // no bytecode: a mutant and its original can have the same size and mtime second, and Python would load the other's .pyc.
  // The time limit is the repository's own for its whole suite: a busy machine makes a 2 s suite take 30 s.
  const code = await runGroup(
    root,
    ['/bin/sh', '-c', command],
    { ...settings.env, PYTHONDONTWRITEBYTECODE: '1' },
    settings.timeLimits.regressionSeconds * 1000,
  );
  const ms = performance.now() - started;
  if (code === 'timeout') return { killed: false, failing: [], failingFiles: [], ms, tests: 0, note: 'timeout' };
  const read = await readTestReports(root, settings.junitReport);
  if (read.reportError || read.results.length === 0)
    return { killed: false, failing: [], failingFiles: [], ms, tests: 0, note: read.reportError ?? `no report (exit ${code})` };
  const failed = read.results.filter((r) => r.status === 'failed' || r.status === 'error');
  return {
    killed: failed.length > 0,
    failing: failed.map((r) => r.id),
    failingFiles: [],
    ms,
    tests: read.results.length,
    ...(failed.length === 0 && code !== 0 ? { note: `exit ${code} with every test passing` } : {}),
  };
}

/** Which of the module's test files a mutant fails: each alone (only when there are several). */
export async function failingFiles(dir: string, tests: string[]): Promise<string[]> {
  if (tests.length === 1) return tests;
  const out: string[] = [];
  for (const t of tests) if ((await runSuite(dir, [t])).killed) out.push(t);
  return out;
}

export function hashOf(text: string): string {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return (h >>> 0).toString(16);
}

/** The same code as the original, layout aside: both printed by the TypeScript printer. */
function sameProgram(file: string, a: string, b: string): boolean {
  if (a === b) return true;
  const printer = ts.createPrinter({ removeComments: true });
  const print = (text: string) => printer.printFile(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return print(a) === print(b);
}

/** The innermost named function, method or class around a line of the original module (the scaffold's own index). */
export function truthOf(file: string, text: string, line: number): string | null {
  const all: Array<{ symbol: string; startLine: number; endLine: number }> = file.endsWith('.py')
    ? pythonMutants(file, text).spans
    : indexTsFile(file, text).spans.filter((s) => !s.isTest && s.kind !== 'window');
  const spans = all.filter((s) => s.startLine <= line && line <= s.endLine);
  spans.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine));
  return spans[0]?.symbol ?? null;
}

/** The settings an admin would get from the product's runner detection: targeted run = the failing test files, regression = all of them. */
export function settingsFor(mod: ModuleUnderTest, targetFiles: string[]): RepositorySettings {
  const read = (tests: string[]) => (rel: string) => (rel === 'package.json' ? packageJson(tests) : rel === 'tsconfig.json' ? '{}' : null);
  const target = detectRunner(read(targetFiles));
  const all = detectRunner(read(mod.tests));
  if (!target || !all) throw new Error('runner detection found no runner for the framed package.json');
  return RepositorySettingsSchema.parse({
    language: 'typescript',
    test: target.test,
    regression: all.test,
    junitReport: target.junitReport,
    timeLimits: { testSeconds: 60, regressionSeconds: 120, buildSeconds: 60 },
    // one run each of GREEN, the final rerun and the head without the fix: the framed suites were screened
    // green and deterministic, and the proof's repeats are there for flaky targets
    proof: { runs: 1 },
  });
}

export type Corpus = 'own' | 'realistic';

/** A bench group: one corpus, one order. Each is measured and reported on its own. */
export interface Group {
  corpus: Corpus;
  order: 1 | 2;
  /** "own-1", "realistic-2" */
  name: string;
  title: string;
  /** its share of the default sample */
  weight: number;
}

// The default 200 split over the four groups by these weights (80/40/50/30): the own first-order group
// stays the largest (the figure tracked since 2026-12-04), the realistic and second-order ones are
// the harder measure the committed figure is compared with.
export const GROUPS: Group[] = [
  { corpus: 'own', order: 1, name: 'own-1', title: "flowfix's own modules, first order (one mutation)", weight: 0.4 },
  { corpus: 'own', order: 2, name: 'own-2', title: "flowfix's own modules, higher order (two mutations in one function)", weight: 0.2 },
  { corpus: 'realistic', order: 1, name: 'realistic-1', title: 'realistic repositories (demo, repair corpus, fixtures), first order', weight: 0.25 },
  { corpus: 'realistic', order: 2, name: 'realistic-2', title: 'realistic repositories (demo, repair corpus, fixtures), higher order', weight: 0.15 },
];

/** The groups `--corpus` and `--order` select. */
export function selectGroups(corpus: string, order: string): Group[] {
  if (!['own', 'realistic', 'all'].includes(corpus)) throw new Error(`--corpus must be own, realistic or all, got ${JSON.stringify(corpus)}`);
  if (!['1', '2', 'mixed'].includes(order)) throw new Error(`--order must be 1, 2 or mixed, got ${JSON.stringify(order)}`);
  return GROUPS.filter((g) => (corpus === 'all' || g.corpus === corpus) && (order === 'mixed' || String(g.order) === order));
}

/** `total` split over the groups by weight (largest remainders), every group at least one when it can be. */
export function splitSample(total: number, groups: readonly Group[]): number[] {
  const sum = groups.reduce((n, g) => n + g.weight, 0);
  const exact = groups.map((g) => (total * g.weight) / sum);
  const out = exact.map(Math.floor);
  const byRemainder = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; out.reduce((n, x) => n + x, 0) < total; k++) out[byRemainder[k % out.length][1]] += 1;
  // a group left at 0 by rounding takes one from the largest
  for (let i = 0; i < out.length; i++) {
    if (out[i] > 0 || total < groups.length) continue;
    const big = out.indexOf(Math.max(...out));
    out[big] -= 1;
    out[i] += 1;
  }
  return out;
}

/** A file the bench mutates: a module of flowfix framed with its tests, or a source file of a realistic repository. */
interface Subject {
  corpus: Corpus;
  /** the name in outcomes and cache keys: the module's path for flowfix's own (as before the realistic corpus), `<repo>:<file>` otherwise */
  key: string;
  /** the mutated file, relative to its repository */
  file: string;
  text: string;
  /** of everything its suite reads: a changed file makes its cached screens stale */
  hash: string;
  mod?: ModuleUnderTest;
  repo?: RealisticRepo;
}

export interface MutantOutcome {
  /** own: the module's path; realistic: `<repo>:<file>` */
  module: string;
  /** absent in runs from before the realistic corpus and the second order: own, 1 */
  corpus?: Corpus;
  order?: number;
  /** the mutated file within its repository (realistic ones) */
  file?: string;
  mutant: Pick<Mutant, 'id' | 'operator' | 'line' | 'original' | 'replacement'> & {
    parts?: Array<Pick<Mutant, 'id' | 'operator' | 'line' | 'original' | 'replacement'>>;
  };
  truth: string;
  targets: string[];
  status: string;
  exitReason: string;
  exitDetail?: string;
  plausible: boolean;
  /** the fixed module is the original's code (layout and comments aside) */
  identical: boolean;
  /** the whole framed unit suite (every test file of the module) passes with the fix */
  suitePasses: boolean | null;
  correct: boolean;
  overfitting: boolean;
  rank: number | null;
  testFileEdits: number;
  files: string[];
  diff: string;
  wallMs: number;
  phaseMs?: Partial<Record<string, number>>;
  /** commands a time limit stopped in the run, and the time they took */
  timeouts?: number;
  timeoutMs?: number;
  /** the run's command time and how many target and regression runs it made */
  commandMs?: number;
  targetRuns?: number;
  regressionRuns?: number;
  candidates: number;
}

const groupOf = (o: Pick<MutantOutcome, 'corpus' | 'order'>) => `${o.corpus ?? 'own'}-${o.order ?? 1}`;

const mutantInfo = (m: Mutant): MutantOutcome['mutant'] => ({
  id: m.id,
  operator: m.operator,
  line: m.line,
  original: m.original,
  replacement: m.replacement,
  ...(m.parts ? { parts: m.parts.map((p) => ({ id: p.id, operator: p.operator, line: p.line, original: p.original, replacement: p.replacement })) } : {}),
});

/** Python has no printer here: equal text, trailing blanks aside. */
function sameSource(file: string, a: string, b: string): boolean {
  if (/\.py$/.test(file)) return a.replace(/[ \t]+$/gm, '').trimEnd() === b.replace(/[ \t]+$/gm, '').trimEnd();
  return sameProgram(file, a, b);
}

async function repairOne(input: {
  subject: Subject;
  mutant: Mutant;
  screen: ScreenResult;
  workDir: string;
  maxCandidates: number;
  coverage: boolean;
}): Promise<MutantOutcome> {
  const { subject, mutant, workDir } = input;
  const originalText = subject.text;
  const mutated = applyMutant(originalText, mutant);
  const truth = truthOf(subject.file, originalText, mutant.line) as string;
  const title = `Update ${path.basename(subject.file)}`;
  const repo = subject.mod
    ? await buildMutantRepo({ parentDir: workDir, mod: subject.mod, mutated, title })
    : await buildRealisticMutantRepo({ parentDir: workDir, repo: subject.repo as RealisticRepo, file: subject.file, mutated, title });
  const events: AgentEvent[] = [];
  try {
    const settings = subject.mod
      ? settingsFor(subject.mod, input.screen.failingFiles)
      : // their own settings, with the one proof run of the own group (the suites were screened green and deterministic)
        RepositorySettingsSchema.parse({ ...(subject.repo as RealisticRepo).settings, proof: { ...(subject.repo as RealisticRepo).settings.proof, runs: 1 } });
    const result = await runRepair({
      repoPath: repo.dir,
      baseRev: repo.base,
      headRev: repo.head,
      // a test file that fails as a whole (it throws while loading) is named by its absolute path in the
      // screening folder: such a run gets no targets, and the pipeline takes the failing tests of a run on the head
      ...(input.screen.failing.some((id) => id.includes(tmpdir())) ? {} : { targetTests: input.screen.failing }),
      settings: { ...settings, coverage: input.coverage },
      // every correct fix of a one-edit mutant undoes the change's only edit:
      // the revert filter (on by default) would drop exactly the right answer
      filterPolicy: FilterPolicySchema.parse({ pre: {}, post: { revertsChange: false } }),
      modelSettings: ModelSettingsSchema.parse({ policy: 'offline', offline: { maxCandidates: input.maxCandidates } }),
      policy: createOfflinePolicy({ maxCandidates: input.maxCandidates }),
      // the base run (one target run on the original, where they pass: that is how the mutant was kept)
      // times the candidates by the healthy code, as in production; the regression suite is the module's
      // whole framed suite, as an admin would set it: a fix it refuses sends the policy on to its next
      // candidate. The bench still checks every fix that is not the original below.
      checkBase: true,
      sink: { emit: async (e) => void events.push(e) },
      change: { title, description: '', author: 'bench' },
      workDir,
    });
    const runnersUp = (events.find((e) => e.type === 'suspects')?.payload.runnersUp as Suspect[] | undefined) ?? [];
    const ranked = [...result.suspects, ...runnersUp];
    const at = ranked.findIndex((s) => s.file === subject.file && s.symbol === truth);
    const plausible = result.status === 'fixed';
    let identical = false;
    let suitePasses: boolean | null = null;
    if (plausible) {
      const ws = await Workspace.create({ source: repo.dir, headRev: repo.head, parentDir: workDir, excludes: [settings.junitReport] });
      try {
        await ws.applyPatch(result.diff, ['--whitespace=nowarn']);
        identical = sameSource(subject.file, await ws.readFile(subject.file), originalText);
        if (identical) {
          // the original's own code (test files untouched): its whole suite was green when the module
          // was screened (cache.base), so running it again cannot tell anything new
          suitePasses = result.files.every((f) => f === subject.file);
        } else {
          const run = await runTests({ workspace: ws, settings, kind: 'regression', targets: [] });
          suitePasses = !run.reportError && run.results.length > 0 && !run.results.some((r) => r.status === 'failed' || r.status === 'error');
        }
      } finally {
        await ws.dispose();
      }
    }
    const testFileEdits = result.files.filter((f) => isTestPath(f) || /^tests?\//.test(f)).length;
    return {
      module: subject.key,
      corpus: subject.corpus,
      order: orderOf(mutant),
      ...(subject.repo ? { file: subject.file } : {}),
      mutant: mutantInfo(mutant),
      truth,
      targets: input.screen.failing,
      status: result.status,
      exitReason: result.exitReason,
      ...(result.exitDetail ? { exitDetail: result.exitDetail } : {}),
      plausible,
      identical,
      suitePasses,
      // correct = the original back (as code); a different fix that passes every test of the module is not
      // counted correct: nothing shows it behaves the same (e.g. `2 ** e` → `3 ** e` elsewhere in the condition)
      correct: plausible && identical && suitePasses === true && testFileEdits === 0,
      overfitting: plausible && !(identical && suitePasses === true),
      rank: at < 0 ? null : at + 1,
      testFileEdits,
      files: result.files,
      diff: result.diff,
      wallMs: result.timings.wallMs,
      phaseMs: result.phaseTimings,
      timeouts: result.timings.timeouts,
      timeoutMs: result.timings.timeoutMs,
      commandMs: result.timings.commandMs,
      targetRuns: result.timings.targetRuns,
      regressionRuns: result.timings.regressionRuns,
      candidates: events.filter((e) => e.type === 'candidate').length,
    };
  } finally {
    await rm(repo.dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

async function pool<T, R>(items: T[], jobs: number, fn: (item: T, worker: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, items.length) }, async (_, worker) => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], worker);
      }
    }),
  );
  return out;
}

/** One group's block (or, without `title`, a whole run's as before the groups). */
export function report(
  outcomes: MutantOutcome[],
  meta: { seed: number; screened: number; killed: number; modules: number; totalMs: number; jobs: number; title?: string },
): string {
  const lines: string[] = [];
  const plausible = outcomes.filter((o) => o.plausible);
  const correct = outcomes.filter((o) => o.correct);
  const modules = new Set(outcomes.map((o) => o.module)).size;
  if (meta.title)
    lines.push(
      `── ${meta.title}: ${outcomes.length} mutants over ${modules} files (screened ${meta.screened}, killed ${meta.killed}, from ${meta.modules} files with a green suite)`,
    );
  else
    lines.push(
      `flowfix mutants bench: seed ${meta.seed}, ${outcomes.length} mutants over ${modules} modules (screened ${meta.screened}, killed ${meta.killed}, from ${meta.modules} modules with a green unit suite), offline policy, ${meta.jobs} at a time`,
    );
  lines.push('');
  lines.push(`plausible (target tests pass)          ${pct(plausible.length, outcomes.length)}   target ≥ 60%`);
  lines.push(`correct (the original back, suite green) ${pct(correct.length, plausible.length)} of plausible   target ≥ 90%`);
  lines.push(`overfitting                            ${pct(plausible.filter((o) => o.overfitting).length, plausible.length)} of plausible, of which`);
  lines.push(`  another test of the module fails     ${plausible.filter((o) => o.suitePasses !== true).length}`);
  lines.push(
    `  every test passes, code differs      ${plausible.filter((o) => o.suitePasses === true && !o.identical).length} (behaviour not shown equal: maybe equivalent, not counted correct)`,
  );
  lines.push(`mutated function top-1                 ${pct(outcomes.filter((o) => o.rank === 1).length, outcomes.length)}`);
  lines.push(`mutated function top-3                 ${pct(outcomes.filter((o) => o.rank !== null && o.rank <= 3).length, outcomes.length)}   target ≥ 90%`);
  lines.push(
    `  ranks: ${[1, 2, 3, 4, 5].map((r) => `#${r} ${outcomes.filter((o) => o.rank === r).length}`).join(', ')}, not among the suspects ${outcomes.filter((o) => o.rank === null).length}`,
  );
  const walls = outcomes.map((o) => o.wallMs);
  lines.push(
    `time per run                           median ${(quantile(walls, 0.5) / 1000).toFixed(1)} s, p90 ${(quantile(walls, 0.9) / 1000).toFixed(1)} s, max ${(Math.max(0, ...walls) / 1000).toFixed(1)} s`,
  );
  const phases = [...new Set(outcomes.flatMap((o) => Object.keys(o.phaseMs ?? {})))];
  lines.push(
    `  by phase, mean s per run             ${phases.map((p) => `${p} ${(outcomes.reduce((n, o) => n + (o.phaseMs?.[p] ?? 0), 0) / Math.max(1, outcomes.length) / 1000).toFixed(1)}`).join(', ')}`,
  );
  const lost = outcomes.reduce((n, o) => n + (o.timeoutMs ?? 0), 0);
  const runTime = walls.reduce((n, w) => n + w, 0);
  lines.push(
    `  lost to timeouts                     ${(lost / 1000).toFixed(1)} s of ${(runTime / 1000).toFixed(1)} s run time (${runTime ? ((100 * lost) / runTime).toFixed(1) : '0.0'}%), ${outcomes.reduce((n, o) => n + (o.timeouts ?? 0), 0)} commands in ${outcomes.filter((o) => (o.timeouts ?? 0) > 0).length} runs`,
  );
  const greens = plausible.map((o) => o.candidates);
  if (greens.length)
    lines.push(
      `  candidates tried to the fix          median ${quantile(greens, 0.5)}, p90 ${quantile(greens, 0.9)}, max ${Math.max(...greens)}; runs with no fix tried ${outcomes.filter((o) => !o.plausible).reduce((n, o) => n + o.candidates, 0)} in all`,
    );
  lines.push(`test-file edits                        ${outcomes.reduce((n, o) => n + o.testFileEdits, 0)} (must be 0)`);
  if (!meta.title)
    lines.push(
      Number.isFinite(meta.totalMs)
        ? `whole bench                            ${(meta.totalMs / 60_000).toFixed(1)} min (screening included; cached screens are not re-run)`
        : `whole bench                            a partial run: ${outcomes.length} of ${meta.killed} repaired when it was read`,
    );
  lines.push('');
  lines.push('per operator                 mutants  plausible        correct          top-3');
  const ops = [...new Set(outcomes.map((o) => o.mutant.operator))].sort();
  for (const op of ops) {
    const set = outcomes.filter((o) => o.mutant.operator === op);
    const p = set.filter((o) => o.plausible);
    lines.push(
      `  ${op.padEnd(26)} ${String(set.length).padStart(5)}  ${pct(p.length, set.length).padEnd(16)} ${pct(p.filter((o) => o.correct).length, p.length).padEnd(16)} ${pct(set.filter((o) => o.rank !== null && o.rank <= 3).length, set.length)}`,
    );
  }
  lines.push('');
  const exits = new Map<string, number>();
  for (const o of outcomes.filter((x) => !x.plausible)) exits.set(o.exitReason, (exits.get(o.exitReason) ?? 0) + 1);
  lines.push(
    `no fix, by exit reason: ${
      [...exits]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none'
    }`,
  );
  return lines.join('\n');
}

export interface GroupMeta {
  screened: number;
  killed: number;
  modules: number;
}

/** The summary of a run with groups: one line per group to compare them, then each group's block. */
export function groupedReport(outcomes: MutantOutcome[], meta: { seed: number; totalMs: number; jobs: number; groups: Record<string, GroupMeta> }): string {
  const lines: string[] = [];
  const present = GROUPS.filter((g) => meta.groups[g.name] || outcomes.some((o) => groupOf(o) === g.name));
  lines.push(`flowfix mutants bench: seed ${meta.seed}, ${outcomes.length} mutants in ${present.length} groups, offline policy, ${meta.jobs} at a time`);
  lines.push('');
  lines.push('group          mutants  plausible        correct of plausible  top-3            median s per run');
  for (const g of present) {
    const set = outcomes.filter((o) => groupOf(o) === g.name);
    const p = set.filter((o) => o.plausible);
    lines.push(
      `  ${g.name.padEnd(12)} ${String(set.length).padStart(5)}  ${pct(p.length, set.length).padEnd(16)} ${pct(p.filter((o) => o.correct).length, p.length).padEnd(21)} ${pct(set.filter((o) => o.rank !== null && o.rank <= 3).length, set.length).padEnd(16)} ${(
        quantile(
          set.map((o) => o.wallMs),
          0.5,
        ) / 1000
      ).toFixed(1)}`,
    );
  }
  lines.push(
    Number.isFinite(meta.totalMs)
      ? `whole bench    ${(meta.totalMs / 60_000).toFixed(1)} min (screening included; cached screens are not re-run)`
      : `whole bench    a partial run: ${outcomes.length} of ${Object.values(meta.groups).reduce((n, g) => n + g.killed, 0)} repaired when it was read`,
  );
  for (const g of present) {
    const gm = meta.groups[g.name] ?? { screened: 0, killed: 0, modules: 0 };
    lines.push('');
    lines.push(
      report(
        outcomes.filter((o) => groupOf(o) === g.name),
        { seed: meta.seed, ...gm, totalMs: meta.totalMs, jobs: meta.jobs, title: `${g.name}: ${g.title}` },
      ),
    );
  }
  return lines.join('\n');
}

/** A seeded stream per group: the own first-order group keeps `seed`'s own stream, so its sample is the one it was before the groups. */
function groupRandom(seed: number, group: Group): () => number {
  const i = GROUPS.findIndex((g) => g.name === group.name);
  return seededRandom(i === 0 ? seed : (seed + Math.imul(i, 0x9e3779b1)) >>> 0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      sample: { type: 'string', default: '200' },
      jobs: { type: 'string', default: '2' },
      corpus: { type: 'string', default: 'all' },
      order: { type: 'string', default: 'mixed' },
      'max-candidates': { type: 'string', default: '10' },
      'no-coverage': { type: 'boolean', default: false },
      json: { type: 'string' },
      report: { type: 'string' },
    },
  });
  if (values.report) {
    // the report of a finished or partial run's JSON
    const saved = JSON.parse(await readFile(values.report, 'utf8')) as {
      seed: number;
      screened: number;
      killed: number;
      modules: number;
      totalMs?: number;
      jobs?: number;
      groups?: Record<string, GroupMeta>;
      outcomes: MutantOutcome[];
    };
    process.stdout.write(
      `${
        saved.groups
          ? groupedReport(saved.outcomes, { seed: saved.seed, totalMs: saved.totalMs ?? NaN, jobs: saved.jobs ?? 2, groups: saved.groups })
          : report(saved.outcomes, {
              seed: saved.seed,
              screened: saved.screened,
              killed: saved.killed,
              modules: saved.modules,
              totalMs: saved.totalMs ?? NaN,
              jobs: saved.jobs ?? 2,
            })
      }\n`,
    );
    return;
  }
  const seed = Number(values.seed);
  const sample = Number(values.sample);
  const jobs = Number(values.jobs);
  const maxCandidates = Number(values['max-candidates']);
  for (const [name, n] of Object.entries({ seed, sample, jobs, maxCandidates })) {
    if (!Number.isInteger(n) || n < (name === 'seed' ? 0 : 1))
      throw new Error(`--${name} must be a whole number${name === 'seed' ? '' : ' ≥ 1'}, got ${JSON.stringify(values[name as keyof typeof values])}`);
  }
  const groups = selectGroups(values.corpus as string, values.order as string);
  const shares = splitSample(sample, groups);
  const started = performance.now();
  await mkdir(OUT, { recursive: true });
  const workDir = await mkdtemp(path.join(tmpdir(), 'flowfix-mutants-'));
  const cachePath = path.join(OUT, `mutants-screen-seed${seed}.json`);
  const cache: Cache = existsSync(cachePath) ? (JSON.parse(await readFile(cachePath, 'utf8')) as Cache) : { version: 1, base: {}, screened: {} };
  const saveCache = () => writeFile(cachePath, JSON.stringify(cache));
  try {
    // one folder per worker and subject for screening
    const frames = new Map<string, string>();
    const frameOf = async (subject: { key: string; mod?: ModuleUnderTest; repo?: RealisticRepo }, worker: number) => {
      const key = `${worker}:${subject.repo ? subject.repo.name : subject.key}`;
      let dir = frames.get(key);
      if (!dir) {
        dir = path.join(workDir, 'frames', String(worker), key.slice(key.indexOf(':') + 1).replace(/\W+/g, '-'));
        await mkdir(dir, { recursive: true });
        if (subject.mod) await writeFrame(dir, subject.mod);
        else await writeRepo(dir, subject.repo as RealisticRepo);
        frames.set(key, dir);
      }
      return dir;
    };
    const usableBase = (b: (ScreenResult & { tests: number }) | undefined, maxMs = MAX_SUITE_MS) => !!b && !b.killed && !b.note && b.tests > 0 && b.ms <= maxMs;

    // 1. the subjects whose suite is green (and quick) on the original
    const subjects: Subject[] = [];
    if (groups.some((g) => g.corpus === 'own')) {
      const all = modulesUnderTest();
      const hashes = new Map(all.map((m) => [m.file, hashOf(m.files.map((f) => readFileSync(path.join(ROOT, f), 'utf8')).join('\0'))]));
      await pool(all, jobs, async (mod, worker) => {
        const hit = cache.base[mod.file];
        if (hit && hit.hash === hashes.get(mod.file)) return;
        const res = await runSuite(await frameOf({ key: mod.file, mod }, worker), mod.tests);
        cache.base[mod.file] = { ...res, hash: hashes.get(mod.file) as string };
      });
      await saveCache();
      const usable = all.filter((m) => usableBase(cache.base[m.file]));
      process.stderr.write(`own modules: ${all.length} with unit tests, ${usable.length} green on the original within ${MAX_SUITE_MS / 1000} s\n`);
      for (const mod of usable)
        subjects.push({
          corpus: 'own',
          key: mod.file,
          file: mod.file,
          text: readFileSync(path.join(ROOT, mod.file), 'utf8'),
          hash: hashes.get(mod.file) as string,
          mod,
        });
    }
    if (groups.some((g) => g.corpus === 'realistic')) {
      const repos = realisticRepos();
      const hashes = new Map(repos.map((r) => [r.name, hashOf(JSON.stringify([r.settings, Object.entries(r.files).sort()]))]));
      await pool(repos, jobs, async (repo, worker) => {
        const key = `realistic:${repo.name}`;
        const hit = cache.base[key];
        if (hit && hit.hash === hashes.get(repo.name)) return;
        const res = await runRepoSuite(await frameOf({ key, repo }, worker), repo.settings);
        cache.base[key] = { ...res, hash: hashes.get(repo.name) as string };
      });
      await saveCache();
      const usable = repos.filter((r) => usableBase(cache.base[`realistic:${r.name}`], MAX_REALISTIC_SUITE_MS));
      process.stderr.write(
        `realistic repositories: ${repos.length}, ${usable.length} green on the original within ${MAX_REALISTIC_SUITE_MS / 1000} s (${usable.map((r) => r.name).join(', ')})\n`,
      );
      for (const repo of usable) {
        for (const file of sourcesOf(repo, ['ts', 'py']))
          subjects.push({ corpus: 'realistic', key: `${repo.name}:${file}`, file, text: repo.files[file], hash: hashes.get(repo.name) as string, repo });
      }
    }

    // 2. every first-order mutant inside a named function (the localisation's ground truth); Stryker reads
    // each file under its subject key, so two repositories' src/cart.ts stay apart
    const isPy = (s: Subject) => s.file.endsWith('.py');
    const stryker = await strykerMutants(subjects.filter((s) => !isPy(s)).map((s) => ({ file: s.key, text: s.text })));
    const firstOrder = new Map<string, Mutant[]>();
    for (const s of subjects) {
      const all = isPy(s) ? pythonMutants(s.key, s.text).mutants : [...stryker.filter((m) => m.file === s.key), ...ownMutants(s.key, s.text)];
      const mine = all.filter((m) => truthOf(s.file, s.text, m.line) !== null);
      mine.sort((a, b) => a.id.localeCompare(b.id));
      firstOrder.set(s.key, mine);
    }
    process.stderr.write(
      `mutants: ${[...firstOrder.values()].reduce((n, l) => n + l.length, 0)} first-order in named functions over ${subjects.length} files\n`,
    );

    const keyOf = (o: { subject: Subject; mutant: Mutant }) => `${o.subject.key}#${o.mutant.id}#${o.subject.hash}`;
    const kept: Array<{ group: Group; subject: Subject; mutant: Mutant; screen: ScreenResult }> = [];
    const groupMeta: Record<string, GroupMeta> = {};
    const rank = new Map<string, number>();
    let screened = 0;
    for (const [gi, group] of groups.entries()) {
      const want = shares[gi];
      const inGroup = subjects.filter((s) => s.corpus === group.corpus);
      // 3. the seeded order: files shuffled, each file's mutants shuffled, taken round-robin
      const random = groupRandom(seed, group);
      const pairRandom = seededRandom((seed ^ 0x5bd1e995) >>> 0);
      const mutantsOf = (s: Subject) =>
        group.order === 1
          ? (firstOrder.get(s.key) ?? [])
          : higherOrderMutants(s.text, firstOrder.get(s.key) ?? [], (m) => truthOf(s.file, s.text, m.line), pairRandom);
      const order: Array<{ subject: Subject; mutant: Mutant }> = [];
      const queues = shuffled(inGroup, random).map((subject) => ({ subject, list: shuffled(mutantsOf(subject), random) }));
      for (let round = 0; queues.some((q) => q.list.length > round); round++) {
        for (const q of queues) if (q.list[round]) order.push({ subject: q.subject, mutant: q.list[round] });
      }
      for (const [i, o] of order.entries()) rank.set(`${group.name}#${keyOf(o)}`, i);

      // 4. screening in that order until the group's share is killed (cached by seed)
      const survivors = new Map<string, number>();
      const mine: typeof kept = [];
      let cursor = 0;
      await pool(
        Array.from({ length: jobs }, (_, i) => i),
        jobs,
        async (worker) => {
          while (mine.length < want && cursor < order.length) {
            const item = order[cursor++];
            if ((survivors.get(item.subject.key) ?? 0) >= MAX_SURVIVORS_PER_MODULE && !mine.some((k) => k.subject.key === item.subject.key)) continue;
            let res = cache.screened[keyOf(item)];
            if (!res) {
              const dir = await frameOf(item.subject, worker);
              const original = item.subject.text;
              await writeFile(path.join(dir, item.subject.file), applyMutant(original, item.mutant));
              try {
                if (item.subject.mod) {
                  const suite = await runSuite(dir, item.subject.mod.tests);
                  res = {
                    killed: suite.killed,
                    failing: suite.failing,
                    failingFiles: suite.killed ? await failingFiles(dir, item.subject.mod.tests) : [],
                    ms: suite.ms,
                    ...(suite.note ? { note: suite.note } : {}),
                  };
                } else {
                  // a realistic repository's command runs its whole suite: there is no per-file target command to feed
                  const suite = await runRepoSuite(dir, (item.subject.repo as RealisticRepo).settings);
                  res = { killed: suite.killed, failing: suite.failing, failingFiles: [], ms: suite.ms, ...(suite.note ? { note: suite.note } : {}) };
                }
              } finally {
                await writeFile(path.join(dir, item.subject.file), original);
              }
              cache.screened[keyOf(item)] = res;
              if (++screened % 10 === 0) await saveCache();
            }
            // a mutant that times out or breaks the run without a failing test is dropped with the survivors
            const usable = res.killed && (item.subject.repo ? true : res.failingFiles.length > 0);
            if (usable && mine.length < want) mine.push({ group, ...item, screen: res });
            else survivors.set(item.subject.key, (survivors.get(item.subject.key) ?? 0) + 1);
          }
        },
      );
      await saveCache();
      // the first `want` killed in the seeded order, whatever order the workers finished in
      mine.sort((a, b) => (rank.get(`${group.name}#${keyOf(a)}`) as number) - (rank.get(`${group.name}#${keyOf(b)}`) as number));
      const examined = order.filter((o) => cache.screened[keyOf(o)]).length;
      groupMeta[group.name] = { screened: examined, killed: mine.length, modules: inGroup.length };
      kept.push(...mine);
      process.stderr.write(
        `screening ${group.name}: ${examined} mutants screened for seed ${seed}, ${mine.length} of ${want} killed kept, over ${new Set(mine.map((k) => k.subject.key)).size} files (${((performance.now() - started) / 1000).toFixed(0)} s so far)\n`,
      );
    }

    // 5. the pipeline on each, the groups interleaved (a run stopped half-way has measured every group)
    const byGroup = groups.map((g) => kept.filter((k) => k.group === g));
    kept.splice(
      0,
      kept.length,
      ...Array.from({ length: Math.max(0, ...byGroup.map((l) => l.length)) }, (_, i) => byGroup.flatMap((l) => (l[i] ? [l[i]] : []))).flat(),
    );
    let done = 0;
    const finished: MutantOutcome[] = [];
    const tag = `${values.corpus}-${values.order}`;
    const partialPath = path.join(OUT, `mutants-seed${seed}-n${sample}-${tag}-partial.json`);
    const totals = () => ({
      screened: Object.values(groupMeta).reduce((n, g) => n + g.screened, 0),
      killed: kept.length,
      modules: subjects.length,
    });
    const outcomes = await pool(kept, jobs, async (item) => {
      const o = await repairOne({
        subject: item.subject,
        mutant: item.mutant,
        screen: item.screen,
        workDir,
        maxCandidates,
        coverage: !values['no-coverage'],
      }).catch((err: unknown): MutantOutcome => ({
        // the bench's own failure on one mutant is recorded, not the end of the run
        module: item.subject.key,
        corpus: item.subject.corpus,
        order: orderOf(item.mutant),
        mutant: mutantInfo(item.mutant),
        truth: '',
        targets: item.screen.failing,
        status: 'bench_error',
        exitReason: 'bench_error',
        exitDetail: err instanceof Error ? err.message : String(err),
        plausible: false,
        identical: false,
        suitePasses: null,
        correct: false,
        overfitting: false,
        rank: null,
        testFileEdits: 0,
        files: [],
        diff: '',
        wallMs: 0,
        candidates: 0,
      }));
      done += 1;
      finished.push(o);
      // kept as it goes: a run stopped half-way still has its measured part (`--report PATH` prints it)
      await writeFile(
        partialPath,
        JSON.stringify({ when: new Date().toISOString(), seed, sample, partial: true, ...totals(), groups: groupMeta, outcomes: finished }, null, 2),
      );
      process.stderr.write(
        `[${done}/${kept.length}] ${item.group.name.padEnd(11)} ${o.correct ? 'correct ' : o.plausible ? 'OVERFIT ' : 'no fix  '} ${o.module} ${o.mutant.operator} l${o.mutant.line} ${JSON.stringify(o.mutant.original.slice(0, 30))}→${JSON.stringify(o.mutant.replacement.slice(0, 30))} rank ${o.rank ?? '-'} ${(o.wallMs / 1000).toFixed(1)} s ${o.plausible ? '' : o.exitReason}\n`,
      );
      return o;
    });
    const totalMs = performance.now() - started;
    const meta = { seed, totalMs, jobs, groups: groupMeta };
    process.stdout.write(`${groupedReport(outcomes, meta)}\n`);
    const out = values.json ?? path.join(OUT, `mutants-seed${seed}-n${sample}-${tag}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await writeFile(
      out,
      JSON.stringify(
        {
          when: new Date().toISOString(),
          ...meta,
          ...totals(),
          corpus: values.corpus,
          order: values.order,
          sample,
          shares: Object.fromEntries(groups.map((g, i) => [g.name, shares[i]])),
          maxCandidates,
          coverage: !values['no-coverage'],
          outcomes,
        },
        null,
        2,
      ),
    );
    process.stdout.write(`\nraw results: ${out}\n`);
  } finally {
    await rm(workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
