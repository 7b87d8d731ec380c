import { z } from 'zod';
import { ExpectedActualSchema, StackFrameSchema, TestCountsSchema, TestStatusSchema } from './test-results';

// The run-event contract: every step of a run's trajectory, as the agent and
// the run lifecycle write it and as the run page reads it. One list of types
// (RUN_EVENT_PAYLOADS) from which everything else is derived: the typed
// events the agent emits, the validation of every append, the lenient parse
// of stored rows for the public projection, and the views. The stream itself
// is type-agnostic (every event travels as the default SSE message with its
// type inside), so a type added here reaches the page with no stream change.
//
// Browser-safe: no server, node: or Prisma imports.

// ───── shared vocabulary ─────

export const PHASES = ['setup', 'red', 'localise', 'patch', 'verify', 'summary'] as const;
export const PhaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof PhaseSchema>;

export const UsageSchema = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  /** null: some model call had no price, so the cost is unknown (never counted as 0) */
  costUsd: z.number().min(0).nullable(),
  toolCalls: z.number().int().min(0),
});
export type Usage = z.infer<typeof UsageSchema>;

/** An unknown cost (null) stays unknown: a sum with it is no real total. */
export function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

export const DiagnosticSchema = z.object({
  kind: z.enum(['malformed', 'apply', 'syntax', 'build', 'path']),
  file: z.string().optional(),
  line: z.number().optional(),
  message: z.string(),
});
export type Diagnostic = z.infer<typeof DiagnosticSchema>;

export const GateNameSchema = z.enum(['red', 'base', 'compile', 'green', 'regression', 'final']);
export type GateName = z.infer<typeof GateNameSchema>;

export const GateVerdictSchema = z.object({
  gate: GateNameSchema,
  passed: z.boolean(),
  durationMs: z.number().nonnegative(),
  detail: z.string().optional(),
  diagnostics: z.array(DiagnosticSchema).optional(),
  /** the tests the gate lists (every target; for the regression suite only the failing ones), capped */
  tests: z.array(z.object({ id: z.string(), status: TestStatusSchema, message: z.string().optional() })).optional(),
  /** how many tests the gate's run reported, whatever `tests` lists (test gates only) */
  counts: TestCountsSchema.optional(),
  /** target gates: how many targets the report did not list at all (a base revision without the test) */
  notRun: z.number().int().nonnegative().optional(),
  /** the base gate of a change that edits only tests: a target passing on the base was made stricter by the change, not broken by it */
  changeEditsOnlyTests: z.boolean().optional(),
  /** a repeat of the gate (agent/gates/proof.ts): which one, of how many, and the seed it ran with when the runner shuffles */
  repeat: z.object({ index: z.number().int().min(1), of: z.number().int().min(1), seed: z.number().int().optional() }).optional(),
});
export type GateVerdict = z.infer<typeof GateVerdictSchema>;

const count = z.number().int().nonnegative();

export const ProofSchema = z.object({
  status: z.enum(['proven', 'unproven']),
  reason: z.enum(['flaky_target']).optional(),
  /** how the repeats differed: the runner's shuffle with seeds, or plain repeats */
  order: z.enum(['shuffled', 'repeated']),
  seeds: z.array(z.number().int()).optional(),
  /** runs of the targets with the fix (GREEN and final rerun repeats): how many, how many passed */
  withFix: z.object({ runs: count, passed: count }),
  /** runs of the targets on the head without the fix (RED and its repeats): how many, how many had every target fail */
  withoutFix: z.object({ runs: count, failed: count }),
  /** targets that passed at least once without the fix */
  flakyTargets: z.array(z.string()).optional(),
  detail: z.string(),
});
export type Proof = z.infer<typeof ProofSchema>;

/** A fix's proof in words: "unproven (flaky target)" is never a green state. */
export function proofLabel(proof: Pick<Proof, 'status' | 'reason'> | null | undefined): string | null {
  if (!proof) return null;
  if (proof.status === 'proven') return 'proven';
  return proof.reason === 'flaky_target' ? 'unproven (flaky target)' : 'unproven';
}

