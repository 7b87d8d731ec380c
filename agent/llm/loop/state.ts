import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { runEvent, type RunEventPayload, type RunEventType } from '../../../common/run-events';
import type { ExitReason, PolicyContext, Usage } from '../../types';
import type { LlmClient } from '../client';
import { contextBudget, type ContextBudget } from '../context';
import { createFence, cutText, type Fence } from '../fence';
import { firstUserMessage, systemPrompt, type Protocol } from '../prompts';
import { toOpenAiTools, type AgentTool, type ToolEnv } from '../tools';
import type { ResolvedLlmPolicyLimits, ResolvedLlmProtocolOptions } from './options';

// The state one run of the LLM policy carries from step to step: what it was
// given (read-only) and the conversation with its counters (changed by the
// steps in ./steps, ./tool-turn and ./text-turn). Nothing else is shared
// between the steps.

/** A limit was reached or the model gave up: the run ends with this reason (never an error). */
export class RunEnded extends Error {
  constructor(
    readonly exitReason: ExitReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export interface LoopConfig {
  ctx: PolicyContext;
  client: LlmClient;
  limits: ResolvedLlmPolicyLimits;
  protocolOptions: ResolvedLlmProtocolOptions;
  tools: AgentTool[];
}

export interface LoopState extends LoopConfig {
  readonly fence: Fence;
  readonly budget: ContextBudget;
  readonly env: ToolEnv;
  readonly toolSpecs: ReturnType<typeof toOpenAiTools>;
  readonly toolNames: string[];
  readonly maxToolCalls: number;
  readonly usage: Usage;
  protocol: Protocol;
  messages: ChatCompletionMessageParam[];
  /** indexes of observation messages in `messages`, oldest first, for shortening */
  observationIndexes: number[];
  consecutiveMalformed: number;
  malformedToolCalls: number;
  consecutiveText: number;
  modelCalls: number;
  costUnknownNoted: boolean;
}

/** The state before the first model call: the system prompt and the task, in the protocol the settings start with. */
export async function createLoopState(config: LoopConfig): Promise<LoopState> {
  const { ctx, limits, protocolOptions, tools } = config;
  const fence = createFence();
  const budget = contextBudget({ contextTokens: protocolOptions.contextTokens, maxOutputTokens: protocolOptions.maxOutputTokens });
  const protocol: Protocol = protocolOptions.editProtocol === 'text' ? 'text' : 'tools';
  const toolNames = tools.map((t) => t.name);
  const state: LoopState = {
    ...config,
    fence,
    budget,
    env: { ctx, fence, maxOutputChars: Math.min(limits.maxObservationChars, budget.observationChars) },
    toolSpecs: toOpenAiTools(tools),
    toolNames,
    maxToolCalls: ctx.limits.maxToolCalls > 0 ? ctx.limits.maxToolCalls : 100,
    usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 },
    protocol,
    messages: [],
    observationIndexes: [],
    consecutiveMalformed: 0,
    malformedToolCalls: 0,
    consecutiveText: 0,
    modelCalls: 0,
    costUnknownNoted: false,
  };
  state.messages = await openingMessages(state);
  return state;
}

/** The system prompt and the task, written for the state's current protocol. */
export async function openingMessages(state: LoopState): Promise<ChatCompletionMessageParam[]> {
  const { ctx, fence, toolNames, protocol, budget } = state;
  return [
    { role: 'system', content: systemPrompt({ fence, toolNames, protocol }) },
    { role: 'user', content: await firstUserMessage({ ctx, fence, budgetTokens: budget.firstMessageTokens, protocol }) },
  ];
}

export function emit<K extends RunEventType>(state: LoopState, type: K, payload: RunEventPayload<K>): Promise<void> {
  return state.ctx.sink.emit(runEvent(type, payload, 'patch'));
}

/** Text copied into an event, cut to the event cap (the model saw all of it). */
export function clip(state: LoopState, text: string): string {
  return cutText(text, { maxChars: state.limits.maxEventChars, hint: 'the model saw the full text' });
}
