import type { RepositorySettings } from '../../common/settings';
import { parseBuildDiagnostics } from './diagnostics';
import { applyEditToFiles, EditSchema } from '../edits/edits';
import { workspaceGit } from '../workspace/git';
import { syntaxCheckFiles } from './syntax';
import { allPassed, didNotRun, failedResults, runTests, runWorkspaceCommand, selectTargetResults } from '../testing/test-runner';
import { findRenamedTargets, followedTargets, type EditedTestFile } from './renamed-targets';
import { isInstanceOf } from '../../lib/junit/test-id';
import type { CommandResult, Diagnostic, Edit, EventSink, FollowedTargets, GateName, GateVerdict, PolicyGates, TestRun } from '../types';
import { BinaryFileError, WorkspacePathError, type Workspace } from '../workspace/workspace';
import { gateEvent, logEvent } from '../../common/run-events';
import { matcher } from '../workspace/glob';
import { isTestPath } from '../testing/test-files';
import { countTests } from '../../common/test-results';

// EviACT's compile gate and test-driven gate. Every edit a policy makes goes
// through applyEdit: it must be well formed, apply cleanly, parse, and build;
// anything less is rolled back and answered with structured diagnostics, so a
// broken edit never reaches the tests. GREEN runs only the target tests; the
// regression suite and the final rerun belong to the pipeline (a policy can
// never claim them). This file holds the verdicts only: how an edit lands on
// the files is edits.ts, the syntax checkers are syntax.ts, and the reading
// of build and git output into diagnostics is diagnostics.ts.

/** Time spent in the repository's commands; the rest of a run is orchestration overhead. */
export interface CommandMeter {
  commandMs: number;
  builds: number;
  targetRuns: number;
  regressionRuns: number;
  /** commands stopped by a time limit (their own or the run's) */
  timeouts: number;
  /** the time those commands ran before they were stopped */
  timeoutMs: number;
}

export function createMeter(): CommandMeter {
  return { commandMs: 0, builds: 0, targetRuns: 0, regressionRuns: 0, timeouts: 0, timeoutMs: 0 };
}

/** Counts one finished command of the run: its time, and whether a time limit stopped it. */
export function meterCommand(meter: CommandMeter, command: Pick<CommandResult, 'durationMs' | 'timedOut'>): void {
  meter.commandMs += command.durationMs;
  if (!command.timedOut) return;
  meter.timeouts += 1;
  meter.timeoutMs += command.durationMs;
}

export interface GatesInput {
  workspace: Workspace;
  settings: RepositorySettings;
  targets: Array<{ id: string; name?: string; file?: string }>;
  sink: EventSink;
  signal?: AbortSignal;
  meter?: CommandMeter;
  /** the run's deadline (epoch ms): every command gets min(its own limit, the time left) */
  deadline?: number;
  /** the files the change edits (base..head): the base gate says when they are only tests */
  changedFiles?: string[];
}

export interface Gates extends PolicyGates {
  /** the whole suite (after GREEN) */
  regression(): Promise<{ verdict: GateVerdict; run: TestRun }>;
  /** the pipeline's own rerun of the target tests on the final diff */
  final(): Promise<{ verdict: GateVerdict; run: TestRun }>;
  /** the target tests as a named gate; RED and base expect them to fail; a repeat runs with its shuffle (agent/gates/proof.ts) */
  runTargets(gate: GateName, expect: 'pass' | 'fail', repeat?: GateRepeat): Promise<{ verdict: GateVerdict; run: TestRun }>;
  /** narrows the targets (after RED: only the ones that reproduced) */
  setTargets(targets: Array<{ id: string; name?: string; file?: string }>): void;
  /**
   * After an edit that renamed target tests (a reviewer's): the whole suite on
   * the edited workspace, and the targets it no longer lists replaced by the
   * tests the edit put in their place (agent/gates/renamed-targets.ts). The
   * runs on the head without the fix (RED's repeats) keep the head's names.
   */
  followRenamedTargets(): Promise<FollowedTargets>;
  /** tests that fail on the base revision too (RED left them out): their failures in the regression suite are not the fix's */
  setFailingAtBase(ids: string[]): void;
  readonly meter: CommandMeter;
}