export const CodeSpanSchema = z.object({
  file: z.string(),
  /** function / method / class name, qualified where it helps ("Cart.total") */
  symbol: z.string(),
  kind: z.enum(['function', 'method', 'class', 'window']),
  startLine: z.number(),
  endLine: z.number(),
});
export type CodeSpan = z.infer<typeof CodeSpanSchema>;

export const SuspectSchema = CodeSpanSchema.extend({
  score: z.number(),
  /** human-readable reasons, e.g. "stack frame src/cart.ts:12", "edited by the change" */
  reasons: z.array(z.string()),
});
export type Suspect = z.infer<typeof SuspectSchema>;

export const FailingTestSchema = z.object({ id: z.string(), name: z.string(), file: z.string().optional(), message: z.string() });
export type FailingTest = z.infer<typeof FailingTestSchema>;

export const RUN_STATUSES = ['QUEUED', 'RUNNING', 'FIXED', 'NO_FIX', 'FAILED', 'CANCELLED'] as const;

// ───── the payload of every event type ─────

/**
 * The one list of event types. Payload schemas are what a writer must send;
 * keys not named here are stored as written (validation checks, it does not
 * strip), and readers parse every field leniently (see readRunEvent).
 */
export const RUN_EVENT_PAYLOADS = {
  /** a pipeline phase started or finished */
  phase: z.object({ phase: PhaseSchema, status: z.enum(['started', 'finished']), durationMs: z.number().nonnegative().optional() }),
  /** the policy's reasoning, in words */
  thought: z.object({
    text: z.string(),
    candidates: count.optional(),
    byTemplate: z.record(z.string(), count).optional(),
    deliberate: z.string().optional(),
    skipped: z.array(z.string()).optional(),
  }),
  /** the model called a tool */
  tool_call: z.object({ id: z.string().optional(), name: z.string(), arguments: z.string(), index: count.optional() }),
  /** what a tool call answered */
  observation: z.object({
    id: z.string().optional(),
    name: z.string().optional(),
    ok: z.boolean().optional(),
    malformed: z.boolean().optional(),
    text: z.string(),
    durationMs: z.number().nonnegative().optional(),
    verdict: z.object({ gate: GateNameSchema, passed: z.boolean(), diagnostics: z.array(DiagnosticSchema).optional() }).optional(),
  }),
  /** a gate's verdict: compile, RED, base, GREEN, regression, final */
  gate: GateVerdictSchema,
  /**
   * Whether the fix is proven (agent/gates/proof.ts): the target tests passed every
   * repeat with the fix and failed every repeat without it. 'unproven': a
   * target passed without the fix too (a flaky target), so its passing with
   * the fix proves nothing; never shown as green.
   */
  proof: ProofSchema,
  /** the localiser's ranked suspects */
  suspects: z.object({
    suspects: z.array(SuspectSchema),
    /** ranked after the top-K (not handed to the policy): how near the rest came */
    runnersUp: z.array(SuspectSchema).optional(),
  }),
  /** what the failure says: failing tests, expected/actual, frames */
  evidence: z.object({
    summary: z.string(),
    failingTests: z.array(FailingTestSchema),
    expectedActual: z.array(ExpectedActualSchema),
    frames: z.array(StackFrameSchema),
    symbols: z.array(z.string()),
  }),
  /** one candidate edit of the offline policy and how it fared */
  candidate: z.object({
    rank: count,
    template: z.string(),
    file: z.string(),
    line: z.number(),
    symbol: z.string(),
    description: z.string(),
    score: z.number(),
    onEditedLine: z.boolean(),
    edits: count,
    outcome: z.enum(['green', 'compile_failed', 'tests_failed']),
    diagnostics: z.array(DiagnosticSchema).optional(),
    detail: z.string().optional(),
    failing: z.array(z.string()).optional(),
  }),
  /** one model call's tokens and cost */
  usage: z.object({
    call: count.optional(),
    model: z.string().optional(),
    promptTokens: count,
    completionTokens: count,
    /** null when the model has no price (unknown) */
    costUsd: z.number().min(0).nullable(),
    priced: z.boolean().optional(),
    /** where the token counts come from: the endpoint's usage, llama.cpp's timings, or an estimate */
    source: z.enum(['reported', 'timings', 'estimated']).optional(),
    attempts: count.optional(),
    durationMs: z.number().nonnegative().optional(),
    total: UsageSchema.optional(),
  }),
  /** free text with whatever context the writer adds */
  log: z.looseObject({ text: z.string().optional(), message: z.string().optional() }),
  /** the run lifecycle: queued, claimed, cancel requested, handed back */
  status: z.object({
    status: z.enum(['queued', 'running', 'cancel_requested', 'requeued']),
    trigger: z.string().optional(),
    policy: z.string().optional(),
    attempt: count.optional(),
    maxAttempts: count.optional(),
    takeover: z.boolean().optional(),
    reason: z.string().optional(),
  }),
  /** the run's one last event: the pipeline's outcome folded with the run row's */
  final: z.looseObject({
    /** the pipeline's status (fixed, no_fix, …) */
    status: z.string().optional(),
    /** the Run row's status */
    runStatus: z.enum(RUN_STATUSES).optional(),
    exitReason: z.string(),
    detail: z.string().optional(),
    files: z.array(z.string()).optional(),
    phaseTimings: z.partialRecord(PhaseSchema, z.number()).optional(),
    timings: z.record(z.string(), z.number()).optional(),
    usage: UsageSchema.optional(),
    fixId: z.string().nullable().optional(),
    fixStatus: z.string().nullable().optional(),
    /** generated demo history */
    history: z.boolean().optional(),
  }),
} as const;

