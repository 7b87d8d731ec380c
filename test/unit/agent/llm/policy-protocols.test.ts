// The LLM policy's two edit protocols against the scripted model server and
// the real workspace and gates: the text protocol on its own, and `auto`
// moving from tool calls to text when they come back malformed, when the
// endpoint refuses tools, or when the model writes search/replace blocks.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLlmPolicy, type LlmProtocolOptions } from '@/agent/policies/llm';
import type { LlmClientOptions } from '@/agent/llm/client';
import { startScriptedModelServer, type Dialect, type RecordedRequest, type Script, type ScriptStep } from '@/e2e/doubles/scripted-model-server';
import { arraySink, BUGGY_CART, CART_TEST, createTempRepo, policyContext } from './temp-repo';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c();
});

async function setup(
  script: Script,
  {
    protocol,
    dialect = 'openai',
    toolsUnsupported,
    client = {},
    files,
  }: { protocol: LlmProtocolOptions; dialect?: Dialect; toolsUnsupported?: boolean; client?: Partial<LlmClientOptions>; files?: Record<string, string> },
) {
  const server = await startScriptedModelServer({ script, dialect, toolsUnsupported });
  const repo = await createTempRepo(
    files ? { 'src/cart.js': BUGGY_CART, 'test/cart.test.js': CART_TEST, 'package.json': '{"type":"module"}\n', ...files } : undefined,
  );
  cleanups.push(
    () => server.close(),
    () => repo.cleanup(),
  );
  const sink = arraySink();
  const ctx = policyContext({ repo, sink });
  const policy = createLlmPolicy({
    client: { baseURL: server.url, model: 'local-coder', apiKey: '', dialect, backoffBaseMs: 5, backoffMaxMs: 10, maxRetries: 0, ...client },
    protocol,
  });
  return { server, repo, sink, ctx, policy };
}

const text = (t: string, expect?: string[]): ScriptStep => ({
  kind: 'reply',
  text: t,
  ...(expect ? { expect: { resultIncludes: expect, resultExcludes: [] } } : {}),
});
const BLOCK = [
  'src/cart.js',
  '<<<<<<< SEARCH',
  '  for (let i = 0; i < items.length - 1; i++) {',
  '=======',
  '  for (let i = 0; i < items.length; i++) {',
  '>>>>>>> REPLACE',
].join('\n');
const lastUser = (r: RecordedRequest) => {
  const m = (r.body?.messages ?? []).filter((x) => x.role === 'user').at(-1);
  return typeof m?.content === 'string' ? m.content : '';
};
const logs = (events: Array<{ type: string; payload: Record<string, unknown> }>) =>
  events.filter((e) => e.type === 'log').map((e) => String(e.payload.message));

