import { localise } from './phases/localise';
import { patch } from './phases/patch';
import { red } from './phases/red';
import { setup } from './phases/setup';
import { createRunState, RunExit, type RunState } from './phases/state';
import { summariseAndFilter } from './phases/summary';
import { finalRerun, verify } from './phases/verify';
import type { ExitReason, GateVerdict } from './types';
import { logEvent, runEvent } from '../common/run-events';
import { timeoutLine } from './report/sinks';
import type { RepairResult, RepairStatus, RepairTimings, RunRepairInput } from './phases/contract';

// EviACT's Setup → Localise → Patch → Verify with FlowAgent's summary and
// post-execution filters, one function per phase (agent/phases/) over one
// run state. The pipeline owns every verdict that decides the outcome: RED
// before anything, GREEN before the regression suite, and a final rerun of
// the target tests on a clean checkout with only the fix's diff applied.
// Policies propose; the pipeline disposes.

export type { LocaliseFn, RepairEvidence, RepairResult, RepairStatus, RepairTimings, RunRepairInput, SummariseFn } from './phases/contract';

function statusOf(exitReason: ExitReason): RepairStatus {
  if (exitReason === 'fixed') return 'fixed';
  if (exitReason === 'cancelled') return 'cancelled';
  if (exitReason === 'setup_failed') return 'failed';
  return 'no_fix';
}

/** The result as the state has it when the run ends, reported as the final event. */
async function finish(state: RunState, exitReason: ExitReason, exitDetail?: string): Promise<RepairResult> {
  const { trajectory, meter, evidence, files, phaseTimings, usage } = state;
  await state.endPhase();
  evidence.verdicts = trajectory.filter((e) => e.type === 'gate').map((e) => e.payload as unknown as GateVerdict);
  const wallMs = Math.round(performance.now() - state.started);
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
    timeouts: meter.timeouts,
    timeoutMs: meter.timeoutMs,
  };
  if (meter.timeouts > 0) await state.sink.emit(logEvent(timeoutLine(timings), { timeouts: meter.timeouts, timeoutMs: meter.timeoutMs }));
  const result: RepairResult = {
    status: statusOf(exitReason),
    exitReason,
    ...(exitDetail ? { exitDetail } : {}),
    diff: state.diff,
    files,
    summaryHtml: state.summaryHtml,
    ...(state.summarySource ? { summarySource: state.summarySource } : {}),
    evidence,
    suspects: state.suspects,
    phaseTimings,
    timings,
    usage,
    ...(state.policy ? { policy: state.policy } : {}),
    ...(state.dropped ? { dropped: state.dropped } : {}),
    changeDiff: state.changeDiff,
  };
  await state.sink.emit(
    runEvent('final', {
      status: result.status,
      exitReason,
      ...(exitDetail ? { detail: exitDetail } : {}),
      files,
      phaseTimings,
      timings: { ...timings },
      usage: { ...usage },
    }),
  );
  return result;
}

/** Runs one repair attempt from checkout to verdict. Throws only on flowfix's own failures. */
export async function runRepair(input: RunRepairInput): Promise<RepairResult> {
  const state = createRunState(input);
  try {
    const ready = await setup(state);
    const reproduced = await red(ready);
    const localised = await localise(reproduced);
    // A fix the regression suite refuses sends the run back to the policies
    // (verify remembers it, and says when the attempts are spent).
    for (let attempt = 1; ; attempt++) {
      await patch(localised, attempt);
      if (await verify(localised, attempt)) break;
    }
    await finalRerun(localised);
    const end = await summariseAndFilter(localised);
    return await finish(state, end.exitReason, end.detail);
  } catch (err) {
    if (err instanceof RunExit) return await finish(state, err.exitReason, err.detail);
    if (state.signal.aborted) return await finish(state, 'cancelled', 'the run was cancelled');
    throw err;
  } finally {
    if (state.workspace && !input.keepWorkspace) await state.workspace.dispose();
  }
}