function verdictTests(run: TestRun): GateVerdict['tests'] {
  return run.results.slice(0, 200).map((r) => ({ id: r.id, status: r.status, ...(r.message ? { message: r.message.slice(0, 500) } : {}) }));
}

/**
 * The time limit of a target run after RED: a few times what RED took (or
 * what the targets took on the base, when they passed there and faster), at
 * least CANDIDATE_MIN_SECONDS, at most the settings' `testSeconds`. Buggy
 * programs and candidate edits often loop forever; one such candidate must
 * cost seconds, not the whole test limit, and the budget goes to the next.
 */
export const CANDIDATE_MIN_SECONDS = 15;
export function candidateTimeoutSeconds(redMs: number, testSeconds: number): number {
  return Math.min(testSeconds, Math.max(CANDIDATE_MIN_SECONDS, Math.ceil((redMs * 4) / 1000) + 5));
}

/** One repeat of a target gate: its place, its seed, and the arguments that shuffle the runner with it. */
export interface GateRepeat {
  index: number;
  of: number;
  seed?: number;
  extraArgs?: string;
  env?: Record<string, string>;
}

export function createGates(input: GatesInput): Gates {
  const { workspace, settings, sink } = input;
  const meter = input.meter ?? createMeter();
  const ctx = { workspace, settings, signal: input.signal, ...(input.deadline !== undefined ? { deadline: input.deadline } : {}) };
  let targets = input.targets;
  // the same tests as the head names them: differs from `targets` only once an edit renamed some
  let headTargets = input.targets;
  const isTest = matcher(settings.testPathPatterns);
  const testsOnly = (input.changedFiles ?? []).length > 0 && (input.changedFiles ?? []).every((f) => isTestPath(f) || isTest(f));
  let failingAtBase: string[] = [];
  // set by the first RED run that finished in time
  let targetTimeout: number | undefined;

  const emitVerdict = async (verdict: GateVerdict) => {
    await sink.emit(gateEvent(verdict));
    return verdict;
  };

  // the report reader's warnings (repeated ids and what they became), each said once per run
  const warned = new Set<string>();
  async function reportWarnings(run: TestRun): Promise<void> {
    const fresh = (run.warnings ?? []).filter((w) => !warned.has(w));
    if (fresh.length === 0) return;
    for (const w of fresh) warned.add(w);
    await sink.emit(
      logEvent(`test report: ${fresh.slice(0, 5).join('; ')}${fresh.length > 5 ? `; and ${fresh.length - 5} more` : ''}`, { warnings: fresh.slice(0, 50) }),
    );
  }

  async function command(cmd: string, timeoutSeconds: number, network: boolean): Promise<CommandResult> {
    const result = await runWorkspaceCommand({ ...ctx, command: cmd, timeoutSeconds, network });
    meterCommand(meter, result);
    return result;
  }

  async function build(): Promise<CommandResult> {
    if (!settings.build) {
      return { command: '', exitCode: 0, signal: null, timedOut: false, durationMs: 0, output: '', truncatedBytes: 0 };
    }
    meter.builds++;
    return command(settings.build, settings.timeLimits.buildSeconds, settings.network);
  }

  /** Tree of the workspace as it is now (new files included): the rollback point. */
  async function snapshot(): Promise<string> {
    const pristine = await workspace.pristineTree();
    if (pristine) return pristine;
    await workspaceGit(workspace.root, ['add', '--all', '--', '.']);
    return (await workspaceGit(workspace.root, ['write-tree'])).stdout.trim();
  }

  async function rollback(tree: string): Promise<void> {
    await workspaceGit(workspace.root, ['read-tree', '--reset', '-u', tree]);
    await workspaceGit(workspace.root, ['clean', '-fdq']);
  }

  async function applyEdit(rawEdit: Edit): Promise<GateVerdict> {
    const started = performance.now();
    const done = (passed: boolean, diagnostics?: Diagnostic[], detail?: string) =>
      emitVerdict({
        gate: 'compile',
        passed,
        durationMs: Math.round(performance.now() - started),
        ...(detail ? { detail } : {}),
        ...(diagnostics?.length ? { diagnostics } : {}),
      });

    const parsed = EditSchema.safeParse(rawEdit);
    if (!parsed.success) {
      return done(
        false,
        parsed.error.issues.map((i) => ({ kind: 'malformed', message: `${i.path.join('.') || 'edit'}: ${i.message}` })),
      );
    }
    const edit = parsed.data as Edit;
    const tree = await snapshot();
    let files: string[];
    try {
      const applied = await applyEditToFiles(workspace, edit);
      if ('diagnostics' in applied) {
        await rollback(tree);
        return done(false, applied.diagnostics, 'the edit does not apply');
      }
      files = applied.files;
    } catch (err) {
      await rollback(tree);
      if (err instanceof WorkspacePathError || err instanceof BinaryFileError) {
        return done(false, [{ kind: 'path', file: (err as WorkspacePathError).requested ?? (err as BinaryFileError).file, message: err.message }]);
      }
      throw err;
    }
    const syntax = await syntaxCheckFiles(workspace, files, input.signal);
    if (syntax.length) {
      await rollback(tree);
      return done(false, syntax, 'syntax errors');
    }
    const built = await build();
    if (built.exitCode !== 0) {
      await rollback(tree);
      const diagnostics = built.timedOut ? [{ kind: 'build' as const, message: 'the build timed out' }] : parseBuildDiagnostics(built.output);
      return done(false, diagnostics, 'the build failed');
    }
    return done(true, undefined, `applied to ${files.join(', ') || '(deletion)'}`);
  }

  async function runTargets(gate: GateName, expect: 'pass' | 'fail', repeat?: GateRepeat): Promise<{ verdict: GateVerdict; run: TestRun }> {
    meter.targetRuns++;
    const timeoutSeconds = gate === 'red' ? settings.timeLimits.testSeconds : (targetTimeout ?? settings.timeLimits.testSeconds);
    // RED and the base (and RED's repeats in the proof) run without the fix: the tests as the head names them
    const run = await runTests({
      ...ctx,
      kind: 'target',
      targets: gate === 'red' || gate === 'base' ? headTargets : targets,
      timeoutSeconds,
      ...(repeat?.extraArgs ? { extraArgs: repeat.extraArgs } : {}),
      ...(repeat?.env ? { env: repeat.env } : {}),
    });
    meterCommand(meter, run.command);
    if (gate === 'red' && !run.command.timedOut && targetTimeout === undefined) {
      targetTimeout = candidateTimeoutSeconds(run.command.durationMs, settings.timeLimits.testSeconds);
    }
    // The same targets passing on the base say how long the code took before
    // the change: a bug that made them slow (a loop, a wait) makes RED slow too,
    // and a candidate that is still that slow is not the fix.
    if (gate === 'base' && !run.command.timedOut && allPassed(run) && !run.results.some(didNotRun)) {
      const healthy = candidateTimeoutSeconds(run.command.durationMs, settings.timeLimits.testSeconds);
      targetTimeout = Math.min(targetTimeout ?? healthy, healthy);
    }
    await reportWarnings(run);
    const passedAll = allPassed(run);
    // RED passes when a target really fails; a target that is missing from the
    // report (the command crashed, the id is wrong) is not a reproduction
    const reproduced = failedResults(run).some((r) => !didNotRun(r));
    // a stream cut short (a crash, a Bail out!) or a command that failed unexplained passes nothing: what it never reached is unknown
    const cutShort = expect === 'pass' && passedAll && run.incomplete ? `the report does not account for every test (${run.incomplete})` : undefined;
    const passed = expect === 'pass' ? passedAll && !cutShort : reproduced;
    const failing = failedResults(run).length;
    const notRun = run.results.filter(didNotRun).length;
    const counted = `${run.results.length - failing} passed, ${failing} failing of ${run.results.length} target tests`;
    // a target the report does not list did not fail: at the base it is usually a test the change adds
    const absent =
      notRun > 0 && notRun === run.results.length ? `the target tests are not in the report (${notRun} of ${run.results.length} did not run)` : undefined;
    const verdict: GateVerdict = {
      gate,
      passed,
      durationMs: run.command.durationMs,
      detail: `${repeat ? `repeat ${repeat.index} of ${repeat.of}${repeat.seed !== undefined ? `, seed ${repeat.seed}` : ''}: ` : ''}${run.reportError ?? absent ?? (cutShort ? `${cutShort}; ${counted}` : counted)}`,
      tests: verdictTests(run),
      counts: countTests(run.results),
      ...(notRun ? { notRun } : {}),
      ...(gate === 'base' && testsOnly ? { changeEditsOnlyTests: true } : {}),
      ...(repeat ? { repeat: { index: repeat.index, of: repeat.of, ...(repeat.seed !== undefined ? { seed: repeat.seed } : {}) } } : {}),
    };
    await emitVerdict(verdict);
    return { verdict, run };
  }

  async function regression(): Promise<{ verdict: GateVerdict; run: TestRun }> {
    meter.regressionRuns++;
    const run = await runTests({ ...ctx, kind: 'regression', targets: [] });
    meterCommand(meter, run.command);
    await reportWarnings(run);
    const failedAll = failedResults(run);
    const failing = failedAll.filter((r) => !failingAtBase.some((id) => isInstanceOf(r, id)));
    const excused = failedAll.length - failing.length;
    // the tests a cut-short report never reached did not pass: unknown is refused
    const passed = !run.reportError && !run.incomplete && failing.length === 0 && run.results.length > 0;
    const counted = `${run.results.length - failedAll.length} of ${run.results.length} tests pass${excused ? `; not counted: ${excused} failing on the base revision too` : ''}`;
    const verdict: GateVerdict = {
      gate: 'regression',
      passed,
      durationMs: run.command.durationMs,
      detail: run.reportError ?? (run.incomplete ? `the report does not account for every test (${run.incomplete}); ${counted}` : counted),
      tests: verdictTests({ ...run, results: failing }),
      counts: countTests(run.results),
    };
    await emitVerdict(verdict);
    return { verdict, run };
  }

  async function followRenamedTargets(): Promise<FollowedTargets> {
    meter.regressionRuns++;
    const suite = await runTests({ ...ctx, kind: 'regression', targets: [] });
    meterCommand(meter, suite.command);
    await reportWarnings(suite);
    if (suite.reportError) {
      return {
        renamed: [],
        unaccounted: targets.map((t) => ({ id: t.id, why: `the suite wrote no readable report with the edit: ${suite.reportError}` })),
        targets,
      };
    }
    const absent = selectTargetResults(suite.results, targets).filter(didNotRun);
    if (absent.length === 0) return { renamed: [], unaccounted: [], targets };
    const changed = (await workspace.changedFiles()).filter((f) => isTestPath(f) || isTest(f));
    const files: EditedTestFile[] = [];
    for (const rel of changed) {
      const atHead = await workspaceGit(workspace.root, ['show', `${workspace.headRev}:${rel}`], { okCodes: [128] }).then((r) =>
        r.exitCode === 0 ? r.stdout : null,
      );
      const edited = await workspace.readFile(rel).catch(() => null);
      files.push({ path: rel, atHead, edited });
    }
    const wanted = absent.map((r) => targets.find((t) => t.id === r.id) ?? { id: r.id });
    const found = findRenamedTargets({ absent: wanted, files, results: suite.results.filter((r) => !didNotRun(r)) });
    if (found.renamed.length > 0) {
      targets = followedTargets(targets, found);
      await sink.emit(
        logEvent(
          `the edit renamed ${found.renamed.length} target test(s): ${found.renamed.map((r) => `${r.from} → ${r.to.map((t) => t.id).join(', ')} (${r.file})`).join('; ')}`,
          {
            renamed: found.renamed.slice(0, 50),
          },
        ),
      );
    }
    return { ...found, targets };
  }

  return {
    meter,
    followRenamedTargets,
    applyEdit,
    green: () => runTargets('green', 'pass'),
    final: () => runTargets('final', 'pass'),
    runTargets,
    setTargets: (next) => {
      targets = next;
      headTargets = next;
    },
    setFailingAtBase: (ids) => {
      failingAtBase = ids;
    },
    regression,
    reset: () => workspace.reset(),
    diff: () => workspace.diff(),
    build,
  };
}
