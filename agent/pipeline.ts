import { FilterPolicySchema, ModelSettingsSchema, type FilterPolicy, type ModelSettings, type RepositorySettings } from '../lib/repositories/settings';
import { editedSpans as spansOfDiff } from './diff';
import { extractEvidence } from './evidence';
import { runPostFilters, type PostFilterFinding } from './filters/post';
import { createGates, createMeter, type Gates } from './gates';
import { git } from './git';
import { failedResults, didNotRun, runTests, runWorkspaceCommand } from './test-runner';
import type {
  AgentEvent,
  ChangeContext,
  EventSink,
  Evidence,
  ExitReason,
  GateVerdict,
  Phase,
  Policy,
  PolicyGates,
  PolicyOutcome,
  Suspect,
  TestRun,
  Usage,
} from './types';
import { Workspace } from './workspace';

// EviACT's Setup → Localise → Patch → Verify with FlowAgent's summary and
// post-execution filters. The pipeline owns every verdict that decides the
// outcome: RED before anything, GREEN before the regression suite, and a
// final rerun of the target tests on a clean checkout with only the fix's
// diff applied. Policies propose; the pipeline disposes.

export type RepairStatus = 'fixed' | 'no_fix' | 'failed' | 'cancelled';

export type LocaliseFn = (input: {
  root: string;
  evidence: Evidence;
  editedSpans: ChangeContext['editedSpans'];
  k: number;
  signal?: AbortSignal;
}) => Promise<Suspect[]>;

export type SummariseFn = (input: {
  evidence: Evidence;
  diff: string;
  trajectory: AgentEvent[];
  suspects: Suspect[];
  change: Pick<ChangeContext, 'title' | 'description'>;
  signal?: AbortSignal;
}) => Promise<{ html: string; source: 'model' | 'evidence'; usage?: { promptTokens: number; completionTokens: number; costUsd: number } }>;

export interface RunRepairInput {
  /** a local repository (cloned with --shared) … */
  repoPath?: string;
  /** … or a URL git can clone */
  gitUrl?: string;
  baseRev: string;
  headRev: string;
  /** failing test ids (from CI) or names; absent → the failing tests of a full run on the head */
  targetTests?: string[];
  /** the effective repository settings (lib/repositories/settings.ts resolveEffectiveSettings) */
  settings: RepositorySettings;
  filterPolicy?: FilterPolicy;
  modelSettings?: ModelSettings;
  /** one policy, or tiers tried in order until one patches (offline first, then the LLM) */
  policy: Policy | Policy[];
  sink: EventSink;
  signal?: AbortSignal;
  change?: Partial<Pick<ChangeContext, 'title' | 'description' | 'author'>>;
  /** asked just before the result: has the change moved on (newer revision, merged)? */
  checkStale?: () => Promise<{ stale: boolean; detail?: string }>;
  /** default: the retrieval scaffold (agent/scaffold) */
  localise?: LocaliseFn;
  /** default: agent/summary.ts written from the evidence (pass one bound to a model client for a model summary) */
  summarise?: SummariseFn;
  /** run the target tests on the base revision too (default true) */
  checkBase?: boolean;
  /** run the full suite after GREEN (default true) */
  runRegression?: boolean;
  /** fixes tried against the regression suite before the run gives up (default 3) */
  maxVerifyAttempts?: number;
  /** keep the run folder (debugging); default false */
  keepWorkspace?: boolean;
  /** where run folders are created (default: the OS temp folder) */
  workDir?: string;
}

export interface RepairEvidence {
  targets: string[];
  red?: GateVerdict;
  base?: GateVerdict;
  /** the target tests also fail on the base revision */
  notCausedByChange: boolean;
  green?: GateVerdict;
  regression?: GateVerdict;
  final?: GateVerdict;
  failure?: Evidence;
  /** every gate verdict of the run, in order (the policy's compile/GREEN attempts included) */
  verdicts: GateVerdict[];
}