describe('LLM policy: text edit protocol', () => {
  test('text: READ, a search/replace block through the compile gate, RUN_TESTS, FINISH — no tools are ever sent', async () => {
    const { server, repo, sink, ctx, policy } = await setup(
      [
        text('The loop stops one short. READ src/cart.js 1-7 first.\nREAD src/cart.js 1-7'),
        text(`Found it.\n\n${BLOCK}\n\nRUN_TESTS`, ['i < items.length - 1']),
        text('FINISH The loop skipped the last item; it runs to items.length again.', ['passed the compile gate', 'Target tests PASSED']),
      ],
      { protocol: { editProtocol: 'text' }, dialect: 'llamacpp' },
    );
    const outcome = await policy.run(ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assert.equal(outcome.status === 'patched' && outcome.notes, 'The loop skipped the last item; it runs to items.length again.');
    assert.match(await readFile(join(repo.root, 'src/cart.js'), 'utf8'), /i < items\.length; i\+\+/);
    assert.ok(
      server.requests.every((r) => r.body?.tools === undefined),
      'no request carried tools',
    );
    assert.match(String(server.requests[0]!.body?.messages[0]?.content), /<<<<<<< SEARCH/, 'the system prompt teaches the block format');
    assert.ok(server.requests.every((r) => r.body?.messages.every((m) => m.role !== 'tool')));
    // every action is in the trajectory, with the gate's verdict for the edit
    const calls = sink.events.filter((e) => e.type === 'tool_call').map((e) => e.payload.name);
    assert.deepEqual(calls, ['read_file', 'search_replace', 'run_tests', 'finish']);
    const edit = sink.events.find((e) => e.type === 'observation' && e.payload.name === 'search_replace');
    assert.equal((edit?.payload.verdict as { gate: string; passed: boolean }).gate, 'compile');
    assert.equal(outcome.usage.toolCalls, 4);
  });

  test('text: a SEARCH that matches nowhere, one that matches twice and a path outside the workspace come back as results; nothing crashes', async () => {
    const { server, repo, ctx, policy } = await setup(
      [
        text(
          [
            'src/cart.js',
            '<<<<<<< SEARCH',
            'for (let j = 0; j < n; j++) {',
            '=======',
            'nothing',
            '>>>>>>> REPLACE',
            '',
            'src/labels.js',
            '<<<<<<< SEARCH',
            "  return '';",
            '=======',
            "  return 'none';",
            '>>>>>>> REPLACE',
            '',
            '../outside.js',
            '<<<<<<< SEARCH',
            '',
            '=======',
            'pwned',
            '>>>>>>> REPLACE',
          ].join('\n'),
        ),
        text(`${BLOCK}\nRUN_TESTS`, ['was not found in src/cart.js', 'occurs 2 times in src/labels.js (at lines 2, 5)', 'refused']),
        text('FINISH fixed the loop bound', ['Target tests PASSED']),
      ],
      { protocol: { editProtocol: 'text' }, files: { 'src/labels.js': "export function a(x) {\n  return '';\n}\nexport function b(x) {\n  return '';\n}\n" } },
    );
    const outcome = await policy.run(ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assert.match(lastUser(server.requests[1]!), /leaves the workspace/);
    assert.doesNotMatch(await readFile(join(repo.root, 'src/labels.js'), 'utf8'), /none/);
  });
});

describe('LLM policy: the same gates for both protocols', () => {
  test('an edit of a test file passes the compile gate with the warning that such a fix is dropped, in text as with tools', async () => {
    const weaken = [
      'test/cart.test.js',
      '<<<<<<< SEARCH',
      '  assert.equal(total([{ price: 2, qty: 2 }, { price: 3, qty: 1 }]), 7);',
      '=======',
      '  assert.ok(true);',
      '>>>>>>> REPLACE',
    ].join('\n');
    for (const protocol of ['text', 'tools'] as const) {
      const step: ScriptStep =
        protocol === 'text'
          ? text(weaken)
          : {
              kind: 'reply',
              toolCalls: [
                {
                  name: 'edit_file',
                  arguments: {
                    path: 'test/cart.test.js',
                    old_text: '  assert.equal(total([{ price: 2, qty: 2 }, { price: 3, qty: 1 }]), 7);',
                    new_text: '  assert.ok(true);',
                  },
                },
              ],
            };
      const { server, ctx, policy } = await setup([step, { kind: 'reply', text: 'I give up.' }, { kind: 'reply', text: 'Still nothing.' }], {
        protocol: { editProtocol: protocol },
      });
      const outcome = await policy.run({ ...ctx, isTestFile: (f) => f.startsWith('test/') });
      assert.equal(outcome.status === 'gave_up' && outcome.exitReason, 'no_candidate');
      const results = JSON.stringify(server.requests[1]!.body?.messages.slice(-2));
      assert.match(results, /passed the compile gate/, protocol);
      assert.match(results, /test\/cart\.test\.js is a test or test helper\. A fix that edits tests is dropped/, protocol);
    }
  });
});

describe('LLM policy: auto protocol falls back to text', () => {
  test('after textFallbackAfter malformed tool calls it switches for the rest of the run, and says so in the trajectory', async () => {
    const { server, sink, ctx, policy } = await setup(
      [
        { kind: 'reply', toolCalls: [{ name: 'edit_file', arguments: '{"path": "src/cart.js", "old_text": "i < items' }] },
        { kind: 'reply', toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.js' } }] },
        // from here on the model is told to write text
        (req) =>
          req.body?.tools === undefined && /<<<<<<< SEARCH/.test(String(req.body?.messages[0]?.content))
            ? text(`${BLOCK}\nRUN_TESTS`)
            : text('still asked for tools'),
        text('FINISH bound fixed', ['Target tests PASSED']),
      ],
      { protocol: { editProtocol: 'auto', textFallbackAfter: 2 }, dialect: 'vllm' },
    );
    const outcome = await policy.run(ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assert.ok(server.requests[0]!.body?.tools?.length, 'tools first');
    assert.ok(server.requests[1]!.body?.tools?.length);
    assert.equal(server.requests[2]!.body?.tools, undefined, 'text after two malformed calls');
    // the history was rewritten without tool roles, the malformed results kept as text
    assert.ok(server.requests[2]!.body?.messages.every((m) => m.role !== 'tool' && !m.tool_calls));
    assert.match(JSON.stringify(server.requests[2]!.body?.messages), /not valid JSON/);
    const switched = sink.events.find((e) => e.type === 'log' && /switched to text/.test(String(e.payload.message)));
    assert.ok(switched, logs(sink.events).join('\n'));
    assert.equal(switched!.payload.malformedToolCalls, 2);
    assert.equal(switched!.payload.from, 'tools');
    assert.equal(sink.events.filter((e) => e.type === 'observation' && e.payload.malformed === true).length, 2);
  });

  test('tools: the same malformed calls never switch (they go back to the model until the limit)', async () => {
    const { server, ctx, policy } = await setup(
      { steps: [{ kind: 'reply', toolCalls: [{ name: 'edit_file', arguments: '{bad' }] }], whenExhausted: 'repeat-last' },
      { protocol: { editProtocol: 'tools', textFallbackAfter: 1 } },
    );
    const outcome = await policy.run(ctx);
    assert.equal(outcome.status === 'gave_up' && outcome.exitReason, 'model_error');
    assert.ok(server.requests.every((r) => r.body?.tools?.length));
  });

  test('an endpoint that refuses the tools field (llama.cpp without --jinja) switches at once, without failing the run', async () => {
    const { server, sink, ctx, policy } = await setup([text(`${BLOCK}\nRUN_TESTS`), text('FINISH fixed', ['Target tests PASSED'])], {
      protocol: { editProtocol: 'auto' },
      dialect: 'llamacpp',
      toolsUnsupported: true,
    });
    const outcome = await policy.run(ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assert.equal(server.requests[0]!.step, 'tools_refused');
    assert.equal(server.requests[1]!.body?.tools, undefined);
    const switched = sink.events.find((e) => e.type === 'log' && /switched to text/.test(String(e.payload.message)));
    assert.match(String(switched?.payload.reason), /--jinja/);
  });

  test('a model that answers tools with search/replace blocks is taken at its word', async () => {
    const { server, ctx, policy } = await setup(
      [text(`I will edit directly.\n\n${BLOCK}`), text('RUN_TESTS', ['passed the compile gate']), text('FINISH fixed', ['PASSED'])],
      {
        protocol: { editProtocol: 'auto' },
        dialect: 'ollama',
      },
    );
    const outcome = await policy.run(ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assert.ok(server.requests[0]!.body?.tools?.length);
    assert.equal(server.requests[1]!.body?.tools, undefined);
  });

  test('a tool call written into the text counts as malformed and, repeated, switches to text', async () => {
    const leaked = '<tool_call>\n{"name": "edit_file", "arguments": {"path": "src/cart.js"}}\n</tool_call>';
    const { server, ctx, policy } = await setup([text(leaked), text(leaked), text(`${BLOCK}\nRUN_TESTS`), text('FINISH fixed', ['PASSED'])], {
      protocol: { editProtocol: 'auto', textFallbackAfter: 2 },
      dialect: 'vllm',
    });
    const outcome = await policy.run(ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assert.match(lastUser(server.requests[1]!), /came back as plain text/);
    assert.equal(server.requests[2]!.body?.tools, undefined);
  });
});

describe('LLM policy: context budget', () => {
  test('a small context window cuts observations and keeps the conversation under budget', async () => {
    const { server, ctx, policy } = await setup(
      [text('READ src/cart.js'), text('READ src/cart.js'), text('READ src/cart.js'), text(`${BLOCK}\nRUN_TESTS`), text('FINISH fixed', ['PASSED'])],
      { protocol: { editProtocol: 'text', contextTokens: 4096 } },
    );
    const outcome = await policy.run(ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    for (const r of server.requests) {
      const chars = JSON.stringify(r.body?.messages).length;
      assert.ok(chars / 4 < 4096, `request ${r.index} is ${chars} characters`);
    }
  });
});
