import { z } from 'zod';
import { TestCountsSchema, type TestCounts } from '../../common/test-results';
import { proofLabel } from '../../common/run-events';

// Fix.evidence, a JSON column written by agent/pipeline.ts (RepairEvidence)
// for real runs and by lib/demo/history.ts for the generated history:
// validated on the way out, leniently, so an old or odd row still shows.

const GateSchema = z
  .object({
    passed: z.boolean(),
    durationMs: z.number().nonnegative().catch(0),
    detail: z.string().optional().catch(undefined),
    tests: z
      .array(z.object({ id: z.string(), status: z.string() }).passthrough())
      .optional()
      .catch(undefined),
    counts: TestCountsSchema.optional().catch(undefined),
  })
  .passthrough();

const runs = z.number().int().nonnegative();

// The proof (agent/gates/proof.ts, the `proof` run event): read leniently too; a
// row from before it, or the generated history, has none.
const ProofSchema = z
  .object({
    status: z.enum(['proven', 'unproven']),
    reason: z.string().optional().catch(undefined),
    order: z.enum(['shuffled', 'repeated']).optional().catch(undefined),
    seeds: z.array(z.number()).optional().catch(undefined),
    withFix: z.object({ runs, passed: runs }).optional().catch(undefined),
    withoutFix: z.object({ runs, failed: runs }).optional().catch(undefined),
    flakyTargets: z.array(z.string()).optional().catch(undefined),
    detail: z.string().catch(''),
  })
  .passthrough();

// Both writers carry the four gates.
const EvidenceSchema = z
  .object({
    red: GateSchema.optional().catch(undefined),
    green: GateSchema.optional().catch(undefined),
    regression: GateSchema.optional().catch(undefined),
    final: GateSchema.optional().catch(undefined),
    targets: z.array(z.string()).optional().catch(undefined),
    tests: z.array(z.string()).optional().catch(undefined),
    notCausedByChange: z.boolean().optional().catch(undefined),
    history: z.boolean().optional().catch(undefined),
    proof: ProofSchema.optional().catch(undefined),
  })
  .passthrough();

export const GATE_ORDER = ['red', 'green', 'regression', 'final'] as const;
export type GateKey = (typeof GATE_ORDER)[number];

export interface GateView {
  gate: GateKey;
  passed: boolean;
  durationMs: number;
  detail: string | null;
  /** how many tests the gate ran, when it says */
  testCount: number | null;
  /**
   * GREEN or the final rerun passed, but a target also passed without the
   * fix: the pass proves nothing, so no surface shows it as a green check.
   */
  unproven: boolean;
}

export interface ProofView {
  status: 'proven' | 'unproven';
  /** "proven", "unproven (flaky target)" */
  label: string;
  /** the evidence in one sentence: which targets passed without the fix, in how many runs */
  detail: string;
  withFix: { runs: number; passed: number } | null;
  withoutFix: { runs: number; failed: number } | null;
  flakyTargets: string[];
  order: 'shuffled' | 'repeated' | null;
  seeds: number[];
}

export interface FixEvidenceView {
  gates: GateView[];
  targets: string[];
  /** null: the run recorded no proof (before repeats existed, or the generated history) */
  proof: ProofView | null;
}

/** The gates a reviewer may count as passed checks: an unproven pass is not one. */
export function provenChecks(evidence: FixEvidenceView): { passed: number; unproven: number; total: number } {
  return {
    passed: evidence.gates.filter((g) => g.passed && !g.unproven).length,
    unproven: evidence.gates.filter((g) => g.unproven).length,
    total: evidence.gates.length,
  };
}

/**
 * How many tests a gate ran: the verdict's counts. A gate stored before
 * verdicts carried counts falls back to the tests it lists, which is every
 * target for the target gates; the regression gate lists only its failing
 * tests (the suite can be thousands), so without counts it has no number.
 */
function testCountOf(gate: GateKey, g: { counts?: TestCounts; tests?: unknown[] }): number | null {
  if (g.counts) return g.counts.run;
  return gate !== 'regression' && g.tests ? g.tests.length : null;
}

export function readFixEvidence(raw: unknown): FixEvidenceView {
  const parsed = EvidenceSchema.safeParse(raw ?? {});
  if (!parsed.success) return { gates: [], targets: [], proof: null };
  const e = parsed.data;
  const proof: ProofView | null = e.proof
    ? {
        status: e.proof.status,
        label: proofLabel({ status: e.proof.status, ...(e.proof.reason === 'flaky_target' ? { reason: 'flaky_target' as const } : {}) }) ?? e.proof.status,
        detail: e.proof.detail.slice(0, 2000),
        withFix: e.proof.withFix ?? null,
        withoutFix: e.proof.withoutFix ?? null,
        flakyTargets: (e.proof.flakyTargets ?? []).slice(0, 50),
        order: e.proof.order ?? null,
        seeds: e.proof.seeds ?? [],
      }
    : null;
  const unproven = proof?.status === 'unproven';
  const gates: GateView[] = [];
  for (const gate of GATE_ORDER) {
    const g = e[gate];
    if (!g) continue;
    gates.push({
      gate,
      passed: g.passed,
      durationMs: g.durationMs,
      detail: g.detail ? g.detail.slice(0, 2000) : null,
      testCount: testCountOf(gate, g),
      // the passes with the fix are what a flaky target makes worthless; RED and the suite keep their word
      unproven: unproven && g.passed && (gate === 'green' || gate === 'final'),
    });
  }
  return { gates, targets: e.targets ?? e.tests ?? [], proof };
}
