// The offline policy: deterministic generate-and-validate repair that needs no
// model. Candidates come from repair templates at the ranked suspects
// (offline/candidates.ts); each goes through the compile gate, then GREEN; the
// first that turns the target tests green is the fix. Cheap fixes cost nothing
// and a machine with no model configured still repairs the common one-liners.
// When the regression suite refuses a fix, the pipeline hands the policy
// another turn: it goes on from the candidate after the refused one (the
// list and the place are kept per run), not from the top of the list.
import { runEvent, type RunEventPayload, type RunEventType } from '../../../common/run-events';
import type { GateVerdict, Policy, PolicyContext, PolicyOutcome, Usage } from '../../types';
import type { Candidate, Generated } from './candidates';
import { generateCandidates } from './candidates';

export interface OfflinePolicyOptions {
  /** most candidates validated per run; each costs a compile check and a target-test run */
  maxCandidates?: number;
  /**
   * Stop after this many candidates in a row failed the target tests and not
   * one of them made a failing target pass: the ranking puts the likely fixes
   * first, so a long run of misses says the fix is beyond the templates.
   */
  stopAfterFailures?: number;
  /** Stop, likewise without progress, once validation has used this share of the policy's time (its deadline from its first turn). */
  stopAfterTimeShare?: number;
  /** clock, for deadline checks */
  now?: () => number;
}

export const DEFAULT_MAX_CANDIDATES = 40;
/** The ranking is meant to put a fix the templates can express in the first 50 (issue 32): 50 misses in a row are past it. */
export const DEFAULT_STOP_AFTER_FAILURES = 50;
/** Half the policy's time: real runs that went on past it spent 10–16 minutes and found nothing. */
export const DEFAULT_STOP_AFTER_TIME_SHARE = 0.5;

function usageOf(gateCalls: number): Usage {
  return { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: gateCalls };
}

function candidatePayload(c: Candidate) {
  return {
    rank: c.rank,
    template: c.template,
    file: c.file,
    line: c.line,
    symbol: c.symbol,
    description: c.description,
    score: c.score,
    onEditedLine: c.onEditedLine,
    edits: c.edits.length,
  };
}

/** One run's candidates and how far validation got: where a later turn resumes. */
interface Progress {
  generated: Generated;
  /** index of the next candidate to validate */
  next: number;
  compileRejected: number;
  gateCalls: number;
  /** candidates in a row that failed GREEN without making a failing target pass */
  missesInARow: number;
  /** when validation started, and the policy's deadline then: the time share is of that span */
  startedAt: number;
  deadline: number;
  /** why the search stopped early while stale expectations were left to try (then only they are) */
  stoppedEarly?: string;
  /** the target tests failing on the unpatched head: a candidate that passes one of them is progress */
  failingAtRed: Set<string>;
}