export interface RepairTimings {
  wallMs: number;
  /** time inside the repository's commands (install, build, tests) */
  commandMs: number;
  /** time inside model calls, as reported by usage events */
  modelMs: number;
  /** everything else: flowfix's own orchestration */
  overheadMs: number;
  builds: number;
  targetRuns: number;
  regressionRuns: number;
}

export interface RepairResult {
  status: RepairStatus;
  exitReason: ExitReason;
  exitDetail?: string;
  /** the fix's diff against the head revision ('' when there is none) */
  diff: string;
  files: string[];
  summaryHtml: string;
  summarySource?: 'model' | 'evidence';
  evidence: RepairEvidence;
  suspects: Suspect[];
  phaseTimings: Partial<Record<Phase, number>>;
  timings: RepairTimings;
  usage: Usage;
  policy?: Policy['name'];
  dropped?: { reason: string; detail: string; findings: PostFilterFinding[] };
  /** the change's diff base..head */
  changeDiff: string;
}

const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };

function addUsage(a: Usage, b: Partial<Usage> | undefined): Usage {
  return {
    promptTokens: a.promptTokens + (b?.promptTokens ?? 0),
    completionTokens: a.completionTokens + (b?.completionTokens ?? 0),
    costUsd: a.costUsd + (b?.costUsd ?? 0),
    toolCalls: a.toolCalls + (b?.toolCalls ?? 0),
  };
}

function statusOf(exitReason: ExitReason): RepairStatus {
  if (exitReason === 'fixed') return 'fixed';
  if (exitReason === 'cancelled') return 'cancelled';
  if (exitReason === 'setup_failed') return 'failed';
  return 'no_fix';
}

/** Ranks stack-frame files when the scaffold cannot run: a window around each frame outside the tests. */
export function fallbackSuspects(evidence: Evidence, k: number): Suspect[] {
  const isTest = /(^|\/)(tests?|__tests__|spec)\/|[._]test\.|\.spec\.|(^|\/)test_[^/]*\.py$/;
  const frames = [...evidence.frames.filter((f) => !isTest.test(f.file)), ...evidence.frames.filter((f) => isTest.test(f.file))];
  return frames.slice(0, k).map((f, i) => ({
    file: f.file,
    symbol: f.fn ?? `${f.file}:${f.line}`,
    kind: 'window' as const,
    startLine: Math.max(1, f.line - 10),
    endLine: f.line + 10,
    score: 1 / (i + 1),
    reasons: [`stack frame ${f.file}:${f.line}`],
  }));
}

async function defaultLocalise(input: Parameters<LocaliseFn>[0]): Promise<Suspect[]> {
  const { localise } = await import('./scaffold/index');
  return localise(input);
}

async function defaultSummarise(input: Parameters<SummariseFn>[0]): ReturnType<SummariseFn> {
  const { summarise } = await import('./summary');
  return summarise({ evidence: input.evidence, diff: input.diff, trajectory: input.trajectory, suspects: input.suspects, change: input.change });
}

