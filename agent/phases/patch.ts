import type { GateVerdict, Policy, PolicyGates, PolicyOutcome } from '../types';
import { addUsage, RunExit, type LocalisedState } from './state';
import { gateEvent } from '../../common/run-events';
import { deadParametersOfFix } from '../filters/fix-parameters';
import { diffFilePath, parseUnifiedDiff } from '../edits/diff';

// Patch: the policies, tried in order on a clean workspace until one reports
// GREEN. Policies propose; every edit goes through the compile gate, and a
// policy's GREEN is only a claim the verify phase checks again.

/**
 * The gates a policy gets: the pipeline's, except that GREEN refuses a fix the
 * regression suite already rejected, or one that leaves a parameter or option
 * of a function it touched unread (filters/dead-parameters.ts), so the policy
 * moves on to its next candidate instead of re-proposing the same diff: of
 * the plausible fixes, one that keeps every parameter in use. The diff is taken only
 * when GREEN passes: most candidates fail GREEN, and a diff costs two git
 * processes per candidate.
 */
function policyGatesOf(state: LocalisedState): PolicyGates {
  const { gates, rejected, sink } = state;
  return {
    ...gates,
    // the run's evidence names the tests it judged the fix on
    followRenamedTargets: async () => {
      const followed = await gates.followRenamedTargets();
      if (followed.renamed.length > 0) state.evidence.targets = followed.targets.map((t) => t.id);
      return followed;
    },
    green: async () => {
      const green = await gates.green();
      if (!green.verdict.passed) return green;
      const diff = await gates.diff();
      const reason = rejected.get(diff);
      const dead = reason === undefined ? await deadParametersOfFix(state.workspace, diff, state.testFiles.is) : [];
      if (reason === undefined && dead.length === 0) return green;
      if (dead.length > 0) state.deadRefused = { diff, findings: dead };
      const detail =
        reason !== undefined
          ? `this exact fix was rejected earlier: ${reason}`
          : `the target tests pass, but the fix is refused: ${dead.map((d) => d.detail).join('; ')}`;
      const verdict: GateVerdict = { ...green.verdict, passed: false, detail };
      await sink.emit(gateEvent(verdict, 'patch'));
      return { verdict, run: green.run };
    },
  };
}

/** A policy's own limit from when it first runs, never past the run's deadline. */
function deadlineFor(state: LocalisedState, policy: Policy): number {
  const { modelSettings } = state;
  const minutes = policy.name === 'offline' ? Math.min(modelSettings.offline.timeLimitMinutes, modelSettings.timeLimitMinutes) : modelSettings.timeLimitMinutes;
  return Math.min(state.deadline, Date.now() + minutes * 60_000);
}

/**
 * One patch attempt: returns with the workspace patched and GREEN claimed,
 * or ends the run with the last policy's reason (`regression_failed` when the
 * policies ran out of candidates after the regression suite refused one).
 */
export async function patch(state: LocalisedState, attempt: number): Promise<void> {
  const { policies, gates, sink, signal, modelSettings, deadlines, rejected, workspace: ws } = state;
  await state.enterPhase('patch');
  const policyGates = policyGatesOf(state);
  let outcome: PolicyOutcome | undefined;
  for (const [i, policy] of policies.entries()) {
    state.throwIfCancelled();
    await gates.reset();
    state.policy = policy.name;
    if (!deadlines.has(policy)) deadlines.set(policy, deadlineFor(state, policy));
    await state.log(`policy ${policy.name}`, { policy: policy.name, tier: i + 1, of: policies.length, attempt });
    outcome = await policy.run({
      change: state.change,
      evidence: state.failure,
      suspects: state.suspects,
      targetTests: state.evidence.targets,
      redRun: state.redRun,
      gates: policyGates,
      workspace: ws,
      sink: { emit: (e) => sink.emit({ phase: 'patch', ...e }) },
      signal,
      isTestFile: state.testFiles.is,
      revertKept: !state.filterPolicy.post.revertsChange,
      limits: {
        maxToolCalls: modelSettings.maxToolCalls,
        deadline: deadlines.get(policy)!,
        maxTokens: modelSettings.maxTokens,
        maxCostUsd: modelSettings.maxCostUsd,
      },
    });
    state.usage = addUsage(state.usage, outcome.usage);
    if (outcome.status === 'patched') return;
    await state.log(`policy ${policy.name} gave up: ${outcome.exitReason}: ${outcome.detail}`);
  }
  await gates.reset();
  state.throwIfCancelled();
  if (rejected.size > 0 && outcome?.status === 'gave_up' && outcome.exitReason === 'no_candidate') {
    throw new RunExit('regression_failed', [...rejected.values()].at(-1) ?? 'the fix breaks other tests');
  }
  const refused = state.deadRefused;
  if (refused && outcome?.status === 'gave_up' && outcome.exitReason === 'no_candidate') {
    // every plausible fix left a parameter unread: the run ends on the filter's reason, the last such fix shown as dropped
    const findings = refused.findings.map((d) => ({ reason: 'dead_parameter' as const, detail: d.detail, file: d.file }));
    state.diff = refused.diff;
    state.files = parseUnifiedDiff(refused.diff).map(diffFilePath);
    state.dropped = { reason: 'dead_parameter', detail: findings[0]!.detail, findings };
    throw new RunExit('dropped:dead_parameter', findings[0]!.detail);
  }
  throw new RunExit(outcome?.status === 'gave_up' ? outcome.exitReason : 'no_candidate', outcome?.status === 'gave_up' ? outcome.detail : 'no policy ran');
}