export function createOfflinePolicy(opts: OfflinePolicyOptions = {}): Policy {
  const maxCandidates = opts.maxCandidates ?? DEFAULT_MAX_CANDIDATES;
  const stopAfterFailures = opts.stopAfterFailures ?? DEFAULT_STOP_AFTER_FAILURES;
  const stopAfterTimeShare = opts.stopAfterTimeShare ?? DEFAULT_STOP_AFTER_TIME_SHARE;
  const now = opts.now ?? Date.now;
  // keyed by the run's workspace: a policy object may serve several runs (the worker's does not, the CLI's might)
  const progressByRun = new WeakMap<object, Progress>();

  async function emit<K extends RunEventType>(ctx: PolicyContext, event: { type: K; payload: RunEventPayload<K> }): Promise<void> {
    await ctx.sink.emit(runEvent(event.type, event.payload, 'patch'));
  }

  async function run(ctx: PolicyContext): Promise<PolicyOutcome> {
    const resumed = progressByRun.get(ctx.workspace);
    let gateCalls = 0;
    const stop = (): PolicyOutcome | null => {
      if (ctx.signal.aborted) return { status: 'gave_up', exitReason: 'cancelled', detail: 'the run was cancelled', usage: usageOf(gateCalls) };
      if (now() >= ctx.limits.deadline)
        return { status: 'gave_up', exitReason: 'time_limit', detail: 'the time limit ran out before a candidate passed', usage: usageOf(gateCalls) };
      return null;
    };
    const early = stop();
    if (early) return early;
    if (resumed) return validate(ctx, resumed, stop, (n) => (gateCalls += n));

    const generated = await generateCandidates({
      root: ctx.workspace.root,
      readFile: (rel) => ctx.workspace.readFile(rel),
      suspects: ctx.suspects,
      evidence: ctx.evidence,
      change: ctx.change,
      max: maxCandidates,
      ...(ctx.isTestFile ? { isTestFile: ctx.isTestFile } : {}),
      revertKept: ctx.revertKept ?? false,
    });
    const { candidates, deliberate, skipped, pruned } = generated;
    const byTemplate: Record<string, number> = {};
    for (const c of candidates) byTemplate[c.template] = (byTemplate[c.template] ?? 0) + 1;
    await emit(ctx, {
      type: 'thought',
      payload: {
        text: `${candidates.length} candidate edit(s) from ${ctx.suspects.length} suspect(s), tried in order of suspiciousness × pattern prior × edit size${pruned.duplicates || pruned.unparsable || pruned.reverts ? ` (left out: ${pruned.duplicates} with the same syntax tree as a better one, ${pruned.unparsable} that do not parse${pruned.reverts ? `, ${pruned.reverts} that would undo the whole change` : ''})` : ''}. Intent: ${deliberate.why}.`,
        candidates: candidates.length,
        byTemplate,
        deliberate: deliberate.level,
        skipped,
      },
    });
    if (candidates.length === 0) {
      return {
        status: 'gave_up',
        exitReason: 'no_candidate',
        detail: `no repair template applies at the suspects${skipped.length ? ` (${skipped.join('; ')})` : ''}`,
        usage: usageOf(0),
      };
    }
    // RED ran the targets alone, so its report names them as GREEN's will (the target ids when it has none)
    const failedAtRed = ctx.redRun.results.filter((t) => t.status !== 'passed' && t.status !== 'skipped').map((t) => t.id);
    const failingAtRed = new Set(failedAtRed.length ? failedAtRed : ctx.targetTests);
    const startedAt = now();
    const progress: Progress = {
      generated,
      next: 0,
      compileRejected: 0,
      gateCalls: 0,
      missesInARow: 0,
      startedAt,
      deadline: ctx.limits.deadline,
      failingAtRed,
    };
    progressByRun.set(ctx.workspace, progress);
    return validate(ctx, progress, stop, (n) => (gateCalls += n));
  }

  /** Validates candidates from `progress.next` on; a GREEN one is returned as the fix, and the next turn starts after it. */
  async function validate(ctx: PolicyContext, progress: Progress, stop: () => PolicyOutcome | null, count: (n: number) => void): Promise<PolicyOutcome> {
    const { candidates } = progress.generated;
    let gateCalls = 0;
    const spend = (n: number) => {
      gateCalls += n;
      progress.gateCalls += n;
      count(n);
    };
    if (progress.next > 0) {
      await emit(ctx, {
        type: 'thought',
        payload: {
          text:
            progress.next < candidates.length
              ? `The regression suite refused candidate ${progress.next}; going on from candidate ${progress.next + 1} of ${candidates.length} (the ones before it already failed).`
              : `The regression suite refused candidate ${progress.next}, the last of ${candidates.length}.`,
          candidates: candidates.length - progress.next,
        },
      });
    }
    while (progress.next < candidates.length) {
      const candidate = candidates[progress.next];
      progress.next += 1;
      if (progress.stoppedEarly && candidate.template !== 'stale-expectation') continue;
      const halted = stop();
      if (halted) return { ...halted, usage: usageOf(gateCalls) };
      let rejected: GateVerdict | null = null;
      for (const edit of candidate.edits) {
        spend(1);
        const compile = await ctx.gates.applyEdit(edit);
        if (!compile.passed) {
          rejected = compile;
          break;
        }
      }
      if (rejected) {
        progress.compileRejected += 1;
        await emit(ctx, {
          type: 'candidate',
          payload: { ...candidatePayload(candidate), outcome: 'compile_failed', diagnostics: rejected.diagnostics ?? [], detail: rejected.detail },
        });
        // The gate rolls a rejected edit back, not the ones before it: start over clean.
        await ctx.gates.reset();
        continue;
      }
      const afterCompile = stop();
      if (afterCompile) {
        await ctx.gates.reset();
        return { ...afterCompile, usage: usageOf(gateCalls) };
      }
      spend(1);
      const { verdict } = await ctx.gates.green();
      if (verdict.passed) {
        await emit(ctx, { type: 'candidate', payload: { ...candidatePayload(candidate), outcome: 'green' } });
        const where = `${candidate.file}:${candidate.line}${candidate.template === 'stale-expectation' ? '' : ` (${candidate.symbol})`}`;
        return {
          status: 'patched',
          usage: usageOf(gateCalls),
          notes: `${candidate.template}: ${candidate.description} at ${where}. Candidate ${candidate.rank} of ${candidates.length}; the target tests pass.`,
        };
      }
      const stillFailing = (verdict.tests ?? []).filter((t) => t.status !== 'passed').map((t) => t.id);
      await emit(ctx, { type: 'candidate', payload: { ...candidatePayload(candidate), outcome: 'tests_failed', failing: stillFailing.slice(0, 10) } });
      await ctx.gates.reset();
      // progress: a target that failed on the head passes with this candidate (a partial fix near the real one)
      const passedNow = new Set((verdict.tests ?? []).filter((t) => t.status === 'passed').map((t) => t.id));
      if ([...progress.failingAtRed].some((id) => passedNow.has(id))) progress.missesInARow = 0;
      else progress.missesInARow += 1;
      const why = progress.stoppedEarly ? null : earlyStop(progress);
      // a stale expectation put last on purpose (a stated intent) is still tried: the streak says nothing about it
      const staleLeft = candidates.slice(progress.next).filter((c) => c.template === 'stale-expectation').length;
      if (why && staleLeft > 0) {
        progress.stoppedEarly = why;
        await emit(ctx, {
          type: 'thought',
          payload: { text: `Stopping the search early (${why}); trying only the ${staleLeft} stale expectation(s) left.`, candidates: staleLeft },
        });
      } else if (why) {
        await emit(ctx, { type: 'thought', payload: { text: `Stopping early: ${why}.`, candidates: candidates.length - progress.next } });
        return {
          status: 'gave_up',
          exitReason: 'no_candidate',
          detail: `stopped early after ${progress.next} of ${candidates.length} candidate edit(s) (${progress.compileRejected} rejected by the compile gate): ${why}`,
          usage: usageOf(gateCalls),
        };
      }
    }
    if (progress.stoppedEarly) {
      return {
        status: 'gave_up',
        exitReason: 'no_candidate',
        detail: `stopped early after ${progress.next} of ${candidates.length} candidate edit(s) (${progress.compileRejected} rejected by the compile gate; the stale expectations left were tried): ${progress.stoppedEarly}`,
        usage: usageOf(gateCalls),
      };
    }
    return {
      status: 'gave_up',
      exitReason: 'no_candidate',
      detail: `tried ${candidates.length} candidate edit(s) (${progress.compileRejected} rejected by the compile gate); none made the target tests pass`,
      usage: usageOf(gateCalls),
    };
  }

  /** Why the rest of the list is not worth its time, or null: only ever without progress. */
  function earlyStop(progress: Progress): string | null {
    if (progress.missesInARow === 0) return null;
    if (progress.missesInARow >= stopAfterFailures)
      return `${progress.missesInARow} candidates in a row failed the target tests and none made a failing target pass`;
    const span = progress.deadline - progress.startedAt;
    const spent = now() - progress.startedAt;
    if (span > 0 && spent >= stopAfterTimeShare * span) {
      return `${Math.round(spent / 1000)} s spent, ${Math.round(stopAfterTimeShare * 100)}% of the policy's ${Math.round(span / 1000)} s, and the last ${progress.missesInARow} candidate(s) made no failing target pass`;
    }
    return null;
  }

  return { name: 'offline', run };
}