type Payloads = typeof RUN_EVENT_PAYLOADS;
export type RunEventType = keyof Payloads;
export const RUN_EVENT_TYPES = Object.keys(RUN_EVENT_PAYLOADS) as RunEventType[];

export function isRunEventType(value: unknown): value is RunEventType {
  return typeof value === 'string' && Object.hasOwn(RUN_EVENT_PAYLOADS, value);
}

// ───── writing ─────

/**
 * What a writer sends for an event of type K: the contract's fields, typed,
 * and any others the writer adds (stored as they are; readers ignore them).
 */
export type RunEventPayload<K extends RunEventType> = z.input<Payloads[K]> & Record<string, unknown>;

/** An event as written: the agent's sink, the run lifecycle. `phase` is folded into the stored payload. */
export type RunEventInput = { [K in RunEventType]: { type: K; phase?: Phase; payload: RunEventPayload<K> } }[RunEventType];
export type RunEventInputOf<K extends RunEventType> = Extract<RunEventInput, { type: K }>;

/** Builds an event of type K; its payload is checked against the contract at compile time (and at append). */
export function runEvent<K extends RunEventType>(type: K, payload: RunEventPayload<K>, phase?: Phase): RunEventInputOf<K> {
  return (phase ? { type, phase, payload } : { type, payload }) as RunEventInputOf<K>;
}

export const phaseStarted = (phase: Phase) => runEvent('phase', { phase, status: 'started' }, phase);
export const phaseFinished = (phase: Phase, durationMs: number) => runEvent('phase', { phase, status: 'finished', durationMs }, phase);
/** A copy of the verdict: the gate may keep changing its own object. */
export const gateEvent = (verdict: GateVerdict, phase?: Phase) => runEvent('gate', { ...verdict }, phase);
export const logEvent = (text: string, extra: Record<string, unknown> = {}, phase?: Phase) => runEvent('log', { text, ...extra }, phase);

/** The evidence event of a failure: counts in words, at most 20 frames. */
export function evidenceEvent(evidence: {
  failingTests: z.input<typeof FailingTestSchema>[];
  expectedActual: z.input<typeof ExpectedActualSchema>[];
  frames: z.input<typeof StackFrameSchema>[];
  symbols: string[];
}): RunEventInputOf<'evidence'> {
  return runEvent(
    'evidence',
    {
      summary: `${evidence.failingTests.length} failing test(s), ${evidence.frames.length} frame(s), ${evidence.expectedActual.length} expected/actual pair(s)`,
      failingTests: evidence.failingTests,
      expectedActual: evidence.expectedActual,
      frames: evidence.frames.slice(0, 20),
      symbols: evidence.symbols,
    },
    'localise',
  );
}

