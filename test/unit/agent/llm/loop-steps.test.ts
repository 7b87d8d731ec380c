import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LlmClient } from '@/agent/llm/client';
import { LlmPolicyLimitsSchema, LlmProtocolOptionsSchema, type LlmPolicyLimits, type LlmProtocolOptions } from '@/agent/llm/loop/options';
import { createLoopState, RunEnded } from '@/agent/llm/loop/state';
import { act, checkLimits, flattenForText, malformed, noAction, recordUsage, switchToText } from '@/agent/llm/loop/steps';
import { replyAsText, textTurn, toolCallAsTextLine } from '@/agent/llm/loop/text-turn';
import { toolTurn } from '@/agent/llm/loop/tool-turn';
import { createDefaultTools } from '@/agent/llm/tools';
import type { PolicyContext } from '@/agent/types';
import { arraySink, createTempRepo, policyContext } from './temp-repo';

// The LLM loop's steps one by one, each on a state built the way a run
// builds it, over a real temporary repository and the real tools. The whole
// loop against a scripted model server is policy*.test.ts.

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c();
});

async function state({
  limits = {},
  protocol = {},
  ctxLimits = {},
}: { limits?: LlmPolicyLimits; protocol?: LlmProtocolOptions; ctxLimits?: Partial<PolicyContext['limits']> } = {}) {
  const repo = await createTempRepo();
  cleanups.push(() => repo.cleanup());
  const sink = arraySink();
  const controller = new AbortController();
  const ctx = policyContext({ repo, sink, signal: controller.signal, limits: ctxLimits });
  // never called by these steps: the model's side is policy*.test.ts
  const client = new LlmClient({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'k' });
  const s = await createLoopState({
    ctx,
    client,
    limits: LlmPolicyLimitsSchema.parse(limits),
    protocolOptions: LlmProtocolOptionsSchema.parse(protocol),
    tools: createDefaultTools(),
  });
  return { s, sink, controller, repo };
}

const ended = (fn: () => unknown, reason: string) => assert.throws(fn, (e: unknown) => e instanceof RunEnded && e.exitReason === reason);

describe('loop state', () => {
  test('starts with the system prompt and the task, in the protocol the settings start with', async () => {
    const tools = await state();
    assert.equal(tools.s.protocol, 'tools');
    assert.deepEqual(
      tools.s.messages.map((m) => m.role),
      ['system', 'user'],
    );
    const text = await state({ protocol: { editProtocol: 'text' } });
    assert.equal(text.s.protocol, 'text');
    assert.notEqual(text.s.messages[0]!.content, tools.s.messages[0]!.content);
  });
});

describe('checkLimits', () => {
  test('cancelled, time limit, token budget and cost budget each end the run with its reason', async () => {
    const { s, controller } = await state();
    assert.doesNotThrow(() => checkLimits(s));
    s.ctx.limits.maxTokens = 100;
    s.usage.promptTokens = 100;
    ended(() => checkLimits(s), 'token_budget');
    s.usage.promptTokens = 0;
    s.ctx.limits.maxCostUsd = 0.5;
    s.usage.costUsd = 0.5;
    ended(() => checkLimits(s), 'cost_budget');
    // an unknown cost cannot be held to the budget
    s.usage.costUsd = null;
    assert.doesNotThrow(() => checkLimits(s));
    s.ctx.limits.deadline = Date.now() - 1;
    ended(() => checkLimits(s), 'time_limit');
    controller.abort();
    ended(() => checkLimits(s), 'cancelled');
  });

  test('a limit of zero or less is no limit', async () => {
    const { s } = await state({ ctxLimits: { maxTokens: 0, maxCostUsd: -1 } });
    s.usage.promptTokens = 10_000_000;
    s.usage.costUsd = 1000;
    assert.doesNotThrow(() => checkLimits(s));
  });
});

describe('act, malformed and noAction', () => {
  test('act emits the call and its observation and counts it; past the tool-call limit the run ends', async () => {
    const { s, sink } = await state({ ctxLimits: { maxToolCalls: 1 } });
    const result = await act(s, {
      id: 'c1',
      name: 'read_file',
      argumentsText: '{}',
      run: async () => ({ malformed: false, observation: { ok: true, text: 'seen' } }),
    });
    assert.equal(result.observation.text, 'seen');
    assert.equal(s.usage.toolCalls, 1);
    assert.deepEqual(
      sink.events.map((e) => e.type),
      ['tool_call', 'observation'],
    );
    await assert.rejects(
      act(s, { id: 'c2', name: 'read_file', argumentsText: '{}', run: async () => ({ malformed: false, observation: { ok: true, text: '' } }) }),
      (e: unknown) => e instanceof RunEnded && e.exitReason === 'tool_call_limit',
    );
  });

  test('malformed actions in a row past the limit end the run as model_error', async () => {
    const { s } = await state({ limits: { maxConsecutiveMalformed: 1 } });
    malformed(s, 'bad json');
    ended(() => malformed(s, 'bad json again\nmore'), 'model_error');
  });

  test('a reply that does nothing is nudged once, then the run ends with no_candidate', async () => {
    const { s } = await state({ limits: { maxConsecutiveTextReplies: 2 } });
    noAction(s, { content: 'hmm', finishReason: 'stop' });
    assert.match(String(s.messages.at(-1)!.content), /Continue by calling a tool/);
    ended(() => noAction(s, { content: 'still nothing', finishReason: 'stop' }), 'no_candidate');
  });
});

