import { z } from 'zod';
import { TestCountsSchema, type TestCounts } from '../../common/test-results';

// Fix.evidence, a JSON column written by agent/pipeline.ts (RepairEvidence)
// for real runs and by lib/demo/history.ts for the generated history:
// validated on the way out, leniently, so an old or odd row still shows.

const GateSchema = z
  .object({
    passed: z.boolean(),
    durationMs: z.number().nonnegative().catch(0),
    detail: z.string().optional().catch(undefined),
    tests: z.array(z.object({ id: z.string(), status: z.string() }).passthrough()).optional().catch(undefined),
    counts: TestCountsSchema.optional().catch(undefined),
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
}

export interface FixEvidenceView {
  gates: GateView[];
  targets: string[];
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
  if (!parsed.success) return { gates: [], targets: [] };
  const e = parsed.data;
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
    });
  }
  return { gates, targets: e.targets ?? e.tests ?? [] };
}
