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
// or the text protocol (text-protocol.ts: search/replace blocks and one-line
// actions in a plain reply) for models whose tool calling is unreliable. In
// `auto` the loop starts with tools and moves to text for the rest of the run
// after `textFallbackAfter` malformed tool calls, when the endpoint refuses
// the tools field, or when the model answers with search/replace blocks on
// its own; the switch is a `log` event of the trajectory. Either way every
// action runs through the same tools and gates.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { addCost, runEvent, type RunEventPayload, type RunEventType } from '../../common/run-events';
import type { EditProtocol, ModelSettings } from '../../lib/repositories/settings';
import type { ExitReason, Policy, PolicyContext, PolicyOutcome, Usage } from '../types';
import { LlmClient, LlmError, type ChatResult, type LlmClientOptions, type ToolCallRequest } from './client';
import { contextBudget, fitHistory, type ContextBudget } from './context';
import { refusesTools } from './dialects';
import { createFence, cutText, firstUserMessage, systemPrompt, type Fence, type Protocol } from './prompts';
import { describeAction, looksLikeTextProtocol, looksLikeToolCallText, parseTextReply, runTextAction } from './text-protocol';
import { createDefaultTools, runToolCall, toOpenAiTools, type AgentTool, type ToolEnv, type ToolObservation } from './tools';

export const LlmPolicyLimitsSchema = z.object({
  /** consecutive malformed tool calls returned to the model before the run ends (model_error) */
  maxConsecutiveMalformed: z.number().int().min(0).default(3),
  /** consecutive replies without a tool call before the run ends (no_candidate) */
  maxConsecutiveTextReplies: z.number().int().min(1).default(2),
  /** cap on the repository text in one observation (the context budget may lower it) */
  maxObservationChars: z.number().int().min(500).default(12_000),
  /** older observations are shortened in the history to keep the context (and cost) bounded */
  keepFullObservations: z.number().int().min(1).default(8),
  /** cap on text copied into events (the full observation still goes to the model) */
  maxEventChars: z.number().int().min(200).default(4_000),
});
export type LlmPolicyLimits = z.input<typeof LlmPolicyLimitsSchema>;

export const LlmProtocolOptionsSchema = z.object({
  editProtocol: z.enum(['auto', 'tools', 'text']).default('auto'),
  /** auto: malformed tool calls in the run before switching to text */
  textFallbackAfter: z.number().int().min(1).default(2),
  /** the model's context window (tokens) */
  contextTokens: z.number().int().min(2048).default(32_768),
  maxOutputTokens: z.number().int().positive().optional(),
});
export type LlmProtocolOptions = z.input<typeof LlmProtocolOptionsSchema>;

export interface LlmPolicyOptions {
  client: LlmClient | LlmClientOptions;
  limits?: LlmPolicyLimits;
  protocol?: LlmProtocolOptions;
  tools?: AgentTool[];
}