describe('recordUsage', () => {
  test('adds tokens and cost; an unpriced call makes the cost unknown, noted once', async () => {
    const { s, sink } = await state();
    const answer = (priced: boolean) => ({
      content: null,
      toolCalls: [],
      finishReason: 'stop',
      model: 'm',
      usage: { promptTokens: 10, completionTokens: 5, costUsd: priced ? 0.01 : null, priced, source: 'reported' as const },
      attempts: 1,
      durationMs: 3,
    });
    await recordUsage(s, answer(true) as never);
    assert.equal(s.usage.promptTokens, 10);
    assert.equal(s.usage.costUsd, 0.01);
    await recordUsage(s, answer(false) as never);
    await recordUsage(s, answer(false) as never);
    assert.equal(s.usage.completionTokens, 15);
    assert.equal(s.usage.costUsd, null);
    assert.equal(s.modelCalls, 3);
    assert.equal(sink.events.filter((e) => e.type === 'log' && /no price for model/.test(JSON.stringify(e.payload))).length, 1);
  });
});

describe('switching to the text protocol', () => {
  test('flattenForText turns tool calls into text and consecutive results into one user message', () => {
    const flat = flattenForText([
      { role: 'assistant', content: 'reading', tool_calls: [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } }] },
      { role: 'tool', tool_call_id: 'a', content: 'one' },
      { role: 'tool', tool_call_id: 'b', content: 'two' },
    ]);
    assert.deepEqual(
      flat.messages.map((m) => m.role),
      ['assistant', 'user'],
    );
    assert.match(String(flat.messages[0]!.content), /\[called read_file \{"path":"x"\}\]/);
    assert.match(String(flat.messages[1]!.content), /call a:\none[\s\S]*call b:\ntwo/);
    assert.deepEqual(flat.observationIndexes, [1]);
  });

  test('switchToText rewrites the history once, resets the malformed count and tells the model', async () => {
    const { s, sink } = await state();
    s.messages.push({ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'run_tests', arguments: '{}' } }] });
    s.messages.push({ role: 'tool', tool_call_id: 'a', content: 'FAILED' });
    s.consecutiveMalformed = 2;
    await switchToText(s, 'testing');
    assert.equal(s.protocol, 'text');
    assert.equal(s.consecutiveMalformed, 0);
    assert.ok(s.messages.every((m) => m.role !== 'tool'));
    assert.deepEqual(s.observationIndexes, [3]);
    assert.match(String(s.messages.at(-1)!.content), /From now on there are no tool calls[\s\S]*testing/);
    const logs = () => sink.events.filter((e) => e.type === 'log').length;
    const before = logs();
    await switchToText(s, 'again');
    assert.equal(logs(), before, 'a second switch is nothing');
  });
});

describe('one turn of each protocol', () => {
  test('a tool turn runs the calls through the real tools and keeps their results as observations', async () => {
    const { s } = await state();
    const outcome = await toolTurn(s, {
      content: null,
      toolCalls: [{ id: 'r1', name: 'read_file', arguments: JSON.stringify({ path: 'src/cart.js' }) }],
      finishReason: 'tool_calls',
    } as never);
    assert.equal(outcome, undefined);
    const last = s.messages.at(-1)!;
    assert.equal(last.role, 'tool');
    assert.match(String(last.content), /items\.length - 1/);
    assert.deepEqual(s.observationIndexes, [s.messages.length - 1]);
  });

  test('in auto, calls written as text count as malformed and move the run to text after textFallbackAfter', async () => {
    const { s } = await state({ protocol: { editProtocol: 'auto', textFallbackAfter: 2 } });
    const asText = { content: '{"name": "read_file", "arguments": {"path": "src/cart.js"}}', toolCalls: [], finishReason: 'stop' } as never;
    await toolTurn(s, asText);
    assert.equal(s.protocol, 'tools');
    await toolTurn(s, asText);
    assert.equal(s.protocol, 'text');
  });

  test('a text turn runs each action in order and answers with their results in one message', async () => {
    const { s } = await state({ protocol: { editProtocol: 'text' } });
    const outcome = await textTurn(s, 'READ src/cart.js\nLIST .');
    assert.equal(outcome, undefined);
    const last = String(s.messages.at(-1)!.content);
    assert.match(last, /^Results of your actions:/);
    assert.match(last, /### 1\.[\s\S]*items\.length - 1[\s\S]*### 2\./);
    assert.equal(s.usage.toolCalls, 2);
  });

  test('native calls in text mode read as the text actions they stand for', () => {
    assert.equal(toolCallAsTextLine({ id: 'x', name: 'read_file', arguments: '{"path":"a.ts","start_line":3}' }), 'READ a.ts 3-402');
    assert.equal(toolCallAsTextLine({ id: 'x', name: 'run_tests', arguments: '' }), 'RUN_TESTS');
    assert.equal(toolCallAsTextLine({ id: 'x', name: 'nope', arguments: '{}' }), '');
    assert.equal(toolCallAsTextLine({ id: 'x', name: 'read_file', arguments: '{not json' }), '');
    assert.equal(replyAsText({ content: 'thinking', toolCalls: [{ id: 'x', name: 'build', arguments: '{}' }] }), 'thinking\nBUILD');
  });
});
