import { FilterPolicySchema, ModelSettingsSchema, type FilterPolicy, type ModelSettings, type RepositorySettings } from '../../common/settings';
import { createMeter, type CommandMeter, type Gates } from '../gates/gates';
import type { RepairEvidence, RepairResult, RunRepairInput } from './contract';
import type { AgentEvent, ChangeContext, EventSink, Evidence, ExitReason, Phase, Policy, Suspect, TestRun, Usage } from '../types';
import type { TestFiles } from '../testing/test-files';
import type { Workspace } from '../workspace/workspace';
import type { DeadParameter } from '../filters/dead-parameters';
import { addCost, logEvent, phaseFinished, phaseStarted } from '../../common/run-events';

// One run's state, shared by the phases. The run-wide part is fixed when the
// run starts; the result part grows as the phases go (and is what the result
// is built from, however the run ends); each phase adds what the next one
// needs and says so in its type: setup gives a SetupState, RED a RedState,
// localise a LocalisedState. It is one object throughout, so the result is
// complete whichever phase ended the run.

/** Ends the run with a named exit reason (not a failure of flowfix itself). */
export class RunExit extends Error {
  constructor(
    readonly exitReason: ExitReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export interface RunState {
  readonly input: RunRepairInput;
  /** performance.now() when the run started */
  readonly started: number;
  /**
   * the run's deadline (epoch ms: modelSettings.timeLimitMinutes from the
   * start). Every repository command gets min(its own time limit, the time
   * left), no command starts after it, and the run ends `time_limit` at the
   * next step once it has passed.
   */
  readonly deadline: number;
  readonly source: string;
  /** the caller's settings until setup completes them from the repository (agent/testing/detect.ts) */
  settings: RepositorySettings;
  readonly filterPolicy: FilterPolicy;
  readonly modelSettings: ModelSettings;
  readonly policies: Policy[];
  readonly signal: AbortSignal;
  readonly meter: CommandMeter;
  /** every event the run emitted, in order: for the summary, the verdict list and the model-time account */
  readonly trajectory: AgentEvent[];
  /** the caller's sink, keeping the trajectory */
  readonly sink: EventSink;
  readonly phaseTimings: Partial<Record<Phase, number>>;
  /**
   * ends the open phase (reporting its duration) and starts the next; refuses
   * to start one once cancelled or (all but the summary of a proven fix) past the deadline
   */
  enterPhase(phase: Phase): Promise<void>;
  /** ends the open phase, if any */
  endPhase(): Promise<void>;
  /** a log event in the current phase */
  log(text: string, extra?: Record<string, unknown>): Promise<void>;
  /** throws RunExit('cancelled') once the run's signal has fired, RunExit('time_limit') once the deadline has passed */
  throwIfCancelled(): void;

  // ── the result, as it grows ──
  readonly evidence: RepairEvidence;
  /** the run folder, from the moment it exists (disposed by the pipeline however the run ends) */
  workspace?: Workspace;
  changeDiff: string;
  suspects: Suspect[];
  usage: Usage;
  /** the last policy that ran */
  policy?: Policy['name'];
  diff: string;
  files: string[];
  summaryHtml: string;
  summarySource?: RepairResult['summarySource'];
  dropped?: RepairResult['dropped'];
  /** what the verified fix stops reading (filters/fix-parameters.ts), for the post filters */
  deadParameters?: DeadParameter[];
  /** options the fix's functions read that no test names, for the summary */
  untestedOptions?: string[];

  // ── carried across patch/verify attempts ──
  /** fixes the regression suite refused (diff → why): GREEN refuses them from then on */
  readonly rejected: Map<string, string>;
  /** the last fix GREEN refused for leaving a parameter or option unread: the run's named end when no other fix comes */
  deadRefused?: { diff: string; findings: DeadParameter[] };
  /** each policy's deadline, set when it first runs and kept for its later turns */
  readonly deadlines: Map<Policy, number>;
}

/** After setup: the workspace at the head, the change, the gates. */
export interface SetupState extends RunState {
  workspace: Workspace;
  baseCommit: string;
  change: ChangeContext;
  gates: Gates;
}

/** After RED: the target tests that reproduced, and their run. */
export interface RedState extends SetupState {
  /** the RED run narrowed to the targets that really failed */
  redRun: TestRun;
}

/** After localise: the failure's evidence (the suspects are in the result part). */
export interface LocalisedState extends RedState {
  failure: Evidence;
  /** the repository's tests and test helpers (agent/testing/test-files.ts) */
  testFiles: TestFiles;
  /** the change contradicts the failing expectation: a stale expectation may be updated (never any other test edit) */
  testEditsAllowed: boolean;
}

const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };

export function addUsage(a: Usage, b: Partial<Usage> | undefined): Usage {
  return {
    promptTokens: a.promptTokens + (b?.promptTokens ?? 0),
    completionTokens: a.completionTokens + (b?.completionTokens ?? 0),
    costUsd: addCost(a.costUsd, b?.costUsd === undefined ? 0 : b.costUsd),
    toolCalls: a.toolCalls + (b?.toolCalls ?? 0),
  };
}

/** The state a run starts from. Throws when the input names no repository. */
export function createRunState(input: RunRepairInput): RunState {
  const started = performance.now();
  const source = input.repoPath ?? input.gitUrl;
  if (!source) throw new Error('runRepair needs repoPath or gitUrl');
  const signal = input.signal ?? new AbortController().signal;
  const modelSettings = input.modelSettings ?? ModelSettingsSchema.parse({});
  const deadline = Date.now() + modelSettings.timeLimitMinutes * 60_000;

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
  const throwIfAborted = () => {
    if (signal.aborted) throw new RunExit('cancelled', 'the run was cancelled');
  };
  const throwIfCancelled = () => {
    throwIfAborted();
    if (Date.now() >= deadline) {
      throw new RunExit('time_limit', `the run reached its time limit (timeLimitMinutes ${modelSettings.timeLimitMinutes})`);
    }
  };
  const endPhase = async () => {
    if (!phaseOpen) return;
    phaseOpen = false;
    const ms = Math.round(performance.now() - phaseStart);
    phaseTimings[currentPhase] = (phaseTimings[currentPhase] ?? 0) + ms;
    await sink.emit(phaseFinished(currentPhase, ms));
  };
  const enterPhase = async (phase: Phase) => {
    await endPhase();
    // a fix proven in time is summarised, whatever the clock says by then
    if (phase === 'summary') throwIfAborted();
    else throwIfCancelled();
    currentPhase = phase;
    phaseStart = performance.now();
    phaseOpen = true;
    await sink.emit(phaseStarted(phase));
  };
  const log = (text: string, extra: Record<string, unknown> = {}) => sink.emit(logEvent(text, extra, currentPhase));

  return {
    input,
    started,
    deadline,
    source,
    settings: input.settings,
    filterPolicy: input.filterPolicy ?? FilterPolicySchema.parse({}),
    modelSettings,
    policies: Array.isArray(input.policy) ? input.policy : [input.policy],
    signal,
    meter: createMeter(),
    trajectory,
    sink,
    phaseTimings,
    enterPhase,
    endPhase,
    log,
    throwIfCancelled,
    evidence: { targets: [], notCausedByChange: false, verdicts: [] },
    changeDiff: '',
    suspects: [],
    usage: ZERO_USAGE,
    diff: '',
    files: [],
    summaryHtml: '',
    rejected: new Map(),
    deadlines: new Map(),
  };
}
