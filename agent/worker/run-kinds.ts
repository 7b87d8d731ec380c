import { getEnv } from '../../lib/env';
import { RunPolicySchema, type ModelSettings } from '../../common/settings';
import { completeRevalidation } from '../../lib/fixes/edit-accept';
import type { ModelPriceTable } from '../../lib/models/prices';
import type { RunWorkContext } from '../../lib/runs/service';
import { assembleRun, type RunAssembly } from '../assemble';
import { createRevalidatePolicy } from './revalidate-policy';

// What a run's trigger makes of the generic run the executor (execute.ts)
// carries out: a repair (triage's or a person's) assembles its policies from
// the run's policy and model (agent/assemble.ts); the re-validation of a
// reviewer's edited fix (edit then accept) has a policy of its own, skips the
// base check the original run settled, and applies or refuses the edit once
// the run is finished (lib/fixes/edit-accept.ts).

export interface RunKind {
  /** reads the admin's model prices for it */
  usesModelPrices: boolean;
  assemble(input: { run: RunWorkContext; modelSettings: ModelSettings; priceTable: ModelPriceTable }): RunAssembly;
  /** run the target tests on the base revision too */
  checkBase: boolean;
  /** after the run's result is stored */
  afterFinish?: (runId: string) => Promise<unknown>;
}

const REPAIR: RunKind = {
  usesModelPrices: true,
  assemble: ({ run, modelSettings, priceTable }) => {
    // a policy this version does not know runs offline, as it always has
    const policy = RunPolicySchema.safeParse(run.policy).data ?? 'offline';
    return assembleRun({ policy, modelSettings: { ...modelSettings, model: run.model ?? modelSettings.model }, env: getEnv(), priceTable });
  },
  checkBase: true,
};

const REVALIDATION: RunKind = {
  usesModelPrices: false,
  assemble: ({ run }) => ({ policies: [createRevalidatePolicy({ diff: run.inputDiff ?? '' })] }),
  // an edited fix is judged on the target tests and the suite; whether the
  // failure came from the change was settled by the original run
  checkBase: false,
  // a passing re-validation applies the reviewer's edited fix, a failing one leaves the fix ready
  afterFinish: (runId) => completeRevalidation({ runId }),
};

export function runKindOf(run: Pick<RunWorkContext, 'trigger'>): RunKind {
  return run.trigger === 'REVALIDATE' ? REVALIDATION : REPAIR;
}
