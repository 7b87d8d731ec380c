// The LLM policy: a ReAct loop over chat completions (FlowAgent's
// generate-and-validate loop). Two kinds of error:
// a malformed tool call or invalid argument goes back to the model as an
// observation (a few consecutive times); a limit — tool calls, deadline,
// tokens, cost, cancellation, an endpoint that keeps failing — ends the run
// with its named ExitReason. The trajectory is never lost: every thought, tool
// call, observation and usage record is emitted to ctx.sink as it happens.
// The policy finishes 'patched' only when the model calls finish AND the target
// tests pass then; the pipeline still reruns everything itself.
//
// Two edit protocols (the model setting `editProtocol`): native tool calls,
// or the text protocol (agent/llm/text-protocol.ts: search/replace blocks and one-line
// actions in a plain reply) for models whose tool calling is unreliable. In
// `auto` the loop starts with tools and moves to text for the rest of the run
// after `textFallbackAfter` malformed tool calls, when the endpoint refuses
// the tools field, or when the model answers with search/replace blocks on
// its own; the switch is a `log` event of the trajectory. Either way every
// action runs through the same tools and gates.
//
// The loop itself is below; its state and steps are in agent/llm/loop: state.ts (what
// a run carries from turn to turn), steps.ts (limits, the model call, usage,
// one action, the text switch), tool-turn.ts and text-turn.ts (one turn of
// each protocol).
import type { Policy, PolicyContext, PolicyOutcome } from '../types';
import { LlmClient, type LlmClientOptions } from '../llm/client';
import { LlmPolicyLimitsSchema, LlmProtocolOptionsSchema, type LlmPolicyLimits, type LlmProtocolOptions } from '../llm/loop/options';
import { clip, createLoopState, emit, RunEnded, type LoopConfig } from '../llm/loop/state';
import { callModel, checkLimits, recordUsage } from '../llm/loop/steps';
import { replyAsText, textTurn } from '../llm/loop/text-turn';
import { toolTurn } from '../llm/loop/tool-turn';
import { createDefaultTools, type AgentTool } from '../llm/tools';

export { LlmPolicyLimitsSchema, LlmProtocolOptionsSchema, llmProtocolFromSettings, type LlmPolicyLimits, type LlmProtocolOptions } from '../llm/loop/options';
export type { EditProtocol } from '../../common/settings';

export interface LlmPolicyOptions {
  client: LlmClient | LlmClientOptions;
  limits?: LlmPolicyLimits;
  protocol?: LlmProtocolOptions;
  tools?: AgentTool[];
}

export function createLlmPolicy(options: LlmPolicyOptions): Policy {
  const client = options.client instanceof LlmClient ? options.client : new LlmClient(options.client);
  const limits = LlmPolicyLimitsSchema.parse(options.limits ?? {});
  const protocolOptions = LlmProtocolOptionsSchema.parse(options.protocol ?? {});
  const tools = options.tools ?? createDefaultTools();
  return {
    name: 'llm',
    run: (ctx) => runLoop({ ctx, client, limits, protocolOptions, tools }),
  };
}

/** Model call, then the reply's actions, until an action finishes patched or a limit ends the run. */
async function runLoop(config: LoopConfig & { ctx: PolicyContext }): Promise<PolicyOutcome> {
  const state = await createLoopState(config);
  await emit(state, 'log', {
    message: `edit protocol: ${state.protocol}`,
    protocol: state.protocol,
    editProtocol: config.protocolOptions.editProtocol,
    contextTokens: state.budget.contextTokens,
  });
  try {
    for (;;) {
      checkLimits(state);
      const answer = await callModel(state);
      await recordUsage(state, answer);
      if (answer.content?.trim()) await emit(state, 'thought', { text: clip(state, answer.content) });

      let outcome: PolicyOutcome | undefined;
      if (state.protocol === 'tools') outcome = await toolTurn(state, answer);
      else {
        const content = replyAsText(answer);
        state.messages.push({ role: 'assistant', content: content || '(empty reply)' });
        outcome = await textTurn(state, content, answer.finishReason);
      }
      if (outcome) return outcome;
    }
  } catch (error) {
    if (error instanceof RunEnded) {
      await emit(state, 'log', {
        message: 'llm policy ended',
        exitReason: error.exitReason,
        detail: error.detail,
        modelCalls: state.modelCalls,
        protocol: state.protocol,
      });
      return { status: 'gave_up', exitReason: error.exitReason, detail: error.detail, usage: { ...state.usage } };
    }
    throw error;
  }
}
