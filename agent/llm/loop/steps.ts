import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { addCost } from '../../../common/run-events';
import { LlmError, type ChatResult } from '../client';
import { fitHistory } from '../context';
import { refusesTools } from '../dialects';
import { cutText } from '../fence';
import type { ToolObservation } from '../tools';
import { clip, emit, openingMessages, RunEnded, type LoopState } from './state';

// The steps every turn of the loop is made of, whichever edit protocol it is
// in: check the limits, call the model, record what the call used, run one
// action, count a malformed one, answer a reply that does nothing, and move
// the conversation to the text protocol.

function within(limit: number, value: number): boolean {
  // a non-finite or non-positive limit means "no limit"
  return !Number.isFinite(limit) || limit <= 0 || value < limit;
}

/** Throws RunEnded when the run is cancelled or past its deadline, token budget or cost budget. */
export function checkLimits({ ctx, usage }: LoopState): void {
  if (ctx.signal.aborted) throw new RunEnded('cancelled', 'the run was cancelled');
  if (Date.now() >= ctx.limits.deadline) throw new RunEnded('time_limit', 'the run reached its time limit');
  const tokens = usage.promptTokens + usage.completionTokens;
  if (!within(ctx.limits.maxTokens, tokens)) throw new RunEnded('token_budget', `used ${tokens} tokens of a ${ctx.limits.maxTokens} budget`);
  if (usage.costUsd !== null && !within(ctx.limits.maxCostUsd, usage.costUsd)) {
    throw new RunEnded('cost_budget', `spent $${usage.costUsd.toFixed(4)} of a $${ctx.limits.maxCostUsd} budget`);
  }
}

/** How an earlier tool call reads in the text protocol's history. */
function renderToolCallAsText(call: { function: { name: string; arguments: string } }): string {
  return `[called ${call.function.name} ${cutText(call.function.arguments, { maxChars: 2000, hint: 'arguments shortened' })}]`;
}

/**
 * The conversation so far, rewritten for the text protocol: tool calls become
 * text in the assistant's turns and tool results become user messages, so a
 * server whose chat template has no tool roles can read it.
 */
export function flattenForText(messages: ChatCompletionMessageParam[]): { messages: ChatCompletionMessageParam[]; observationIndexes: number[] } {
  const out: ChatCompletionMessageParam[] = [];
  const observationIndexes: number[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      const text = [
        typeof m.content === 'string' ? m.content : '',
        ...(m.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [renderToolCallAsText(c)] : [])),
      ]
        .filter(Boolean)
        .join('\n');
      out.push({ role: 'assistant', content: text || '(no text)' });
    } else if (m.role === 'tool') {
      const content = `Result of the call ${m.tool_call_id}:\n${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`;
      const last = out.at(-1);
      // consecutive results go into one user message
      if (last?.role === 'user' && typeof last.content === 'string' && last.content.startsWith('Result of the call')) last.content += `\n\n${content}`;
      else {
        out.push({ role: 'user', content });
        observationIndexes.push(out.length - 1);
      }
    } else out.push(m);
  }
  return { messages: out, observationIndexes };
}

/** Moves the rest of the run to the text protocol: the history rewritten, the rules restated, a `log` event. */
export async function switchToText(state: LoopState, reason: string): Promise<void> {
  if (state.protocol === 'text') return;
  state.protocol = 'text';
  const flat = flattenForText(state.messages.slice(2));
  state.messages = [...(await openingMessages(state)), ...flat.messages];
  state.observationIndexes = flat.observationIndexes.map((i) => i + 2);
  state.consecutiveMalformed = 0;
  await emit(state, 'log', {
    message: 'edit protocol: switched to text for the rest of the run',
    protocol: 'text',
    from: 'tools',
    reason,
    malformedToolCalls: state.malformedToolCalls,
  });
  // the model must learn the new rules before its next reply
  const last = state.messages.at(-1);
  const notice = `From now on there are no tool calls: act with the text actions and search/replace blocks described in the system message (${reason}).`;
  if (last?.role === 'user' && typeof last.content === 'string') last.content += `\n\n${notice}`;
  else state.messages.push({ role: 'user', content: notice });
}

