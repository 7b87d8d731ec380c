import type { Policy, PolicyOutcome, Usage } from '../types';

// A reviewer's edited fix goes back through the same gates as an agent's
// ("edit then accept"): the diff is one edit through the compile
// gate, then GREEN; the pipeline adds the regression suite, the final rerun
// and the post-execution filters. Named 'offline' because it calls no model.

const usageOf = (toolCalls: number): Usage => ({ promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls });

export function createRevalidatePolicy({ diff }: { diff: string }): Policy {
  return {
    name: 'offline',
    async run(ctx): Promise<PolicyOutcome> {
      await ctx.sink.emit({ type: 'log', payload: { text: "validating the reviewer's edited fix" } });
      if (diff.trim() === '') return { status: 'gave_up', exitReason: 'no_candidate', detail: 'the edited fix is empty', usage: usageOf(0) };
      const applied = await ctx.gates.applyEdit({ kind: 'diff', diff });
      if (!applied.passed) {
        const why = applied.diagnostics?.map((d) => d.message).join('; ') || applied.detail || 'refused by the compile gate';
        return { status: 'gave_up', exitReason: 'no_candidate', detail: `the edited fix does not pass the compile gate: ${why}`, usage: usageOf(1) };
      }
      const { verdict } = await ctx.gates.green();
      if (!verdict.passed) {
        return { status: 'gave_up', exitReason: 'no_candidate', detail: `the target tests still fail with the edited fix: ${verdict.detail ?? ''}`, usage: usageOf(2) };
      }
      return { status: 'patched', usage: usageOf(2), notes: 'edited by a reviewer' };
    },
  };
}
