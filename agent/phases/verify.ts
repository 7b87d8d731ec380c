import { proofEvent, proveAgainstHead, repeatUntilFailure } from '../gates/proof';
import { RunExit, type LocalisedState } from './state';
import { describeTargets } from '../gates/target-outcome';
import { deadParametersOfFix, untestedOptionsOfFix } from '../filters/fix-parameters';

// Verify: the pipeline's own verdicts on what a policy patched. GREEN again
// (a policy's claim is not taken on trust), then the whole suite; a fix that
// breaks it is remembered and refused, and the policy gets another turn, up
// to maxVerifyAttempts. The last word is a rerun of the targets on a clean
// checkout with only the fix's diff applied.

/**
 * Checks the patched workspace. True: the fix is accepted (the final rerun
 * comes next). False: the regression suite refused it and another patch
 * attempt may follow. Ends the run when GREEN fails or the attempts are spent.
 */
export async function verify(state: LocalisedState, attempt: number): Promise<boolean> {
  const { input, gates, evidence, workspace: ws } = state;
  await state.enterPhase('verify');
  state.diff = await gates.diff();
  state.files = await ws.changedFiles();
  const green = await gates.green();
  evidence.green = green.verdict;
  if (!green.verdict.passed) {
    // a GREEN cut short by the run's deadline is the time limit, not a refuted claim
    state.throwIfCancelled();
    throw new RunExit('final_rerun_failed', `the policy reported a fix but the target tests do not pass (${describeTargets(green.run)})`);
  }
  // a randomized target passes GREEN by chance: it must pass every repeat (agent/gates/proof.ts)
  const unstable = await repeatUntilFailure(gates, state.settings, 'green', state.throwIfCancelled);
  if (unstable) {
    throw new RunExit('final_rerun_failed', `GREEN passed once but not on ${unstable.detail}: the target tests do not pass reliably with the fix`);
  }
  // read while the workspace holds the fix: the post filters and the summary use them
  state.deadParameters = await deadParametersOfFix(ws, state.diff, state.testFiles.is);
  state.untestedOptions = await untestedOptionsOfFix(ws, state.diff, state.testFiles.is);
  if (input.runRegression === false) return true;
  const regression = await gates.regression();
  evidence.regression = regression.verdict;
  if (regression.verdict.passed) return true;
  state.throwIfCancelled();
  // the verdict lists the failures held against the fix (not those failing on the base revision too)
  const broken = (regression.verdict.tests ?? []).map((t) => t.id).slice(0, 10);
  const why =
    regression.run.reportError ??
    (broken.length || !regression.run.incomplete ? `the fix breaks ${broken.join(', ')}` : `the suite's report is incomplete: ${regression.run.incomplete}`);
  if (attempt >= Math.max(1, input.maxVerifyAttempts ?? 3)) throw new RunExit('regression_failed', why);
  state.rejected.set(state.diff, why);
  await state.log(`candidate rejected by the regression suite (${why}); asking the policy for another`, { attempt });
  return false;
}

/** The final rerun, still in the verify phase. Ends the run when the targets fail. */
export async function finalRerun(state: LocalisedState): Promise<void> {
  const { gates, evidence, workspace: ws } = state;
  // The final rerun starts from a clean checkout of the head with only the
  // fix's diff applied: no leftover state from the policy's attempts counts.
  await ws.reset();
  if (state.diff) await ws.applyPatch(state.diff, ['--whitespace=nowarn', '--binary']);
  const final = await gates.final();
  evidence.final = final.verdict;
  if (!final.verdict.passed) state.throwIfCancelled();
  if (!final.verdict.passed)
    throw new RunExit('final_rerun_failed', `the target tests do not pass on a clean rerun with the fix applied (${describeTargets(final.run)})`);
  const runs = state.settings.proof.runs;
  const unstable = await repeatUntilFailure(gates, state.settings, 'final', state.throwIfCancelled);
  if (unstable) {
    throw new RunExit('final_rerun_failed', `the final rerun passed once but not on ${unstable.detail}: the target tests do not pass reliably with the fix`);
  }
  // the same targets on the head without the fix: a target that passes there proves nothing
  await ws.reset();
  const proof = await proveAgainstHead({
    gates,
    settings: state.settings,
    throwIfCancelled: state.throwIfCancelled,
    // GREEN and the final rerun, `runs` times each, all passed to get here
    withFix: { runs: runs * 2, passed: runs * 2 },
  });
  evidence.proof = proof;
  await state.sink.emit(proofEvent(proof));
  if (proof.status === 'unproven') await state.log(proof.detail);
}