/** One model call over the history fitted to the context; an endpoint that refuses tools moves the run to text (auto). */
export async function callModel(state: LoopState): Promise<ChatResult> {
  const { ctx, client, limits, protocolOptions } = state;
  for (;;) {
    fitHistory({
      messages: state.messages,
      observationIndexes: state.observationIndexes,
      budgetTokens: state.budget.promptTokens,
      keepLast: limits.keepFullObservations,
      extra: state.protocol === 'tools' ? JSON.stringify(state.toolSpecs) : '',
    });
    try {
      return await client.complete({
        messages: state.messages,
        ...(state.protocol === 'tools' ? { tools: state.toolSpecs } : {}),
        signal: ctx.signal,
        deadline: ctx.limits.deadline,
        onRetry: (notice) =>
          void emit(state, 'log', { message: 'model call retried', attempt: notice.attempt, delayMs: notice.delayMs, reason: notice.reason }),
      });
    } catch (error) {
      if (ctx.signal.aborted) throw new RunEnded('cancelled', 'the run was cancelled during a model call');
      if (error instanceof LlmError && error.kind === 'timeout' && Date.now() >= ctx.limits.deadline) {
        throw new RunEnded('time_limit', 'the run reached its time limit during a model call');
      }
      // an endpoint that cannot take tools at all (vLLM without a tool-call parser, llama.cpp without --jinja)
      if (protocolOptions.editProtocol === 'auto' && state.protocol === 'tools' && error instanceof LlmError && error.kind === 'http' && refusesTools(error)) {
        await switchToText(state, `the endpoint refused the tools field: ${cutText(error.message, { maxChars: 300, hint: 'shortened' })}`);
        continue;
      }
      throw new RunEnded('model_error', error instanceof Error ? error.message : String(error));
    }
  }
}

/** Adds a call's tokens and cost to the run's usage, as a `usage` event; an unpriced model is noted once. */
export async function recordUsage(state: LoopState, answer: ChatResult): Promise<void> {
  const { usage } = state;
  state.modelCalls++;
  usage.promptTokens += answer.usage.promptTokens;
  usage.completionTokens += answer.usage.completionTokens;
  usage.costUsd = addCost(usage.costUsd, answer.usage.costUsd);
  await emit(state, 'usage', {
    call: state.modelCalls,
    model: answer.model,
    promptTokens: answer.usage.promptTokens,
    completionTokens: answer.usage.completionTokens,
    costUsd: answer.usage.costUsd,
    priced: answer.usage.priced,
    source: answer.usage.source,
    attempts: answer.attempts,
    durationMs: answer.durationMs,
    total: { ...usage },
  });
  if (!answer.usage.priced && !state.costUnknownNoted) {
    state.costUnknownNoted = true;
    await emit(state, 'log', {
      message: `no price for model ${state.client.model} in the price table: the run's cost is unknown and the cost budget cannot be enforced (the token budget still is)`,
      model: state.client.model,
    });
  }
}

export interface ActionResult {
  malformed: boolean;
  observation: ToolObservation;
}

/** One action through the tools, with its tool_call and observation events; the tool-call limit is checked first. */
export async function act(
  state: LoopState,
  { id, name, argumentsText, run }: { id: string; name: string; argumentsText: string; run: () => Promise<ActionResult> },
): Promise<ActionResult> {
  const { usage } = state;
  checkLimits(state);
  if (usage.toolCalls >= state.maxToolCalls) throw new RunEnded('tool_call_limit', `reached the limit of ${state.maxToolCalls} tool calls`);
  usage.toolCalls++;
  const started = Date.now();
  await emit(state, 'tool_call', { id, name, arguments: clip(state, argumentsText), index: usage.toolCalls, protocol: state.protocol });
  const result = await run();
  const durationMs = Date.now() - started;
  const { observation } = result;
  if (result.malformed) {
    await emit(state, 'observation', { id, name, ok: false, malformed: true, text: clip(state, observation.text), durationMs });
  } else {
    await emit(state, 'observation', {
      id,
      name,
      ok: observation.ok,
      text: clip(state, observation.text),
      durationMs,
      ...(observation.verdict
        ? { verdict: { gate: observation.verdict.gate, passed: observation.verdict.passed, diagnostics: observation.verdict.diagnostics ?? [] } }
        : {}),
    });
  }
  return result;
}

/** Counts a malformed action; too many in a row end the run (model_error). */
export function malformed(state: LoopState, reason: string): void {
  state.consecutiveMalformed++;
  if (state.consecutiveMalformed > state.limits.maxConsecutiveMalformed) {
    throw new RunEnded('model_error', `${state.consecutiveMalformed} consecutive malformed tool calls; last: ${reason.split('\n')[0]}`);
  }
}

/** A reply with nothing to do: nudge, then give up (no_candidate). */
export function noAction(state: LoopState, answer: Pick<ChatResult, 'content' | 'finishReason'>): undefined {
  state.consecutiveText++;
  if (state.consecutiveText >= state.limits.maxConsecutiveTextReplies) {
    throw new RunEnded(
      'no_candidate',
      `the model stopped acting: ${cutText(answer.content ?? '(empty reply)', { maxChars: 500, hint: 'see the thought events' })}`,
    );
  }
  const tools = state.protocol === 'tools';
  state.messages.push({
    role: 'user',
    content:
      answer.finishReason === 'length'
        ? `Your reply was cut off by the output limit. Be brief and ${tools ? 'call a tool' : 'write one action'}.`
        : tools
          ? 'Continue by calling a tool. Call finish once run_tests passes. If you are certain no fix is possible, reply once more in plain text explaining why.'
          : 'Continue with an action (READ, SEARCH_CODE, a search/replace block, RUN_TESTS, FINISH), each on its own line outside code fences. If you are certain no fix is possible, reply once more in plain text explaining why.',
  });
  return undefined;
}