const RunEventInputSchema = z.discriminatedUnion(
  'type',
  RUN_EVENT_TYPES.map((type) =>
    z.object({ type: z.literal(type), phase: PhaseSchema.optional(), payload: RUN_EVENT_PAYLOADS[type] as z.ZodObject }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);

export type RunEventCheck = { ok: true; event: RunEventInput } | { ok: false; message: string };

/**
 * Validates one event against the contract. The event comes back as it was
 * given (keys the contract does not name included): validation never rewrites.
 */
export function checkRunEvent(event: unknown): RunEventCheck {
  const type = (event as { type?: unknown } | null)?.type;
  if (!isRunEventType(type)) {
    return { ok: false, message: `unknown run event type ${JSON.stringify(type)} (known: ${RUN_EVENT_TYPES.join(', ')})` };
  }
  const parsed = RunEventInputSchema.safeParse(event);
  if (parsed.success) return { ok: true, event: event as RunEventInput };
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`);
  return { ok: false, message: `${type} event: ${issues.join('; ')}` };
}

// ───── reading ─────

// A stored row was written under some version of this contract, or by the
// demo's history generator, and has then been through the public projection
// (secret keys dropped, long arrays cut). Readers must never crash on it: each
// field is parsed on its own and dropped when it does not fit, and array
// fields keep the elements that do.

/** An event's payload as read back: every field optional, unknown keys kept. */
export type RunEventView<K extends RunEventType> = {
  [F in keyof z.output<Payloads[K]>]?: Exclude<z.output<Payloads[K]>[F], undefined>;
} & Record<string, unknown>;

function unwrapOptional(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional ? unwrapOptional(schema.unwrap() as z.ZodType) : schema;
}

function lenientField(schema: z.ZodType): z.ZodType {
  const inner = unwrapOptional(schema);
  if (inner instanceof z.ZodArray) {
    const element = inner.element as z.ZodType;
    return z
      .array(z.unknown())
      .transform((items) =>
        items.flatMap((item) => {
          const r = element.safeParse(item);
          return r.success ? [r.data] : [];
        }),
      )
      .optional()
      .catch(undefined);
  }
  return inner.optional().catch(undefined);
}

const READERS = Object.fromEntries(
  RUN_EVENT_TYPES.map((type) => {
    const shape = (RUN_EVENT_PAYLOADS[type] as z.ZodObject).shape as Record<string, z.ZodType>;
    const fields = Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, lenientField(field)]));
    return [type, z.looseObject(fields).catch({})];
  }),
) as unknown as { [K in RunEventType]: z.ZodType<RunEventView<K>> };

interface RunEventMeta {
  seq: number;
  /** the pipeline phase the event belongs to, when known */
  phase: Phase | null;
  /** ISO time the event was saved */
  at: string;
}

export type KnownRunEvent = { [K in RunEventType]: RunEventMeta & { type: K; payload: RunEventView<K> } }[RunEventType];
/** A stored type this contract does not know (a newer writer): shown as it is. */
export type UnknownRunEvent = RunEventMeta & { type: 'unknown'; name: string; payload: Record<string, unknown> };
/** One event as the browser sees it. */
export type PublicRunEvent = KnownRunEvent | UnknownRunEvent;
export type PublicRunEventOf<K extends PublicRunEvent['type']> = Extract<PublicRunEvent, { type: K }>;

/** A stored (and projected) row as a typed event; never throws. */
export function readRunEvent(row: { seq: number; type: string; at: string; payload: Record<string, unknown> }): PublicRunEvent {
  const parsedPhase = PhaseSchema.safeParse(row.payload.phase);
  const meta: RunEventMeta = { seq: row.seq, phase: parsedPhase.success ? parsedPhase.data : null, at: row.at };
  if (!isRunEventType(row.type)) return { ...meta, type: 'unknown', name: row.type, payload: row.payload };
  const payload = READERS[row.type].parse(row.payload);
  return { ...meta, type: row.type, payload } as KnownRunEvent;
}

/** The last message of a finished run's stream (SSE `event: end`; every event is a default message). */
export interface RunStreamEnd {
  status: string;
  exitReason: string | null;
  exitDetail: string | null;
  fixId: string | null;
  /** the last seq the stream sent (-1: none) */
  lastSeq: number;
}
