import type { Policy, PolicyOutcome, Usage } from '../types';
import { describeTargets, targetOutcome } from '../gates/target-outcome';

// A reviewer's edited fix goes back through the same gates as an agent's
// ("edit then accept"): the diff is one edit through the compile
// gate, then GREEN; the pipeline adds the regression suite, the final rerun
// and the post-execution filters. Named 'offline' because it calls no model.
//
// A reviewer may rename the failing test to match the fix's new expectation:
// GREEN then finds the old name in no report, and the targets follow the
// edit to the tests it put in their place (agent/gates/renamed-targets.ts)
// before GREEN is asked again. A refusal names the tests that failed, with
// their messages, and the targets the edit left unaccounted for: it is what
// the reviewer reads on the change page.

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
      let calls = 2;
      let green = await ctx.gates.green();
      const unaccounted: string[] = [];
      if (!green.verdict.passed && !green.run.reportError && targetOutcome(green.run).absent.length > 0 && ctx.gates.followRenamedTargets) {
        const followed = await ctx.gates.followRenamedTargets();
        calls++;
        unaccounted.push(...followed.unaccounted.map((u) => u.why));
        if (followed.renamed.length > 0) {
          green = await ctx.gates.green();
          calls++;
        }
      }
      if (!green.verdict.passed) {
        const why = [describeTargets(green.run), ...unaccounted].join('; ');
        return { status: 'gave_up', exitReason: 'no_candidate', detail: `the target tests do not pass with the edited fix: ${why}`, usage: usageOf(calls) };
      }
      return { status: 'patched', usage: usageOf(calls), notes: 'edited by a reviewer' };
    },
  };
}
