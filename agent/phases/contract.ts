// What a repair run takes and gives: the input of runRepair (agent/pipeline.ts),
// its result and evidence, and the pluggable localise and summarise steps.
// Types only, so the phases and the pipeline that runs them both read them
// from here.
import type { HostCloneAccess } from '../../lib/hosts/clone-access';
import type { FilterPolicy, ModelSettings, RepositorySettings } from '../../common/settings';
import type { Proof } from '../../common/run-events';
import type { Spectrum } from '../coverage/spectrum';
import type { PostFilterFinding } from '../filters/post';
import type { AgentEvent, ChangeContext, EventSink, Evidence, ExitReason, GateVerdict, Phase, Policy, Suspect, Usage } from '../types';

export type RepairStatus = 'fixed' | 'no_fix' | 'failed' | 'cancelled';

export type LocaliseFn = (input: {
  root: string;
  evidence: Evidence;
  editedSpans: ChangeContext['editedSpans'];
  k: number;
  signal?: AbortSignal;
  /** the repository's tests and test helpers: never suspects */
  isTestFile?: (rel: string) => boolean;
  /** keep the failing tests' own cases: the change contradicts their expectation */
  keepFailingTests?: boolean;
  /** per-test coverage of the failing and passing tests (agent/coverage), when it was collected */
  coverage?: Spectrum;
}) => Promise<Suspect[]>;

export type SummariseFn = (input: {
  evidence: Evidence;
  diff: string;
  trajectory: AgentEvent[];
  suspects: Suspect[];
  change: Pick<ChangeContext, 'title' | 'description'>;
  signal?: AbortSignal;
}) => Promise<{ html: string; source: 'model' | 'evidence'; usage?: { promptTokens: number; completionTokens: number; costUsd: number | null } }>;

export interface RunRepairInput {
  /** a local repository (cloned with --shared) … */
  repoPath?: string;
  /** … or a URL git can clone */
  gitUrl?: string;
  /** a repository on a code host: the credentials its clone takes and the ref of a fork's head (lib/hosts/clone-access.ts) */
  hostAccess?: HostCloneAccess;
  baseRev: string;
  headRev: string;
  /** failing test ids (from CI) or names; absent → the failing tests of a full run on the head */
  targetTests?: string[];
  /** the effective repository settings (common/settings.ts resolveEffectiveSettings) */
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
  /** default: agent/report/summary.ts written from the evidence (pass one bound to a model client for a model summary) */
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
  /** the target tests the run repairs also fail on the base revision (with the filter on: all of them, and the run ended) */
  notCausedByChange: boolean;
  /** targets left out because they fail on the base revision too, and why (not in the regression comparison either) */
  droppedTargets?: Array<{ id: string; reason: string }>;
  green?: GateVerdict;
  regression?: GateVerdict;
  final?: GateVerdict;
  /** repeats with and without the fix (agent/gates/proof.ts); absent: the run ended before the proof */
  proof?: Proof;
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
  /** commands a time limit stopped, and the time they had run: what the run lost to timeouts */
  timeouts: number;
  timeoutMs: number;
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