class Abort extends Error {
  constructor(
    readonly exitReason: ExitReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Runs one repair attempt from checkout to verdict. Throws only on flowfix's own failures. */
export async function runRepair(input: RunRepairInput): Promise<RepairResult> {
  const started = performance.now();
  const source = input.repoPath ?? input.gitUrl;
  if (!source) throw new Error('runRepair needs repoPath or gitUrl');
  const settings = input.settings;
  const filterPolicy = input.filterPolicy ?? FilterPolicySchema.parse({});
  const modelSettings = input.modelSettings ?? ModelSettingsSchema.parse({});
  const policies = Array.isArray(input.policy) ? input.policy : [input.policy];
  const signal = input.signal ?? new AbortController().signal;
  const meter = createMeter();

  // Everything that reaches the sink is also kept for the summary, the
  // verdict list and the model-time account.
  const trajectory: AgentEvent[] = [];
  const sink: EventSink = {
    async emit(event) {
      trajectory.push(event);
      await input.sink.emit(event);
    },
  };

  const phaseTimings: Partial<Record<Phase, number>> = {};
  let currentPhase: Phase = 'setup';
  let phaseStart = performance.now();
  let phaseOpen = false;
  const endPhase = async () => {
    if (!phaseOpen) return;
    phaseOpen = false;
    const ms = Math.round(performance.now() - phaseStart);
    phaseTimings[currentPhase] = (phaseTimings[currentPhase] ?? 0) + ms;
    await sink.emit({ type: 'phase', phase: currentPhase, payload: { phase: currentPhase, status: 'finished', durationMs: ms } });
  };
  const enterPhase = async (phase: Phase) => {
    await endPhase();
    if (signal.aborted) throw new Abort('cancelled', 'the run was cancelled');
    currentPhase = phase;
    phaseStart = performance.now();
    phaseOpen = true;
    await sink.emit({ type: 'phase', phase, payload: { phase, status: 'started' } });
  };
  const log = (text: string, extra: Record<string, unknown> = {}) => sink.emit({ type: 'log', phase: currentPhase, payload: { text, ...extra } });

  const evidence: RepairEvidence = { targets: [], notCausedByChange: false, verdicts: [] };
  let suspects: Suspect[] = [];
  let usage = ZERO_USAGE;
  let diff = '';
  let files: string[] = [];
  let changeDiff = '';
  let summaryHtml = '';
  let summarySource: RepairResult['summarySource'];
  let usedPolicy: Policy['name'] | undefined;
  let dropped: RepairResult['dropped'];
  let workspace: Workspace | undefined;

  const finish = async (exitReason: ExitReason, exitDetail?: string): Promise<RepairResult> => {
    await endPhase();
    evidence.verdicts = trajectory.filter((e) => e.type === 'gate').map((e) => e.payload as unknown as GateVerdict);
    const wallMs = Math.round(performance.now() - started);
    const modelMs = trajectory
      .filter((e) => e.type === 'usage' && typeof e.payload.durationMs === 'number')
      .reduce((n, e) => n + (e.payload.durationMs as number), 0);
    const timings: RepairTimings = {
      wallMs,
      commandMs: meter.commandMs,
      modelMs,
      overheadMs: Math.max(0, wallMs - meter.commandMs - modelMs),
      builds: meter.builds,
      targetRuns: meter.targetRuns,
      regressionRuns: meter.regressionRuns,
    };
    const result: RepairResult = {
      status: statusOf(exitReason),
      exitReason,
      ...(exitDetail ? { exitDetail } : {}),
      diff,
      files,
      summaryHtml,
      ...(summarySource ? { summarySource } : {}),
      evidence,
      suspects,
      phaseTimings,
      timings,
      usage,
      ...(usedPolicy ? { policy: usedPolicy } : {}),
      ...(dropped ? { dropped } : {}),
      changeDiff,
    };
    await sink.emit({
      type: 'final',
      payload: {
        status: result.status,
        exitReason,
        ...(exitDetail ? { detail: exitDetail } : {}),
        files,
        phaseTimings,
        timings: { ...timings },
        usage: { ...usage },
      },
    });
    return result;
  };

  try {
    // ───── Setup ─────
    await enterPhase('setup');
    try {
      workspace = await Workspace.create({
        source,
        headRev: input.headRev,
        parentDir: input.workDir,
        excludes: [settings.junitReport],
      });
    } catch (err) {
      throw new Abort('setup_failed', `could not check out ${input.headRev}: ${(err as Error).message}`);
    }
    const ws = workspace;
    const baseCommit = await git(ws.root, ['rev-parse', '--verify', '--end-of-options', `${input.baseRev}^{commit}`]).then(
      (r) => r.stdout.trim(),
      (err: Error) => {
        throw new Abort('setup_failed', `unknown base revision ${input.baseRev}: ${err.message}`);
      },
    );
    changeDiff = (await git(ws.root, ['diff', '--no-color', '--no-ext-diff', baseCommit, ws.headRev])).stdout;
    const change: ChangeContext = {
      title: input.change?.title ?? '',
      description: input.change?.description ?? '',
      author: input.change?.author ?? '',
      diff: changeDiff,
      editedSpans: spansOfDiff(changeDiff),
      language: settings.language,
    };
    await log(
      `workspace${input.keepWorkspace ? ` ${ws.root}` : ''} at ${ws.headRev.slice(0, 12)} (base ${baseCommit.slice(0, 12)}); the change edits ${change.editedSpans.length} span(s)`,
      { headRev: ws.headRev, baseRev: baseCommit },
    );

    if (settings.install) {
      const installed = await runWorkspaceCommand({
        workspace: ws,
        settings,
        signal,
        command: settings.install,
        timeoutSeconds: settings.timeLimits.installSeconds,
        network: settings.installNetwork,
        install: true,
      });
      meter.commandMs += installed.durationMs;
      await log('install', { exitCode: installed.exitCode, durationMs: installed.durationMs });
      if (signal.aborted) throw new Abort('cancelled', 'the run was cancelled');
      if (installed.limit) throw new Abort('setup_failed', `install stopped by the sandbox (${installed.limit}): ${installed.output.slice(-800)}`);
      if (installed.exitCode !== 0) throw new Abort('setup_failed', `install failed (exit ${installed.exitCode}): ${installed.output.slice(-800)}`);
    }

    const initialTargets = (input.targetTests ?? []).map((id) => ({ id }));
    const gates: Gates = createGates({ workspace: ws, settings, targets: initialTargets, sink, signal, meter });
    if (settings.build) {
      const built = await gates.build();
      await log(built.exitCode === 0 ? 'the head revision builds' : 'the head revision does not build; an accepted edit must fix that too', {
        exitCode: built.exitCode,
        durationMs: built.durationMs,
      });
      if (signal.aborted) throw new Abort('cancelled', 'the run was cancelled');
    }

    // ───── RED ─────
    await enterPhase('red');
    if (initialTargets.length === 0) {
      // no targets named: the failing tests of a full run are the targets
      const full = await runTests({ workspace: ws, settings, signal, kind: 'regression', targets: [] });
      meter.commandMs += full.command.durationMs;
      meter.regressionRuns++;
      if (full.reportError) throw new Abort('setup_failed', `the test command wrote no readable report: ${full.reportError}`);
      const failing = failedResults(full);
      await log(`no targets given: ${failing.length} failing test(s) in a full run`, { tests: failing.map((r) => r.id).slice(0, 50) });
      if (failing.length === 0) throw new Abort('not_reproduced', 'every test passes on the head revision');
      gates.setTargets(failing.map((r) => ({ id: r.id, name: r.name, ...(r.file ? { file: r.file } : {}) })));
    }
    const red = await gates.runTargets('red', 'fail');
    evidence.red = red.verdict;
    // a test run the sandbox stopped reproduces nothing
    if (red.run.command.limit) throw new Abort('setup_failed', `the test command was stopped by the sandbox (${red.run.command.limit}): ${red.run.command.output.slice(-800)}`);
    if (!red.verdict.passed) {
      if (red.run.reportError && red.run.results.every(didNotRun)) {
        throw new Abort('setup_failed', `the test command wrote no readable report: ${red.run.reportError}`);
      }
      throw new Abort('not_reproduced', 'the target tests pass on the head revision: the failure did not reproduce (flaky?)');
    }
    // Only the targets that really failed are repaired; ids are normalised to the report's.
    const reproduced = failedResults(red.run).filter((r) => !didNotRun(r));
    const targets = reproduced.map((r) => ({ id: r.id, name: r.name, ...(r.file ? { file: r.file } : {}) }));
    gates.setTargets(targets);
    evidence.targets = targets.map((t) => t.id);
    const redRun: TestRun = { ...red.run, results: reproduced };

    if (input.checkBase !== false) {
      await ws.checkoutRevision(baseCommit);
      try {
        const base = await gates.runTargets('base', 'fail');
        evidence.base = base.verdict;
        evidence.notCausedByChange = base.verdict.passed;
      } finally {
        await ws.checkoutRevision(ws.headRev);
      }
      if (evidence.notCausedByChange) {
        await log('the target tests fail on the base revision too: the failure was not caused by the change');
        if (filterPolicy.pre.notCausedByChange) {
          throw new Abort('not_caused_by_change', 'the target tests fail on the base revision too');
        }
      }
    }

    // ───── Localise ─────
    await enterPhase('localise');
    const tracked = (await git(ws.root, ['ls-files', '-z'])).stdout.split('\0').filter(Boolean);
    const failure = extractEvidence({ run: redRun, root: ws.root, files: tracked, targets: evidence.targets });
    evidence.failure = failure;
    await sink.emit({
      type: 'evidence',
      phase: 'localise',
      payload: {
        summary: `${failure.failingTests.length} failing test(s), ${failure.frames.length} frame(s), ${failure.expectedActual.length} expected/actual pair(s)`,
        failingTests: failure.failingTests,
        expectedActual: failure.expectedActual,
        frames: failure.frames.slice(0, 20),
        symbols: failure.symbols,
      },
    });
    const k = modelSettings.suspects;
    try {
      suspects = await (input.localise ?? defaultLocalise)({ root: ws.root, evidence: failure, editedSpans: change.editedSpans, k, signal });
    } catch (err) {
      await log(`the retrieval scaffold failed (${(err as Error).message}); ranking stack frames instead`);
      suspects = fallbackSuspects(failure, k);
    }
    await sink.emit({ type: 'suspects', phase: 'localise', payload: { suspects } });

    // ───── Patch and Verify ─────
    // A candidate that turns GREEN but breaks the regression suite is
    // remembered and refused by GREEN from then on, and the policy gets
    // another turn: it moves on to its next candidate instead of re-proposing
    // the same diff. Bounded by maxVerifyAttempts. The diff is taken only when
    // GREEN passes: most candidates fail GREEN, and a diff costs two git
    // processes per candidate.
    const rejected = new Map<string, string>();
    const policyGates: PolicyGates = {
      ...gates,
      green: async () => {
        const green = await gates.green();
        if (rejected.size === 0 || !green.verdict.passed) return green;
        const reason = rejected.get(await gates.diff());
        if (reason === undefined) return green;
        const verdict: GateVerdict = { ...green.verdict, passed: false, detail: `this exact fix was rejected earlier: ${reason}` };
        await sink.emit({ type: 'gate', phase: 'patch', payload: { ...verdict } });
        return { verdict, run: green.run };
      },
    };
    const deadlineFor = (policy: Policy) => {
      const minutes =
        policy.name === 'offline' ? Math.min(modelSettings.offline.timeLimitMinutes, modelSettings.timeLimitMinutes) : modelSettings.timeLimitMinutes;
      return Date.now() + minutes * 60_000;
    };
    const deadlines = new Map<Policy, number>();
    const maxAttempts = Math.max(1, input.maxVerifyAttempts ?? 3);
    for (let attempt = 1; ; attempt++) {
      await enterPhase('patch');
      let outcome: PolicyOutcome | undefined;
      for (const [i, policy] of policies.entries()) {
        if (signal.aborted) throw new Abort('cancelled', 'the run was cancelled');
        await gates.reset();
        usedPolicy = policy.name;
        if (!deadlines.has(policy)) deadlines.set(policy, deadlineFor(policy));
        await log(`policy ${policy.name}`, { policy: policy.name, tier: i + 1, of: policies.length, attempt });
        outcome = await policy.run({
          change,
          evidence: failure,
          suspects,
          targetTests: evidence.targets,
          redRun,
          gates: policyGates,
          workspace: ws,
          sink: { emit: (e) => sink.emit({ phase: 'patch', ...e }) },
          signal,
          limits: {
            maxToolCalls: modelSettings.maxToolCalls,
            deadline: deadlines.get(policy)!,
            maxTokens: modelSettings.maxTokens,
            maxCostUsd: modelSettings.maxCostUsd,
          },
        });
        usage = addUsage(usage, outcome.usage);
        if (outcome.status === 'patched') break;
        await log(`policy ${policy.name} gave up: ${outcome.exitReason}: ${outcome.detail}`);
      }
      if (!outcome || outcome.status === 'gave_up') {
        await gates.reset();
        if (signal.aborted) throw new Abort('cancelled', 'the run was cancelled');
        if (rejected.size > 0 && outcome?.status === 'gave_up' && outcome.exitReason === 'no_candidate') {
          throw new Abort('regression_failed', [...rejected.values()].at(-1) ?? 'the fix breaks other tests');
        }
        throw new Abort(outcome?.status === 'gave_up' ? outcome.exitReason : 'no_candidate', outcome?.status === 'gave_up' ? outcome.detail : 'no policy ran');
      }

      await enterPhase('verify');
      diff = await gates.diff();
      files = await ws.changedFiles();
      const green = await gates.green();
      evidence.green = green.verdict;
      if (!green.verdict.passed) {
        throw new Abort('final_rerun_failed', 'the policy reported a fix but the target tests do not pass');
      }
      if (input.runRegression === false) break;
      const regression = await gates.regression();
      evidence.regression = regression.verdict;
      if (regression.verdict.passed) break;
      const broken = failedResults(regression.run).map((r) => r.id).slice(0, 10);
      const why = regression.run.reportError ?? `the fix breaks ${broken.join(', ')}`;
      if (attempt >= maxAttempts) throw new Abort('regression_failed', why);
      rejected.set(diff, why);
      await log(`candidate rejected by the regression suite (${why}); asking the policy for another`, { attempt });
    }
    // The final rerun starts from a clean checkout of the head with only the
    // fix's diff applied: no leftover state from the policy's attempts counts.
    await ws.reset();
    if (diff) await ws.applyPatch(diff, ['--whitespace=nowarn', '--binary']);
    const final = await gates.final();
    evidence.final = final.verdict;
    if (!final.verdict.passed) throw new Abort('final_rerun_failed', 'the target tests fail on a clean rerun with the fix applied');

    // ───── Summary and post-execution filters ─────
    await enterPhase('summary');
    try {
      const summary = await (input.summarise ?? defaultSummarise)({
        evidence: failure,
        diff,
        trajectory,
        suspects,
        change: { title: change.title, description: change.description },
        signal,
      });
      summaryHtml = summary.html;
      summarySource = summary.source;
      if (summary.usage) usage = addUsage(usage, summary.usage);
    } catch (err) {
      await log(`summary failed: ${(err as Error).message}`);
    }
    const stale = input.checkStale ? await input.checkStale() : { stale: false };
    const decision = runPostFilters({
      fixDiff: diff,
      changeDiff,
      policy: filterPolicy,
      testPathPatterns: settings.testPathPatterns,
      stale: stale.stale,
      ...(stale.detail ? { staleDetail: stale.detail } : {}),
    });
    if (decision.drop) {
      dropped = { reason: decision.reason, detail: decision.detail, findings: decision.findings };
      await log(`fix dropped: ${decision.reason}: ${decision.detail}`, { findings: decision.findings });
      return await finish(`dropped:${decision.reason}`, decision.detail);
    }
    return await finish('fixed');
  } catch (err) {
    if (err instanceof Abort) return await finish(err.exitReason, err.detail);
    if (signal.aborted) return await finish('cancelled', 'the run was cancelled');
    throw err;
  } finally {
    if (workspace && !input.keepWorkspace) await workspace.dispose();
  }
}
