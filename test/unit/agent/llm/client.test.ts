import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { LlmClient, LlmError, backoffDelayMs, llmClientOptionsFromSettings, parseRetryAfterMs, type LlmClientOptions } from '@/agent/llm/client';
import { ModelSettingsSchema } from '@/common/settings';
import { startScriptedModelServer, type Script, type ScriptedModelServer } from '@/e2e/doubles/scripted-model-server';

const KEY = 'sk-test-secret-key-0123456789';
const servers: ScriptedModelServer[] = [];
after(async () => Promise.all(servers.map((s) => s.close())));

async function serve(script: Script, extra: { apiKey?: string } = {}) {
  const server = await startScriptedModelServer({ script, ...extra });
  servers.push(server);
  return server;
}

function clientFor(server: ScriptedModelServer, options: Partial<LlmClientOptions> = {}) {
  return new LlmClient({ baseURL: server.url, model: 'test-model', apiKey: KEY, backoffBaseMs: 10, backoffMaxMs: 50, ...options });
}

const tools = [
  { type: 'function' as const, function: { name: 'read_file', description: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
];

describe('LlmClient against the scripted server (real openai SDK, real HTTP)', () => {
  for (const stream of [false, true]) {
    test(`returns text, tool calls, usage and cost (${stream ? 'SSE stream' : 'JSON'})`, async () => {
      const server = await serve(
        [
          {
            kind: 'reply',
            text: 'Reading the file first.',
            toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }],
            usage: { promptTokens: 1000, completionTokens: 200 },
          },
        ],
        { apiKey: KEY },
      );
      const client = clientFor(server, { stream, prices: { 'test-model': { inputPerMTok: 3, outputPerMTok: 15 } } });
      const result = await client.complete({ messages: [{ role: 'user', content: 'fix it' }], tools });
      assert.equal(result.content, 'Reading the file first.');
      assert.equal(result.toolCalls.length, 1);
      assert.equal(result.toolCalls[0]?.name, 'read_file');
      assert.deepEqual(JSON.parse(result.toolCalls[0]!.arguments), { path: 'src/a.ts' });
      assert.equal(result.finishReason, 'tool_calls');
      assert.deepEqual(result.usage, { promptTokens: 1000, completionTokens: 200, costUsd: 0.006, priced: true, source: 'reported' });
      assert.equal(result.attempts, 1);
      const sent = server.requests[0]!;
      assert.equal(sent.authorization, `Bearer ${KEY}`);
      assert.equal(sent.body?.model, 'test-model');
      assert.equal(sent.body?.temperature, 0.1);
      assert.equal(sent.body?.top_p, 0.95);
      assert.equal(sent.body?.stream, stream);
      assert.equal(sent.body?.tools?.[0]?.function.name, 'read_file');
    });
  }

  test('cost is unknown (null, never 0) and marked unpriced when the model has no price', async () => {
    const server = await serve([{ kind: 'reply', text: 'hi', usage: { promptTokens: 10, completionTokens: 5 } }]);
    const result = await clientFor(server, { prices: { 'another-model': { inputPerMTok: 1, outputPerMTok: 1 } } }).complete({
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.deepEqual(result.usage, { promptTokens: 10, completionTokens: 5, costUsd: null, priced: false, source: 'reported' });
  });

  test('429 with Retry-After is retried no sooner than asked, then succeeds', async () => {
    const server = await serve([
      { kind: 'error', status: 429, retryAfter: 0.3, message: 'Rate limit reached' },
      { kind: 'reply', text: 'ok' },
    ]);
    const notices: Array<{ delayMs: number; reason: string }> = [];
    const started = Date.now();
    const result = await clientFor(server).complete({ messages: [{ role: 'user', content: 'x' }], onRetry: (n) => notices.push(n) });
    assert.equal(result.content, 'ok');
    assert.equal(result.attempts, 2);
    assert.equal(server.requests.length, 2);
    assert.equal(notices.length, 1);
    assert.ok(notices[0]!.delayMs >= 300, `delay ${notices[0]!.delayMs}`);
    assert.match(notices[0]!.reason, /429/);
    assert.ok(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt >= 290);
    assert.ok(Date.now() - started >= 300);
  });

  test('5xx answers are retried with backoff until success', async () => {
    const server = await serve([
      { kind: 'error', status: 500 },
      { kind: 'error', status: 503 },
      { kind: 'reply', text: 'third time' },
    ]);
    const result = await clientFor(server).complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(result.content, 'third time');
    assert.equal(result.attempts, 3);
  });

  test('gives up after maxRetries with an LlmError naming the status', async () => {
    const server = await serve({ steps: [{ kind: 'error', status: 502 }], whenExhausted: 'repeat-last' });
    await assert.rejects(clientFor(server, { maxRetries: 2 }).complete({ messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
      assert.ok(e instanceof LlmError);
      assert.equal(e.kind, 'http');
      assert.equal(e.status, 502);
      assert.equal(e.attempts, 3);
      return true;
    });
    assert.equal(server.requests.length, 3);
  });

  test('a 400 is not retried', async () => {
    const server = await serve([
      { kind: 'error', status: 400, message: 'bad tool schema' },
      { kind: 'reply', text: 'never' },
    ]);
    await assert.rejects(
      clientFor(server).complete({ messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof LlmError && e.status === 400 && e.attempts === 1,
    );
    assert.equal(server.requests.length, 1);
  });

  test('a Retry-After beyond the bound fails instead of waiting', async () => {
    const server = await serve([
      { kind: 'error', status: 429, retryAfter: 3600 },
      { kind: 'reply', text: 'never' },
    ]);
    await assert.rejects(
      clientFor(server, { maxRetryAfterMs: 5_000 }).complete({ messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof LlmError && e.kind === 'retry_after_too_long',
    );
    assert.equal(server.requests.length, 1);
  });

  test('a request that hangs past the timeout is abandoned (connection closed) and retried', async () => {
    const server = await serve([{ kind: 'hang' }, { kind: 'reply', text: 'after the hang' }]);
    const result = await clientFor(server, { requestTimeoutMs: 300 }).complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(result.content, 'after the hang');
    assert.equal(result.attempts, 2);
    await server.requests[0]!.closed;
    assert.equal(server.requests[0]!.closedByClient, true);
  });

  test('a slow answer (delayMs) within the timeout is waited for; beyond it, it is retried', async () => {
    const server = await serve([
      { kind: 'reply', text: 'slow but in time', delayMs: 150 },
      { kind: 'reply', text: 'too slow', delayMs: 2_000 },
      { kind: 'reply', text: 'quick' },
    ]);
    const client = clientFor(server, { requestTimeoutMs: 600 });
    const first = await client.complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(first.content, 'slow but in time');
    assert.equal(first.attempts, 1);
    const second = await client.complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(second.content, 'quick');
    assert.equal(second.attempts, 2);
  });

  test('a streamed answer that stalls after its headers still hits the timeout', async () => {
    // the SDK's own timeout stops at the response headers; ours must cover the body
    const server = await serve({ steps: [{ kind: 'reply', text: 'partial answer', stallAfterChunks: 2 }], whenExhausted: 'repeat-last' });
    await assert.rejects(
      clientFor(server, { requestTimeoutMs: 200, maxRetries: 1, stream: true }).complete({ messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof LlmError && e.kind === 'timeout' && e.attempts === 2,
    );
  });

  test('the run deadline bounds the attempt even when the request timeout is longer', async () => {
    const server = await serve([{ kind: 'hang' }]);
    const started = Date.now();
    await assert.rejects(
      clientFor(server, { requestTimeoutMs: 60_000 }).complete({ messages: [{ role: 'user', content: 'x' }], deadline: Date.now() + 250 }),
      (e: unknown) => e instanceof LlmError && e.kind === 'timeout',
    );
    assert.ok(Date.now() - started < 5_000);
  });

  test('aborting the signal aborts the request in flight: the server sees the connection close', async () => {
    const server = await serve([{ kind: 'hang' }]);
    const controller = new AbortController();
    const pending = clientFor(server).complete({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof LlmError && e.kind === 'aborted');
    await server.requests[0]!.closed;
    assert.equal(server.requests[0]!.closedByClient, true);
  });

  test('aborting a stream half-way rejects instead of returning the partial answer', async () => {
    const server = await serve([{ kind: 'reply', text: 'partial answer that never ends', stallAfterChunks: 2 }]);
    const controller = new AbortController();
    const pending = clientFor(server, { stream: true }).complete({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal });
    await server.waitForRequests(1);
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(pending, (e: unknown) => e instanceof LlmError && e.kind === 'aborted');
    await server.requests[0]!.closed;
    assert.equal(server.requests[0]!.closedByClient, true);
  });

  test('aborting during a backoff wait stops at once without another request', async () => {
    const server = await serve([
      { kind: 'error', status: 429, retryAfter: 30 },
      { kind: 'reply', text: 'never' },
    ]);
    const controller = new AbortController();
    const pending = clientFor(server).complete({
      messages: [{ role: 'user', content: 'x' }],
      signal: controller.signal,
      onRetry: () => setImmediate(() => controller.abort()),
    });
    await assert.rejects(pending, (e: unknown) => e instanceof LlmError && e.kind === 'aborted');
    assert.equal(server.requests.length, 1);
  });

  test('the key is not kept on the client where it could be logged', async () => {
    const server = await serve([{ kind: 'reply', text: 'x' }]);
    const client = clientFor(server);
    assert.doesNotMatch(JSON.stringify(client) + JSON.stringify(client.options) + inspect(client, { depth: 5 }), new RegExp(KEY));
  });

  test('the API key never appears in an error', async () => {
    const server = await serve([{ kind: 'reply', text: 'x' }], { apiKey: 'a-different-key' });
    await assert.rejects(clientFor(server).complete({ messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
      assert.ok(e instanceof LlmError);
      assert.equal(e.status, 401);
      assert.doesNotMatch(`${e.message} ${String(e.cause)} ${JSON.stringify(e)}`, new RegExp(KEY));
      return true;
    });
  });
});

describe('client options from settings', () => {
  test('no endpoint or no model configured: no client', () => {
    const settings = ModelSettingsSchema.parse({});
    assert.equal(llmClientOptionsFromSettings({ settings, env: {} as never }), undefined);
    assert.equal(llmClientOptionsFromSettings({ settings, env: { FLOWFIX_MODEL_BASE_URL: 'http://x/v1' } as never }), undefined);
  });

  test('repository settings win over the environment; prices are mapped; the key comes from the environment', () => {
    const settings = ModelSettingsSchema.parse({
      model: 'big',
      temperature: 0.2,
      requestTimeoutSeconds: 30,
      prices: { big: { inputPerMTokUsd: 1, outputPerMTokUsd: 2 } },
    });
    const options = llmClientOptionsFromSettings({
      settings,
      env: { FLOWFIX_MODEL_BASE_URL: 'http://x/v1', FLOWFIX_MODEL: 'small', FLOWFIX_MODEL_API_KEY: 'sk-env' },
    });
    assert.deepEqual(options, {
      baseURL: 'http://x/v1',
      model: 'big',
      apiKey: 'sk-env',
      dialect: 'openai',
      stream: false,
      temperature: 0.2,
      topP: 0.95,
      maxRetries: 4,
      requestTimeoutMs: 30_000,
      prices: { big: { inputPerMTok: 1, outputPerMTok: 2 } },
    });
  });
});

describe('retry arithmetic', () => {
  test('Retry-After in seconds, HTTP date and retry-after-ms', () => {
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after-ms': '150' })), 150);
    const now = Date.parse('2030-01-01T00:00:00Z');
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:05 GMT' }), now), 5000);
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(parseRetryAfterMs(new Headers()), undefined);
  });

  test('backoff doubles, is capped, and keeps at least half of its ceiling', () => {
    assert.equal(backoffDelayMs({ attempt: 1, baseMs: 1000, maxMs: 30_000, random: () => 0 }), 500);
    assert.equal(backoffDelayMs({ attempt: 3, baseMs: 1000, maxMs: 30_000, random: () => 1 }), 4000);
    assert.equal(backoffDelayMs({ attempt: 10, baseMs: 1000, maxMs: 30_000, random: () => 1 }), 30_000);
    assert.equal(backoffDelayMs({ attempt: 10, baseMs: 1000, maxMs: 30_000, random: () => 0 }), 15_000);
  });
});
