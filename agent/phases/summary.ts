import { runPostFilters } from '../filters/post';
import type { SummariseFn } from './contract';
import type { ExitReason } from '../types';
import { addUsage, type LocalisedState } from './state';
import { escapeHtml } from '../../lib/html/sanitize';
import { untestedOptionsSentence } from '../filters/fix-parameters';

// Summary: the verified fix explained (a summary that fails is logged and the
// fix kept), then the post-execution filters, which may still drop it.

async function defaultSummarise(input: Parameters<SummariseFn>[0]): ReturnType<SummariseFn> {
  const { summarise } = await import('../report/summary');
  return summarise({ evidence: input.evidence, diff: input.diff, trajectory: input.trajectory, suspects: input.suspects, change: input.change });
}

/** Summarises the verified fix and returns how the run ends: `fixed`, or `dropped:<reason>`. */
export async function summariseAndFilter(state: LocalisedState): Promise<{ exitReason: ExitReason; detail?: string }> {
  const { input, signal, settings, change } = state;
  await state.enterPhase('summary');
  try {
    const summary = await (input.summarise ?? defaultSummarise)({
      evidence: state.failure,
      diff: state.diff,
      trajectory: state.trajectory,
      suspects: state.suspects,
      change: { title: change.title, description: change.description },
      signal,
    });
    state.summaryHtml = summary.html;
    state.summarySource = summary.source;
    if (summary.usage) state.usage = addUsage(state.usage, summary.usage);
  } catch (err) {
    await state.log(`summary failed: ${(err as Error).message}`);
  }
  const dropped = state.evidence.droppedTargets ?? [];
  if (dropped.length) {
    // the summary says what the fix does not claim: the tests that were failing before the change
    const ids = dropped
      .slice(0, 10)
      .map((d) => `<code>${escapeHtml(d.id)}</code>`)
      .join(', ');
    state.summaryHtml += `<p>Left out: ${dropped.length} failing test(s) that fail on the base revision too, so not caused by the change (${ids}); the fix does not repair them, and the regression suite did not count them.</p>`;
  }
  // what the tests could not pin down: options the fixed functions read that no test names
  state.summaryHtml += untestedOptionsSentence(state.untestedOptions ?? []);
  const stale = input.checkStale ? await input.checkStale() : { stale: false };
  const decision = runPostFilters({
    fixDiff: state.diff,
    changeDiff: state.changeDiff,
    policy: state.filterPolicy,
    testPathPatterns: settings.testPathPatterns,
    isTestFile: state.testFiles.is,
    testEditsAllowed: state.testEditsAllowed,
    stale: stale.stale,
    deadParameters: state.deadParameters ?? [],
    ...(stale.detail ? { staleDetail: stale.detail } : {}),
  });
  if (decision.drop) {
    state.dropped = { reason: decision.reason, detail: decision.detail, findings: decision.findings };
    await state.log(`fix dropped: ${decision.reason}: ${decision.detail}`, { findings: decision.findings });
    return { exitReason: `dropped:${decision.reason}`, detail: decision.detail };
  }
  return { exitReason: 'fixed' };
}
