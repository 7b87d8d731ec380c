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
import {
  FilterPolicySchema,
  ModelSettingsSchema,
  RepositorySettingsSchema,
  type RepositorySettings,
} from '../../common/settings';
import { buildMutantRepo, modulesUnderTest, packageJson, ROOT, writeFrame, type ModuleUnderTest } from './frame';
import { applyMutant, higherOrderMutants, orderOf, ownMutants, seededRandom, shuffled, strykerMutants, type Mutant } from './mutate';
import { buildRealisticMutantRepo, realisticRepos, sourcesOf, writeRepo, type RealisticRepo } from './realistic';
import { pct, quantile } from '../stats';

const OUT = path.join(ROOT, 'bench', 'out');
/** a module whose unit tests take longer than this on the base is left out: the budget is ~13 s per mutant */
const MAX_SUITE_MS = 12_000;
/** screens of one module's mutants that all survive before the module is given up */
const MAX_SURVIVORS_PER_MODULE = 12;
const SCREEN_TIMEOUT_MS = 30_000;

interface ScreenResult {
  killed: boolean;
  /** junit ids of the failing tests */
  failing: string[];
  /** the test files that have a failing test */
  failingFiles: string[];
  ms: number;
  note?: string;
}

interface Cache {
  version: 1;
  base: Record<string, ScreenResult & { tests: number; hash: string }>;
  screened: Record<string, ScreenResult>;
}

/** A command in its own process group, killed as a group when it ends or outlives SCREEN_TIMEOUT_MS. */
async function runGroup(dir: string, argv: string[], env: Record<string, string | undefined>): Promise<number | 'timeout'> {
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
    }, SCREEN_TIMEOUT_MS);
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
  const code = await runGroup(dir, ['node', '--import', 'tsx', '--test', '--test-timeout=20000', '--test-reporter=junit', `--test-reporter-destination=junit.xml`, ...tests], { NODE_ENV: 'test' });
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
  const command = settings.regression ?? renderTestCommand(settings.test, []);
  const code = await runGroup(root, ['/bin/sh', '-c', command], settings.env);
  const ms = performance.now() - started;
  if (code === 'timeout') return { killed: false, failing: [], failingFiles: [], ms, tests: 0, note: 'timeout' };
  const read = await readTestReports(root, settings.junitReport);
  if (read.reportError || read.results.length === 0) return { killed: false, failing: [], failingFiles: [], ms, tests: 0, note: read.reportError ?? `no report (exit ${code})` };
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
async function failingFiles(dir: string, tests: string[]): Promise<string[]> {
  if (tests.length === 1) return tests;
  const out: string[] = [];
  for (const t of tests) if ((await runSuite(dir, [t])).killed) out.push(t);
  return out;
}

function hashOf(text: string): string {
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
  const spans = indexTsFile(file, text).spans.filter((s) => !s.isTest && s.kind !== 'window' && s.startLine <= line && line <= s.endLine);
  spans.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine));
  return spans[0]?.symbol ?? null;
}

