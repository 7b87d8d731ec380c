// The LLM policy: a ReAct loop over chat completions with tools (FlowAgent's
// generate-and-validate loop). Two kinds of error:
// a malformed tool call or invalid argument goes back to the model as an
// observation (a few consecutive times); a limit — tool calls, deadline,
// tokens, cost, cancellation, an endpoint that keeps failing — ends the run
// with its named ExitReason. The trajectory is never lost: every thought, tool
// call, observation and usage record is emitted to ctx.sink as it happens.
// The policy finishes 'patched' only when the model calls finish AND the target
// tests pass then; the pipeline still reruns everything itself.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { runEvent, type RunEventPayload, type RunEventType } from '../../common/run-events';
import type { ExitReason, Policy, PolicyContext, PolicyOutcome, Usage } from '../types';
import { LlmClient, LlmError, type ChatResult, type LlmClientOptions } from './client';
import { createFence, cutText, firstUserMessage, systemPrompt } from './prompts';
import { createDefaultTools, runToolCall, toOpenAiTools, type AgentTool, type ToolEnv } from './tools';

export const LlmPolicyLimitsSchema = z.object({
  /** consecutive malformed tool calls returned to the model before the run ends (model_error) */
  maxConsecutiveMalformed: z.number().int().min(0).default(3),
  /** consecutive replies without a tool call before the run ends (no_candidate) */
  maxConsecutiveTextReplies: z.number().int().min(1).default(2),
  /** cap on the repository text in one observation */
  maxObservationChars: z.number().int().min(500).default(12_000),
  /** older observations are shortened in the history to keep the context (and cost) bounded */
  keepFullObservations: z.number().int().min(1).default(8),
  /** cap on text copied into events (the full observation still goes to the model) */
  maxEventChars: z.number().int().min(200).default(4_000),
});
export type LlmPolicyLimits = z.input<typeof LlmPolicyLimitsSchema>;

export interface LlmPolicyOptions {
  client: LlmClient | LlmClientOptions;
  limits?: LlmPolicyLimits;
  tools?: AgentTool[];
}

const SHORTENED_OBSERVATION_CHARS = 300;

