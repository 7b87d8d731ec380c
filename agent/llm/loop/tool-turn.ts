import type { PolicyOutcome } from '../../types';
import type { ChatResult } from '../client';
import { looksLikeTextProtocol, looksLikeToolCallText } from '../text-protocol';
import { runToolCall } from '../tools';
import { clip, emit, type LoopState } from './state';
import { act, malformed, noAction, switchToText } from './steps';
import { textTurn } from './text-turn';

// A turn in the native tool-calling protocol. In `auto`, a model that keeps
// writing its calls as text, or answers with search/replace blocks, moves
// the run to the text protocol.

/** Runs the reply's tool calls in order; returns the outcome when finish passed. */
export async function toolTurn(state: LoopState, answer: ChatResult): Promise<PolicyOutcome | undefined> {
  const { protocolOptions } = state;
  state.messages.push({
    role: 'assistant',
    content: answer.content,
    ...(answer.toolCalls.length
      ? { tool_calls: answer.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  });

  if (answer.toolCalls.length === 0) {
    if (protocolOptions.editProtocol === 'auto' && looksLikeTextProtocol(answer.content)) {
      // the model writes search/replace blocks on its own: take them at their word
      state.messages.pop();
      await switchToText(state, 'the model answered with search/replace blocks');
      state.messages.push({ role: 'assistant', content: answer.content ?? '' });
      return textTurn(state, answer.content ?? '', answer.finishReason);
    }
    if (looksLikeToolCallText(answer.content)) {
      // a tool call that came back as text is a malformed tool call
      state.malformedToolCalls++;
      await emit(state, 'observation', {
        name: '(tool call in text)',
        ok: false,
        malformed: true,
        text: clip(state, 'The reply contained a tool call written as text instead of a tool call.'),
        durationMs: 0,
      });
      if (protocolOptions.editProtocol === 'auto' && state.malformedToolCalls >= protocolOptions.textFallbackAfter) {
        await switchToText(state, `${state.malformedToolCalls} malformed tool calls`);
        return undefined;
      }
      malformed(state, 'a tool call written as text');
      state.messages.push({ role: 'user', content: 'Your tool call came back as plain text, not as a tool call. Call the tool through the tools API.' });
      return undefined;
    }
    return noAction(state, answer);
  }
  state.consecutiveText = 0;

  for (const call of answer.toolCalls) {
    const { malformed: bad, observation } = await act(state, {
      id: call.id,
      name: call.name,
      argumentsText: call.arguments,
      run: async () => {
        const outcome = await runToolCall({ tools: state.tools, name: call.name, rawArguments: call.arguments, env: state.env });
        return outcome.kind === 'malformed'
          ? { malformed: true, observation: { ok: false, text: outcome.text } }
          : { malformed: false, observation: outcome.observation };
      },
    });
    state.messages.push({ role: 'tool', tool_call_id: call.id, content: observation.text });
    if (bad) {
      state.malformedToolCalls++;
      malformed(state, observation.text);
      continue;
    }
    state.consecutiveMalformed = 0;
    state.observationIndexes.push(state.messages.length - 1);
    if (observation.finish?.passed) return { status: 'patched', usage: { ...state.usage }, notes: observation.finish.summary };
  }
  if (protocolOptions.editProtocol === 'auto' && state.malformedToolCalls >= protocolOptions.textFallbackAfter) {
    await switchToText(state, `${state.malformedToolCalls} malformed tool calls`);
  }
  return undefined;
}