/** The settings an admin would get from the product's runner detection: targeted run = the failing test files, regression = all of them. */
function settingsFor(mod: ModuleUnderTest, targetFiles: string[]): RepositorySettings {
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

export interface MutantOutcome {
  module: string;
  mutant: Pick<Mutant, 'id' | 'operator' | 'line' | 'original' | 'replacement'>;
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

async function repairOne(input: { mod: ModuleUnderTest; mutant: Mutant; screen: ScreenResult; workDir: string; maxCandidates: number; coverage: boolean }): Promise<MutantOutcome> {
  const { mod, mutant, workDir } = input;
  const originalText = readFileSync(path.join(ROOT, mod.file), 'utf8');
  const mutated = applyMutant(originalText, mutant);
  const truth = truthOf(mod.file, originalText, mutant.line) as string;
  const repo = await buildMutantRepo({ parentDir: workDir, mod, mutated, title: `Update ${path.basename(mod.file)}` });
  const events: AgentEvent[] = [];
  try {
    const settings = settingsFor(mod, input.screen.failingFiles);
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
      change: { title: `Update ${path.basename(mod.file)}`, description: '', author: 'bench' },
      workDir,
    });
    const runnersUp = (events.find((e) => e.type === 'suspects')?.payload.runnersUp as Suspect[] | undefined) ?? [];
    const ranked = [...result.suspects, ...runnersUp];
    const at = ranked.findIndex((s) => s.file === mod.file && s.symbol === truth);
    const plausible = result.status === 'fixed';
    let identical = false;
    let suitePasses: boolean | null = null;
    if (plausible) {
      const ws = await Workspace.create({ source: repo.dir, headRev: repo.head, parentDir: workDir, excludes: [settings.junitReport] });
      try {
        await ws.applyPatch(result.diff, ['--whitespace=nowarn']);
        identical = sameProgram(mod.file, await ws.readFile(mod.file), originalText);
        if (identical) {
          // the original's own code (test files untouched): its whole framed suite was green when the module
          // was screened (cache.base), so running it again cannot tell anything new
          suitePasses = result.files.every((f) => f === mod.file);
        } else {
          const run = await runTests({ workspace: ws, settings, kind: 'regression', targets: [] });
          suitePasses = !run.reportError && run.results.length > 0 && !run.results.some((r) => r.status === 'failed' || r.status === 'error');
        }
      } finally {
        await ws.dispose();
      }
    }
    const testFileEdits = result.files.filter((f) => isTestPath(f) || f.startsWith('test/')).length;
    return {
      module: mod.file,
      mutant: { id: mutant.id, operator: mutant.operator, line: mutant.line, original: mutant.original, replacement: mutant.replacement },
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

export function report(outcomes: MutantOutcome[], meta: { seed: number; screened: number; killed: number; modules: number; totalMs: number; jobs: number }): string {
  const lines: string[] = [];
  const plausible = outcomes.filter((o) => o.plausible);
  const correct = outcomes.filter((o) => o.correct);
  const modules = new Set(outcomes.map((o) => o.module)).size;
  lines.push(`flowfix mutants bench: seed ${meta.seed}, ${outcomes.length} mutants over ${modules} modules (screened ${meta.screened}, killed ${meta.killed}, from ${meta.modules} modules with a green unit suite), offline policy, ${meta.jobs} at a time`);
  lines.push('');
  lines.push(`plausible (target tests pass)          ${pct(plausible.length, outcomes.length)}   target ≥ 60%`);
  lines.push(`correct (the original back, suite green) ${pct(correct.length, plausible.length)} of plausible   target ≥ 90%`);
  lines.push(`overfitting                            ${pct(plausible.filter((o) => o.overfitting).length, plausible.length)} of plausible, of which`);
  lines.push(`  another test of the module fails     ${plausible.filter((o) => o.suitePasses !== true).length}`);
  lines.push(`  every test passes, code differs      ${plausible.filter((o) => o.suitePasses === true && !o.identical).length} (behaviour not shown equal: maybe equivalent, not counted correct)`);
  lines.push(`mutated function top-1                 ${pct(outcomes.filter((o) => o.rank === 1).length, outcomes.length)}`);
  lines.push(`mutated function top-3                 ${pct(outcomes.filter((o) => o.rank !== null && o.rank <= 3).length, outcomes.length)}   target ≥ 90%`);
  lines.push(`  ranks: ${[1, 2, 3, 4, 5].map((r) => `#${r} ${outcomes.filter((o) => o.rank === r).length}`).join(', ')}, not among the suspects ${outcomes.filter((o) => o.rank === null).length}`);
  const walls = outcomes.map((o) => o.wallMs);
  lines.push(`time per run                           median ${(quantile(walls, 0.5) / 1000).toFixed(1)} s, p90 ${(quantile(walls, 0.9) / 1000).toFixed(1)} s, max ${(Math.max(0, ...walls) / 1000).toFixed(1)} s`);
  const phases = [...new Set(outcomes.flatMap((o) => Object.keys(o.phaseMs ?? {})))];
  lines.push(`  by phase, mean s per run             ${phases.map((p) => `${p} ${(outcomes.reduce((n, o) => n + (o.phaseMs?.[p] ?? 0), 0) / Math.max(1, outcomes.length) / 1000).toFixed(1)}`).join(', ')}`);
  const lost = outcomes.reduce((n, o) => n + (o.timeoutMs ?? 0), 0);
  const runTime = walls.reduce((n, w) => n + w, 0);
  lines.push(`  lost to timeouts                     ${(lost / 1000).toFixed(1)} s of ${(runTime / 1000).toFixed(1)} s run time (${runTime ? ((100 * lost) / runTime).toFixed(1) : '0.0'}%), ${outcomes.reduce((n, o) => n + (o.timeouts ?? 0), 0)} commands in ${outcomes.filter((o) => (o.timeouts ?? 0) > 0).length} runs`);
  const greens = plausible.map((o) => o.candidates);
  if (greens.length) lines.push(`  candidates tried to the fix          median ${quantile(greens, 0.5)}, p90 ${quantile(greens, 0.9)}, max ${Math.max(...greens)}; runs with no fix tried ${outcomes.filter((o) => !o.plausible).reduce((n, o) => n + o.candidates, 0)} in all`);
  lines.push(`test-file edits                        ${outcomes.reduce((n, o) => n + o.testFileEdits, 0)} (must be 0)`);
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
  lines.push(`no fix, by exit reason: ${[...exits].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      sample: { type: 'string', default: '200' },
      jobs: { type: 'string', default: '2' },
      'max-candidates': { type: 'string', default: '10' },
      'no-coverage': { type: 'boolean', default: false },
      json: { type: 'string' },
      report: { type: 'string' },
    },
  });
  if (values.report) {
    // the report of a finished or partial run's JSON
    const saved = JSON.parse(await readFile(values.report, 'utf8')) as { seed: number; screened: number; killed: number; modules: number; totalMs?: number; jobs?: number; outcomes: MutantOutcome[] };
    process.stdout.write(`${report(saved.outcomes, { seed: saved.seed, screened: saved.screened, killed: saved.killed, modules: saved.modules, totalMs: saved.totalMs ?? NaN, jobs: saved.jobs ?? 2 })}\n`);
    return;
  }
  const seed = Number(values.seed);
  const sample = Number(values.sample);
  const jobs = Number(values.jobs);
  const maxCandidates = Number(values['max-candidates']);
  for (const [name, n] of Object.entries({ seed, sample, jobs, maxCandidates })) {
    if (!Number.isInteger(n) || n < (name === 'seed' ? 0 : 1)) throw new Error(`--${name} must be a whole number${name === 'seed' ? '' : ' ≥ 1'}, got ${JSON.stringify(values[name as keyof typeof values])}`);
  }
  const started = performance.now();
  await mkdir(OUT, { recursive: true });
  const workDir = await mkdtemp(path.join(tmpdir(), 'flowfix-mutants-'));
  const cachePath = path.join(OUT, `mutants-screen-seed${seed}.json`);
  const cache: Cache = existsSync(cachePath) ? (JSON.parse(await readFile(cachePath, 'utf8')) as Cache) : { version: 1, base: {}, screened: {} };
  const saveCache = () => writeFile(cachePath, JSON.stringify(cache));
  try {
    // one folder per worker and module for screening
    const frames = new Map<string, string>();
    const frameOf = async (mod: ModuleUnderTest, worker: number) => {
      const key = `${worker}:${mod.file}`;
      let dir = frames.get(key);
      if (!dir) {
        dir = path.join(workDir, 'frames', String(worker), mod.file.replace(/\W+/g, '-'));
        await mkdir(dir, { recursive: true });
        await writeFrame(dir, mod);
        frames.set(key, dir);
      }
      return dir;
    };

    // 1. the modules whose framed unit suite is green (and quick) on the original
    const all = modulesUnderTest();
    const hashes = new Map(all.map((m) => [m.file, hashOf(m.files.map((f) => readFileSync(path.join(ROOT, f), 'utf8')).join('\0'))]));
    await pool(all, jobs, async (mod, worker) => {
      const hit = cache.base[mod.file];
      if (hit && hit.hash === hashes.get(mod.file)) return;
      const res = await runSuite(await frameOf(mod, worker), mod.tests);
      cache.base[mod.file] = { ...res, hash: hashes.get(mod.file) as string };
    });
    await saveCache();
    const usable = all.filter((m) => {
      const b = cache.base[m.file];
      return !b.killed && !b.note && b.tests > 0 && b.ms <= MAX_SUITE_MS;
    });
    process.stderr.write(`modules: ${all.length} with unit tests, ${usable.length} green on the original within ${MAX_SUITE_MS / 1000} s\n`);

    // 2. every mutant of those modules inside a named function (the localisation's ground truth)
    const texts = new Map(usable.map((m) => [m.file, readFileSync(path.join(ROOT, m.file), 'utf8')]));
    const stryker = await strykerMutants(usable.map((m) => ({ file: m.file, text: texts.get(m.file) as string })));
    const byModule = new Map<string, Mutant[]>();
    for (const mod of usable) {
      const text = texts.get(mod.file) as string;
      const mine = [...stryker.filter((m) => m.file === mod.file), ...ownMutants(mod.file, text)].filter((m) => truthOf(mod.file, text, m.line) !== null);
      mine.sort((a, b) => a.id.localeCompare(b.id));
      byModule.set(mod.file, mine);
    }
    process.stderr.write(`mutants: ${[...byModule.values()].reduce((n, l) => n + l.length, 0)} in named functions\n`);

    // 3. the seeded order: modules shuffled, each module's mutants shuffled, taken round-robin
    const random = seededRandom(seed);
    const order: Array<{ mod: ModuleUnderTest; mutant: Mutant }> = [];
    const queues = shuffled(usable, random).map((mod) => ({ mod, list: shuffled(byModule.get(mod.file) ?? [], random) }));
    for (let round = 0; queues.some((q) => q.list.length > round); round++) {
      for (const q of queues) if (q.list[round]) order.push({ mod: q.mod, mutant: q.list[round] });
    }

    // 4. screening in that order until `sample` are killed (cached by seed)
    const keyOf = (o: { mod: ModuleUnderTest; mutant: Mutant }) => `${o.mod.file}#${o.mutant.id}#${hashes.get(o.mod.file)}`;
    const survivors = new Map<string, number>();
    const kept: Array<{ mod: ModuleUnderTest; mutant: Mutant; screen: ScreenResult }> = [];
    let screened = 0;
    let cursor = 0;
    await pool(
      Array.from({ length: jobs }, (_, i) => i),
      jobs,
      async (worker) => {
        while (kept.length < sample && cursor < order.length) {
          const item = order[cursor++];
          if ((survivors.get(item.mod.file) ?? 0) >= MAX_SURVIVORS_PER_MODULE && !kept.some((k) => k.mod.file === item.mod.file)) continue;
          let res = cache.screened[keyOf(item)];
          if (!res) {
            const dir = await frameOf(item.mod, worker);
            const original = texts.get(item.mod.file) as string;
            await writeFile(path.join(dir, item.mod.file), applyMutant(original, item.mutant));
            try {
              const suite = await runSuite(dir, item.mod.tests);
              res = { killed: suite.killed, failing: suite.failing, failingFiles: suite.killed ? await failingFiles(dir, item.mod.tests) : [], ms: suite.ms, ...(suite.note ? { note: suite.note } : {}) };
            } finally {
              await writeFile(path.join(dir, item.mod.file), original);
            }
            cache.screened[keyOf(item)] = res;
            if (++screened % 10 === 0) await saveCache();
          }
          // a mutant that times out or breaks the run without a failing test is dropped with the survivors
          if (res.killed && res.failingFiles.length > 0 && kept.length < sample) kept.push({ ...item, screen: res });
          else survivors.set(item.mod.file, (survivors.get(item.mod.file) ?? 0) + 1);
        }
      },
    );
    await saveCache();
    // the first `sample` killed in the seeded order, whatever order the workers finished in
    const rank = new Map(order.map((o, i) => [keyOf(o), i]));
    kept.sort((a, b) => (rank.get(keyOf(a)) as number) - (rank.get(keyOf(b)) as number));
    const examined = Object.keys(cache.screened).filter((k) => rank.has(k)).length;
    process.stderr.write(`screening: ${examined} mutants screened for seed ${seed} (${screened} now), ${kept.length} killed kept, over ${new Set(kept.map((k) => k.mod.file)).size} modules (${((performance.now() - started) / 1000).toFixed(0)} s so far)\n`);

    // 5. the pipeline on each
    let done = 0;
    const finished: MutantOutcome[] = [];
    const partialPath = path.join(OUT, `mutants-seed${seed}-n${sample}-partial.json`);
    const outcomes = await pool(kept, jobs, async (item) => {
      const o = await repairOne({ ...item, workDir, maxCandidates, coverage: !values['no-coverage'] }).catch((err: unknown): MutantOutcome => ({
        // the bench's own failure on one mutant is recorded, not the end of the run
        module: item.mod.file,
        mutant: { id: item.mutant.id, operator: item.mutant.operator, line: item.mutant.line, original: item.mutant.original, replacement: item.mutant.replacement },
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
      await writeFile(partialPath, JSON.stringify({ when: new Date().toISOString(), seed, sample, partial: true, screened: examined, killed: kept.length, modules: usable.length, outcomes: finished }, null, 2));
      process.stderr.write(
        `[${done}/${kept.length}] ${o.correct ? 'correct ' : o.plausible ? 'OVERFIT ' : 'no fix  '} ${o.module} ${o.mutant.operator} l${o.mutant.line} ${JSON.stringify(o.mutant.original.slice(0, 30))}→${JSON.stringify(o.mutant.replacement.slice(0, 30))} rank ${o.rank ?? '-'} ${(o.wallMs / 1000).toFixed(1)} s ${o.plausible ? '' : o.exitReason}\n`,
      );
      return o;
    });
    const totalMs = performance.now() - started;
    const meta = { seed, screened: examined, killed: kept.length, modules: usable.length, totalMs, jobs };
    process.stdout.write(`${report(outcomes, meta)}\n`);
    const out = values.json ?? path.join(OUT, `mutants-seed${seed}-n${sample}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await writeFile(out, JSON.stringify({ when: new Date().toISOString(), ...meta, sample, maxCandidates, coverage: !values['no-coverage'], outcomes }, null, 2));
    process.stdout.write(`\nraw results: ${out}\n`);
  } finally {
    await rm(workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