/** The protocol and context options from a repository's model settings. */
export function llmProtocolFromSettings(settings: Pick<ModelSettings, 'editProtocol' | 'textFallbackAfter' | 'contextTokens' | 'maxOutputTokens'>): LlmProtocolOptions {
  return {
    editProtocol: settings.editProtocol,
    textFallbackAfter: settings.textFallbackAfter,
    contextTokens: settings.contextTokens,
    ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
  };
}

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
  const protocol = LlmProtocolOptionsSchema.parse(options.protocol ?? {});
  const tools = options.tools ?? createDefaultTools();
  return {
    name: 'llm',
    run: (ctx) => runLoop({ ctx, client, limits, protocol, tools }),
  };
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
function flattenForText(messages: ChatCompletionMessageParam[]): { messages: ChatCompletionMessageParam[]; observationIndexes: number[] } {
  const out: ChatCompletionMessageParam[] = [];
  const observationIndexes: number[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      const text = [typeof m.content === 'string' ? m.content : '', ...(m.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [renderToolCallAsText(c)] : []))]
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

async function runLoop({
  ctx,
  client,
  limits,
  protocol: protocolOptions,
  tools,
}: {
  ctx: PolicyContext;
  client: LlmClient;
  limits: z.output<typeof LlmPolicyLimitsSchema>;
  protocol: z.output<typeof LlmProtocolOptionsSchema>;
  tools: AgentTool[];
}): Promise<PolicyOutcome> {
  const usage: Usage = { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 };
  const fence: Fence = createFence();
  const budget: ContextBudget = contextBudget({ contextTokens: protocolOptions.contextTokens, maxOutputTokens: protocolOptions.maxOutputTokens });
  const env: ToolEnv = { ctx, fence, maxOutputChars: Math.min(limits.maxObservationChars, budget.observationChars) };
  const emit = <K extends RunEventType>(type: K, payload: RunEventPayload<K>) => ctx.sink.emit(runEvent(type, payload, 'patch'));
  const clip = (text: string) => cutText(text, { maxChars: limits.maxEventChars, hint: 'the model saw the full text' });
  const maxToolCalls = ctx.limits.maxToolCalls > 0 ? ctx.limits.maxToolCalls : 100;
  const toolSpecs = toOpenAiTools(tools);
  const toolNames = tools.map((t) => t.name);

  let protocol: Protocol = protocolOptions.editProtocol === 'text' ? 'text' : 'tools';
  await emit('log', { message: `edit protocol: ${protocol}`, protocol, editProtocol: protocolOptions.editProtocol, contextTokens: budget.contextTokens });

  let messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: systemPrompt({ fence, toolNames, protocol }) },
    { role: 'user', content: await firstUserMessage({ ctx, fence, budgetTokens: budget.firstMessageTokens, protocol }) },
  ];
  /** indexes of observation messages in `messages`, oldest first, for shortening */
  let observationIndexes: number[] = [];
  let consecutiveMalformed = 0;
  let malformedToolCalls = 0;
  let consecutiveText = 0;
  let modelCalls = 0;
  let costUnknownNoted = false;

  const checkLimits = () => {
    if (ctx.signal.aborted) throw new RunEnded('cancelled', 'the run was cancelled');
    if (Date.now() >= ctx.limits.deadline) throw new RunEnded('time_limit', 'the run reached its time limit');
    const tokens = usage.promptTokens + usage.completionTokens;
    if (!within(ctx.limits.maxTokens, tokens)) throw new RunEnded('token_budget', `used ${tokens} tokens of a ${ctx.limits.maxTokens} budget`);
    if (usage.costUsd !== null && !within(ctx.limits.maxCostUsd, usage.costUsd)) {
      throw new RunEnded('cost_budget', `spent $${usage.costUsd.toFixed(4)} of a $${ctx.limits.maxCostUsd} budget`);
    }
  };

  const switchToText = async (reason: string) => {
    if (protocol === 'text') return;
    protocol = 'text';
    const flat = flattenForText(messages.slice(2));
    messages = [
      { role: 'system', content: systemPrompt({ fence, toolNames, protocol }) },
      { role: 'user', content: await firstUserMessage({ ctx, fence, budgetTokens: budget.firstMessageTokens, protocol }) },
      ...flat.messages,
    ];
    observationIndexes = flat.observationIndexes.map((i) => i + 2);
    consecutiveMalformed = 0;
    await emit('log', { message: 'edit protocol: switched to text for the rest of the run', protocol: 'text', from: 'tools', reason, malformedToolCalls });
    // the model must learn the new rules before its next reply
    const last = messages.at(-1);
    const notice = `From now on there are no tool calls: act with the text actions and search/replace blocks described in the system message (${reason}).`;
    if (last?.role === 'user' && typeof last.content === 'string') last.content += `\n\n${notice}`;
    else messages.push({ role: 'user', content: notice });
  };

  const callModel = async (): Promise<ChatResult> => {
    for (;;) {
      fitHistory({
        messages,
        observationIndexes,
        budgetTokens: budget.promptTokens,
        keepLast: limits.keepFullObservations,
        extra: protocol === 'tools' ? JSON.stringify(toolSpecs) : '',
      });
      try {
        return await client.complete({
          messages,
          ...(protocol === 'tools' ? { tools: toolSpecs } : {}),
          signal: ctx.signal,
          deadline: ctx.limits.deadline,
          onRetry: (notice) => void emit('log', { message: 'model call retried', attempt: notice.attempt, delayMs: notice.delayMs, reason: notice.reason }),
        });
      } catch (error) {
        if (ctx.signal.aborted) throw new RunEnded('cancelled', 'the run was cancelled during a model call');
        if (error instanceof LlmError && error.kind === 'timeout' && Date.now() >= ctx.limits.deadline) {
          throw new RunEnded('time_limit', 'the run reached its time limit during a model call');
        }
        // an endpoint that cannot take tools at all (vLLM without a tool-call parser, llama.cpp without --jinja)
        if (protocolOptions.editProtocol === 'auto' && protocol === 'tools' && error instanceof LlmError && error.kind === 'http' && refusesTools(error)) {
          await switchToText(`the endpoint refused the tools field: ${cutText(error.message, { maxChars: 300, hint: 'shortened' })}`);
          continue;
        }
        throw new RunEnded('model_error', error instanceof Error ? error.message : String(error));
      }
    }
  };

  const recordUsage = async (answer: ChatResult) => {
    modelCalls++;
    usage.promptTokens += answer.usage.promptTokens;
    usage.completionTokens += answer.usage.completionTokens;
    usage.costUsd = addCost(usage.costUsd, answer.usage.costUsd);
    await emit('usage', {
      call: modelCalls,
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
    if (!answer.usage.priced && !costUnknownNoted) {
      costUnknownNoted = true;
      await emit('log', {
        message: `no price for model ${client.model} in the price table: the run's cost is unknown and the cost budget cannot be enforced (the token budget still is)`,
        model: client.model,
      });
    }
  };

  /** One action through the tools, with its events; returns the observation, or undefined for a malformed one. */
  const act = async ({
    id,
    name,
    argumentsText,
    run,
  }: {
    id: string;
    name: string;
    argumentsText: string;
    run: () => Promise<{ malformed: boolean; observation: ToolObservation }>;
  }): Promise<{ malformed: boolean; observation: ToolObservation }> => {
    checkLimits();
    if (usage.toolCalls >= maxToolCalls) throw new RunEnded('tool_call_limit', `reached the limit of ${maxToolCalls} tool calls`);
    usage.toolCalls++;
    const started = Date.now();
    await emit('tool_call', { id, name, arguments: clip(argumentsText), index: usage.toolCalls, protocol });
    const result = await run();
    const durationMs = Date.now() - started;
    const { observation } = result;
    if (result.malformed) {
      await emit('observation', { id, name, ok: false, malformed: true, text: clip(observation.text), durationMs });
    } else {
      await emit('observation', {
        id,
        name,
        ok: observation.ok,
        text: clip(observation.text),
        durationMs,
        ...(observation.verdict ? { verdict: { gate: observation.verdict.gate, passed: observation.verdict.passed, diagnostics: observation.verdict.diagnostics ?? [] } } : {}),
      });
    }
    return result;
  };

  const malformed = async (reason: string) => {
    consecutiveMalformed++;
    if (consecutiveMalformed > limits.maxConsecutiveMalformed) {
      throw new RunEnded('model_error', `${consecutiveMalformed} consecutive malformed tool calls; last: ${reason.split('\n')[0]}`);
    }
  };

  /** A native tool-calling turn. Returns the outcome when the run ends patched. */
  const toolTurn = async (answer: ChatResult): Promise<PolicyOutcome | undefined> => {
    messages.push({
      role: 'assistant',
      content: answer.content,
      ...(answer.toolCalls.length
        ? { tool_calls: answer.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
        : {}),
    });

    if (answer.toolCalls.length === 0) {
      if (protocolOptions.editProtocol === 'auto' && looksLikeTextProtocol(answer.content)) {
        // the model writes search/replace blocks on its own: take them at their word
        messages.pop();
        await switchToText('the model answered with search/replace blocks');
        messages.push({ role: 'assistant', content: answer.content ?? '' });
        return textActions(answer.content ?? '', answer.finishReason);
      }
      if (looksLikeToolCallText(answer.content)) {
        // a tool call that came back as text is a malformed tool call
        malformedToolCalls++;
        await emit('observation', { name: '(tool call in text)', ok: false, malformed: true, text: clip('The reply contained a tool call written as text instead of a tool call.'), durationMs: 0 });
        if (protocolOptions.editProtocol === 'auto' && malformedToolCalls >= protocolOptions.textFallbackAfter) {
          await switchToText(`${malformedToolCalls} malformed tool calls`);
          return undefined;
        }
        await malformed('a tool call written as text');
        messages.push({ role: 'user', content: 'Your tool call came back as plain text, not as a tool call. Call the tool through the tools API.' });
        return undefined;
      }
      return noAction(answer);
    }
    consecutiveText = 0;

    for (const call of answer.toolCalls) {
      const { malformed: bad, observation } = await act({
        id: call.id,
        name: call.name,
        argumentsText: call.arguments,
        run: async () => {
          const outcome = await runToolCall({ tools, name: call.name, rawArguments: call.arguments, env });
          return outcome.kind === 'malformed' ? { malformed: true, observation: { ok: false, text: outcome.text } } : { malformed: false, observation: outcome.observation };
        },
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content: observation.text });
      if (bad) {
        malformedToolCalls++;
        await malformed(observation.text);
        continue;
      }
      consecutiveMalformed = 0;
      observationIndexes.push(messages.length - 1);
      if (observation.finish?.passed) return { status: 'patched', usage: { ...usage }, notes: observation.finish.summary };
    }
    if (protocolOptions.editProtocol === 'auto' && malformedToolCalls >= protocolOptions.textFallbackAfter) {
      await switchToText(`${malformedToolCalls} malformed tool calls`);
    }
    return undefined;
  };

  /** A reply with nothing to do: nudge, then give up. */
  const noAction = async (answer: Pick<ChatResult, 'content' | 'finishReason'>): Promise<undefined> => {
    consecutiveText++;
    if (consecutiveText >= limits.maxConsecutiveTextReplies) {
      throw new RunEnded('no_candidate', `the model stopped acting: ${cutText(answer.content ?? '(empty reply)', { maxChars: 500, hint: 'see the thought events' })}`);
    }
    messages.push({
      role: 'user',
      content:
        answer.finishReason === 'length'
          ? `Your reply was cut off by the output limit. Be brief and ${protocol === 'tools' ? 'call a tool' : 'write one action'}.`
          : protocol === 'tools'
            ? 'Continue by calling a tool. Call finish once run_tests passes. If you are certain no fix is possible, reply once more in plain text explaining why.'
            : 'Continue with an action (READ, SEARCH_CODE, a search/replace block, RUN_TESTS, FINISH), each on its own line outside code fences. If you are certain no fix is possible, reply once more in plain text explaining why.',
    });
    return undefined;
  };

  /** The text protocol: every action of the reply in order, the results in one user message. */
  const textActions = async (content: string, finishReason: string | null = null): Promise<PolicyOutcome | undefined> => {
    const { actions, problems } = parseTextReply(content);
    if (actions.length === 0 && problems.length === 0) return noAction({ content, finishReason });
    consecutiveText = 0;
    const results: string[] = [];
    let n = 0;
    for (const problem of problems) {
      n++;
      await act({ id: `text-${modelCalls}-${n}`, name: '(unreadable action)', argumentsText: '', run: async () => ({ malformed: true, observation: { ok: false, text: problem } }) });
      results.push(`### ${n}. (not understood)\n${problem}`);
      await malformed(problem);
    }
    let outcome: PolicyOutcome | undefined;
    for (const action of actions) {
      n++;
      const ran = await act({
        id: `text-${modelCalls}-${n}`,
        name: action.kind === 'edit' ? 'search_replace' : action.name,
        argumentsText: action.kind === 'edit' ? JSON.stringify({ path: action.path, search: action.search, replace: action.replace }) : JSON.stringify(action.args),
        run: () => runTextAction(action, { tools, env }),
      });
      results.push(`### ${n}. ${describeAction(action)}\n${ran.observation.text}`);
      if (ran.malformed) await malformed(ran.observation.text);
      else if (problems.length === 0) consecutiveMalformed = 0;
      if (ran.observation.finish?.passed) {
        outcome = { status: 'patched', usage: { ...usage }, notes: ran.observation.finish.summary };
        break;
      }
    }
    messages.push({ role: 'user', content: `Results of your actions:\n\n${results.join('\n\n')}` });
    observationIndexes.push(messages.length - 1);
    return outcome;
  };

  try {
    for (;;) {
      checkLimits();
      const answer = await callModel();
      await recordUsage(answer);
      if (answer.content?.trim()) await emit('thought', { text: clip(answer.content) });

      let outcome: PolicyOutcome | undefined;
      if (protocol === 'tools') outcome = await toolTurn(answer);
      else {
        // a model told to write text may still send tool calls: they run as text actions would
        const content = [answer.content ?? '', ...answer.toolCalls.map((c) => toolCallAsTextLine(c))].filter(Boolean).join('\n');
        messages.push({ role: 'assistant', content: content || '(empty reply)' });
        outcome = await textActions(content, answer.finishReason);
      }
      if (outcome) return outcome;
    }
  } catch (error) {
    if (error instanceof RunEnded) {
      await emit('log', { message: 'llm policy ended', exitReason: error.exitReason, detail: error.detail, modelCalls, protocol });
      return { status: 'gave_up', exitReason: error.exitReason, detail: error.detail, usage: { ...usage } };
    }
    throw error;
  }
}

/** A native call sent in text mode, as the text action it stands for (unknown ones become an unreadable line). */
function toolCallAsTextLine(call: ToolCallRequest): string {
  let args: Record<string, unknown> = {};
  try {
    args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
  } catch {
    return '';
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (call.name) {
    case 'read_file':
      return `READ ${str(args.path)}${args.start_line ? ` ${Number(args.start_line)}-${Number(args.end_line ?? Number(args.start_line) + 399)}` : ''}`;
    case 'list_dir':
      return `LIST ${str(args.path) || '.'}`;
    case 'search_code':
      return `SEARCH_CODE ${str(args.query)}`;
    case 'run_tests':
      return 'RUN_TESTS';
    case 'build':
      return 'BUILD';
    case 'read_last_log':
      return `LOG ${str(args.grep)}`.trimEnd();
    case 'finish':
      return `FINISH ${str(args.summary)}`;
    case 'edit_file':
      return `${str(args.path)}\n<<<<<<< SEARCH\n${str(args.old_text)}\n=======\n${str(args.new_text)}\n>>>>>>> REPLACE`;
    default:
      return '';
  }
}

export type { EditProtocol };