class RunEnded extends Error {
  constructor(
    readonly exitReason: ExitReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

function within(limit: number, value: number): boolean {
  // a non-finite or non-positive limit means "no limit"
  return !Number.isFinite(limit) || limit <= 0 || value < limit;
}

export function createLlmPolicy(options: LlmPolicyOptions): Policy {
  const client = options.client instanceof LlmClient ? options.client : new LlmClient(options.client);
  const limits = LlmPolicyLimitsSchema.parse(options.limits ?? {});
  const tools = options.tools ?? createDefaultTools();
  const toolSpecs = toOpenAiTools(tools);

  return {
    name: 'llm',
    run: (ctx) => runLoop({ ctx, client, limits: limits, tools, toolSpecs }),
  };
}

async function runLoop({
  ctx,
  client,
  limits,
  tools,
  toolSpecs,
}: {
  ctx: PolicyContext;
  client: LlmClient;
  limits: z.output<typeof LlmPolicyLimitsSchema>;
  tools: AgentTool[];
  toolSpecs: ReturnType<typeof toOpenAiTools>;
}): Promise<PolicyOutcome> {
  const usage: Usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };
  const fence = createFence();
  const env: ToolEnv = { ctx, fence, maxOutputChars: limits.maxObservationChars };
  const emit = <K extends RunEventType>(type: K, payload: RunEventPayload<K>) => ctx.sink.emit(runEvent(type, payload, 'patch'));
  const clip = (text: string) => cutText(text, { maxChars: limits.maxEventChars, hint: 'the model saw the full text' });
  const maxToolCalls = ctx.limits.maxToolCalls > 0 ? ctx.limits.maxToolCalls : 100;

  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: systemPrompt({ fence, toolNames: tools.map((t) => t.name) }) },
    { role: 'user', content: await firstUserMessage({ ctx, fence }) },
  ];
  /** indexes of tool messages in `messages`, oldest first, for shortening */
  const observationIndexes: number[] = [];
  let consecutiveMalformed = 0;
  let consecutiveText = 0;
  let modelCalls = 0;

  const checkLimits = () => {
    if (ctx.signal.aborted) throw new RunEnded('cancelled', 'the run was cancelled');
    if (Date.now() >= ctx.limits.deadline) throw new RunEnded('time_limit', 'the run reached its time limit');
    const tokens = usage.promptTokens + usage.completionTokens;
    if (!within(ctx.limits.maxTokens, tokens)) throw new RunEnded('token_budget', `used ${tokens} tokens of a ${ctx.limits.maxTokens} budget`);
    if (!within(ctx.limits.maxCostUsd, usage.costUsd)) {
      throw new RunEnded('cost_budget', `spent $${usage.costUsd.toFixed(4)} of a $${ctx.limits.maxCostUsd} budget`);
    }
  };

  const shortenOldObservations = () => {
    while (observationIndexes.length > limits.keepFullObservations) {
      const index = observationIndexes.shift()!;
      const message = messages[index];
      if (message?.role === 'tool' && typeof message.content === 'string' && message.content.length > SHORTENED_OBSERVATION_CHARS) {
        message.content = `${message.content.slice(0, SHORTENED_OBSERVATION_CHARS)}\n[… older observation shortened to save context; call the tool again if you need it]`;
      }
    }
  };

  const callModel = async (): Promise<ChatResult> => {
    try {
      return await client.complete({
        messages,
        tools: toolSpecs,
        signal: ctx.signal,
        deadline: ctx.limits.deadline,
        onRetry: (notice) => void emit('log', { message: 'model call retried', attempt: notice.attempt, delayMs: notice.delayMs, reason: notice.reason }),
      });
    } catch (error) {
      if (ctx.signal.aborted) throw new RunEnded('cancelled', 'the run was cancelled during a model call');
      if (error instanceof LlmError && error.kind === 'timeout' && Date.now() >= ctx.limits.deadline) {
        throw new RunEnded('time_limit', 'the run reached its time limit during a model call');
      }
      throw new RunEnded('model_error', error instanceof Error ? error.message : String(error));
    }
  };

  try {
    for (;;) {
      checkLimits();
      const answer = await callModel();
      modelCalls++;
      usage.promptTokens += answer.usage.promptTokens;
      usage.completionTokens += answer.usage.completionTokens;
      usage.costUsd += answer.usage.costUsd;
      await emit('usage', {
        call: modelCalls,
        model: answer.model,
        promptTokens: answer.usage.promptTokens,
        completionTokens: answer.usage.completionTokens,
        costUsd: answer.usage.costUsd,
        priced: answer.usage.priced,
        attempts: answer.attempts,
        durationMs: answer.durationMs,
        total: { ...usage },
      });
      if (answer.content?.trim()) await emit('thought', { text: clip(answer.content) });

      messages.push({
        role: 'assistant',
        content: answer.content,
        ...(answer.toolCalls.length
          ? { tool_calls: answer.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      });

      if (answer.toolCalls.length === 0) {
        consecutiveText++;
        if (consecutiveText >= limits.maxConsecutiveTextReplies) {
          throw new RunEnded('no_candidate', `the model stopped calling tools: ${cutText(answer.content ?? '(empty reply)', { maxChars: 500, hint: 'see the thought events' })}`);
        }
        messages.push({
          role: 'user',
          content:
            answer.finishReason === 'length'
              ? 'Your reply was cut off by the output limit. Be brief and call a tool.'
              : 'Continue by calling a tool. Call finish once run_tests passes. If you are certain no fix is possible, reply once more in plain text explaining why.',
        });
        continue;
      }
      consecutiveText = 0;

      for (const call of answer.toolCalls) {
        checkLimits();
        if (usage.toolCalls >= maxToolCalls) throw new RunEnded('tool_call_limit', `reached the limit of ${maxToolCalls} tool calls`);
        usage.toolCalls++;
        const started = Date.now();
        await emit('tool_call', { id: call.id, name: call.name, arguments: clip(call.arguments), index: usage.toolCalls });
        const outcome = await runToolCall({ tools, name: call.name, rawArguments: call.arguments, env });
        const durationMs = Date.now() - started;

        if (outcome.kind === 'malformed') {
          consecutiveMalformed++;
          await emit('observation', { id: call.id, name: call.name, ok: false, malformed: true, text: clip(outcome.text), durationMs });
          messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.text });
          if (consecutiveMalformed > limits.maxConsecutiveMalformed) {
            throw new RunEnded('model_error', `${consecutiveMalformed} consecutive malformed tool calls; last: ${outcome.text.split('\n')[0]}`);
          }
          continue;
        }
        consecutiveMalformed = 0;
        const { observation } = outcome;
        await emit('observation', {
          id: call.id,
          name: call.name,
          ok: observation.ok,
          text: clip(observation.text),
          durationMs,
          ...(observation.verdict ? { verdict: { gate: observation.verdict.gate, passed: observation.verdict.passed, diagnostics: observation.verdict.diagnostics ?? [] } } : {}),
        });
        messages.push({ role: 'tool', tool_call_id: call.id, content: observation.text });
        observationIndexes.push(messages.length - 1);
        if (observation.finish?.passed) {
          return { status: 'patched', usage: { ...usage }, notes: observation.finish.summary };
        }
      }
      shortenOldObservations();
    }
  } catch (error) {
    if (error instanceof RunEnded) {
      await emit('log', { message: 'llm policy ended', exitReason: error.exitReason, detail: error.detail, modelCalls });
      return { status: 'gave_up', exitReason: error.exitReason, detail: error.detail, usage: { ...usage } };
    }
    throw error;
  }
}
