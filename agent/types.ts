import type { FailingTest, GateVerdict, RunEventInput, Suspect, Usage } from '../common/run-events';
import type { ExpectedActual, StackFrame, TestResult } from '../common/test-results';

// The agent's shared vocabulary. Every part of the pipeline (workspace, test
// runner, evidence, scaffold, gates, policies, filters, summary) talks through
// these types so each can be built and tested alone. What the agent shares
// with the server and the browser (test results, the run events and the
// verdicts, suspects and usage they carry) is defined in common/ and only
// re-exported here.

export type { Phase, Diagnostic, GateName, GateVerdict, CodeSpan, Suspect, Usage } from '../common/run-events';
export type { TestStatus, TestResult, ExpectedActual, StackFrame } from '../common/test-results';
import type { LimitReason } from '../lib/sandbox';

/** Named ways a run ends (stored in Run.exitReason): the list is common/exit-reasons.ts. */
export type { ExitReason } from '../common/exit-reasons';
import type { ExitReason } from '../common/exit-reasons';

// ───── commands and tests ─────

export interface CommandResult {
  command: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** combined stdout+stderr, capped; `truncatedBytes` says how much was cut */
  output: string;
  truncatedBytes: number;
  /** the sandbox limit that ended the command, if one did (lib/sandbox/limits.ts) */
  limit?: LimitReason;
  /** timed out at the run's deadline (given less than its own time limit, or none at all) */
  atDeadline?: boolean;
}

export interface TestRun {
  command: CommandResult;
  results: TestResult[];
  /** no JUnit report could be read: results are empty and this says why */
  reportError?: string;
  /**
   * the report was read but does not account for every test the command ran
   * (a TAP stream cut short, a command stopped, or one that failed while its
   * report names no failing test): the tests it lists are not the whole suite
   */
  incomplete?: string;
  /** what the report reader noticed: repeated test ids and the ids they were stored under, fields cut short */
  warnings?: string[];
}

// ───── evidence and localisation ─────

export interface Evidence {
  failingTests: FailingTest[];
  messages: string[];
  expectedActual: ExpectedActual[];
  frames: StackFrame[];
  /** identifiers mentioned in messages and frames (function names, symbols) */
  symbols: string[];
}

// ───── edits and gates ─────

export type Edit =
  | { kind: 'replace'; file: string; oldText: string; newText: string }
  | { kind: 'diff'; diff: string }
  | { kind: 'create'; file: string; content: string }
  | { kind: 'delete'; file: string };

// ───── events ─────

/** One step of the trajectory, typed by the run-event contract; build it with common/run-events' constructors. */
export type AgentEvent = RunEventInput;

/** Where the pipeline reports every step: the database, stdout, a test array. */
export interface EventSink {
  emit(event: AgentEvent): Promise<void>;
}

// ───── policies ─────

export interface ChangeContext {
  title: string;
  description: string;
  author: string;
  /** unified diff base..head */
  diff: string;
  /** files and line ranges (head side) the change edited */
  editedSpans: Array<{ file: string; startLine: number; endLine: number }>;
  language: string;
}

export type PolicyOutcome = { status: 'patched'; usage: Usage; notes?: string } | { status: 'gave_up'; exitReason: ExitReason; detail: string; usage: Usage };

/**
 * A policy edits the workspace until the target tests pass (GREEN) or it gives
 * up. It never runs the regression suite or the final rerun: the pipeline does.
 */
export interface Policy {
  readonly name: 'offline' | 'llm';
  run(ctx: PolicyContext): Promise<PolicyOutcome>;
}

export interface PolicyContext {
  change: ChangeContext;
  evidence: Evidence;
  suspects: Suspect[];
  targetTests: string[];
  /** last target-test run on the unpatched head (RED) */
  redRun: TestRun;
  gates: PolicyGates;
  workspace: WorkspaceView;
  sink: EventSink;
  signal: AbortSignal;
  /** the repository's tests and test helpers (agent/testing/test-files.ts): no edit there is a fix, bar a stale expectation */
  isTestFile?: (file: string) => boolean;
  /** the post filters keep a fix that undoes the whole change (the "reverts the change" filter is off); default: they drop it */
  revertKept?: boolean;
  limits: { maxToolCalls: number; deadline: number; maxTokens: number; maxCostUsd: number };
}

/** What a policy may do to the workspace: every edit goes through the compile gate. */
export interface PolicyGates {
  /** well-formed, applies, syntax check, build; on failure the edit is rolled back */
  applyEdit(edit: Edit): Promise<GateVerdict>;
  /** runs the target tests on the current workspace */
  green(): Promise<{ verdict: GateVerdict; run: TestRun }>;
  /** undo every edit since the head revision */
  reset(): Promise<void>;
  /** `git diff` of the workspace against the head revision */
  diff(): Promise<string>;
  /** runs the build command */
  build(): Promise<CommandResult>;
  /**
   * Follows target tests the applied edit renamed to the tests now in their
   * place (agent/gates/renamed-targets.ts); GREEN runs those from then on.
   * For a reviewer's edit (agent/worker/revalidate-policy.ts): a policy that
   * renames a failing test has not fixed anything.
   */
  followRenamedTargets?(): Promise<FollowedTargets>;
}

/** A test a gate runs: its id, and its name and file where known. */
export interface Target {
  id: string;
  name?: string;
  file?: string;
}

/** What an edit did to the targets' names (agent/gates/renamed-targets.ts). */
export interface RenamedTargets {
  /** a target the edit renamed, and the tests that stand for it now */
  renamed: Array<{ from: string; file: string; to: Target[] }>;
  /** targets missing from the report that no edit of a test accounts for, with why */
  unaccounted: Array<{ id: string; why: string }>;
}

export interface FollowedTargets extends RenamedTargets {
  /** the targets from now on */
  targets: Target[];
}

/** Read-only access to the run's workspace; every path is checked to stay inside it. */
export interface WorkspaceView {
  readonly root: string;
  readFile(rel: string, range?: { start: number; end: number }): Promise<string>;
  listDir(rel: string): Promise<Array<{ name: string; kind: 'file' | 'dir' }>>;
  search(query: string, opts?: { glob?: string; maxResults?: number }): Promise<Array<{ file: string; line: number; text: string }>>;
  /** the last build/test command output */
  lastLog(): string;
}
