// Each model dialect end to end at the wire: the real `openai` SDK (AzureOpenAI
// for Azure) built from a model setting talks over real HTTP to the scripted
// model server speaking that dialect.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { LlmClient, LlmError, llmClientOptionsFromSettings } from '@/agent/llm/client';
import { normaliseBaseUrl, readTokenCounts, refusesTools } from '@/agent/llm/dialects';
import { ModelSettingsSchema } from '@/common/settings';
import { startScriptedModelServer, type Dialect, type ScriptStep, type ScriptedModelServer, type StartOptions } from '@/e2e/doubles/scripted-model-server';

const KEY = 'sk-dialect-secret-0123456789';
const servers: ScriptedModelServer[] = [];
after(async () => Promise.all(servers.map((s) => s.close())));

async function serve(options: StartOptions) {
  const server = await startScriptedModelServer(options);
  servers.push(server);
  return server;
}

const tools = [
  { type: 'function' as const, function: { name: 'read_file', description: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  { type: 'function' as const, function: { name: 'run_tests', description: 'run', parameters: { type: 'object', properties: {} } } },
];

const REPLY: ScriptStep = {
  kind: 'reply',
  text: 'Reading, then testing.',
  toolCalls: [
    { name: 'read_file', arguments: { path: 'src/cart.ts' } },
    { name: 'run_tests', arguments: {} },
  ],
  usage: { promptTokens: 1200, completionTokens: 300 },
};

/** `key: null`: no FLOWFIX_MODEL_API_KEY configured */
function clientFor(server: ScriptedModelServer, settings: Record<string, unknown>, { key = KEY }: { key?: string | null } = {}) {
  const options = llmClientOptionsFromSettings({
    settings: ModelSettingsSchema.parse({ baseUrl: server.url, model: 'coder', ...settings }),
    env: (key === null ? {} : { FLOWFIX_MODEL_API_KEY: key }) as never,
    priceTable: { coder: { inputPerMTokUsd: 1, outputPerMTokUsd: 2 } },
  });
  assert.ok(options);
  return new LlmClient({ ...options, backoffBaseMs: 5, backoffMaxMs: 10 });
}

const SETTINGS: Record<Dialect, Record<string, unknown>> = {
  openai: { dialect: 'openai' },
  azure: { dialect: 'azure', apiVersion: '2024-10-21', deployment: 'coder-east' },
  vllm: { dialect: 'vllm' },
  ollama: { dialect: 'ollama' },
  llamacpp: { dialect: 'llamacpp' },
};

describe('model dialects through the real SDK (scripted model server speaking each)', () => {
  for (const dialect of ['openai', 'azure', 'vllm', 'ollama', 'llamacpp'] as const) {
    for (const stream of [false, true]) {
      test(`${dialect} ${stream ? 'stream' : 'JSON'}: URL, auth, tool calls, usage and cost`, async () => {
        const keyless = dialect === 'ollama';
        const server = await serve({ script: [REPLY], dialect, ...(keyless ? {} : { apiKey: KEY }), azure: { deployments: ['coder-east'] } });
        const client = clientFor(server, { ...SETTINGS[dialect], stream }, { key: keyless ? null : KEY });
        const result = await client.complete({ messages: [{ role: 'user', content: 'fix the cart' }], tools });

        assert.equal(result.content, 'Reading, then testing.');
        assert.deepEqual(
          result.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]),
          [
            ['read_file', { path: 'src/cart.ts' }],
            ['run_tests', {}],
          ],
        );
        assert.equal(new Set(result.toolCalls.map((c) => c.id)).size, 2, 'two distinct call ids');
        const sent = server.requests[0]!;
        assert.equal(sent.body?.stream, stream);
        // tokens: reported, or (llama.cpp streams) read from timings — never guessed here
        assert.equal(result.usage.promptTokens, 1200);
        assert.equal(result.usage.completionTokens, 300);
        assert.equal(result.usage.source, dialect === 'llamacpp' && stream ? 'timings' : 'reported');
        assert.equal(result.usage.priced, true);
        assert.ok(Math.abs((result.usage.costUsd ?? NaN) - (1200 * 1 + 300 * 2) / 1e6) < 1e-12);

        if (dialect === 'azure') {
          assert.equal(sent.path, '/openai/deployments/coder-east/chat/completions');
          assert.equal(sent.deployment, 'coder-east');
          assert.equal(sent.query['api-version'], '2024-10-21');
          assert.equal(sent.apiKeyHeader, KEY, 'Azure takes the key in the api-key header');
          assert.equal(sent.authorization, undefined, 'and no Bearer header');
          // the answer names the model behind the deployment
          assert.equal(result.model, 'gpt-4o-2024-08-06');
        } else {
          assert.equal(sent.path, '/v1/chat/completions');
          assert.equal(sent.authorization, keyless ? undefined : `Bearer ${KEY}`, keyless ? 'no key configured: no Authorization header at all' : 'Bearer key');
          assert.equal(result.model, 'coder');
        }
        if (stream) {
          // llama.cpp reports tokens in timings whatever is asked; everyone else is asked for the usage chunk
          assert.deepEqual(sent.body?.stream_options, dialect === 'llamacpp' ? undefined : { include_usage: true });
        }
      });
    }
  }

  test('azure: an api-version before 2024-09-01 gets no stream_options (it would answer 400); tokens are then estimated', async () => {
    const server = await serve({ script: [{ kind: 'reply', text: 'x'.repeat(400) }], dialect: 'azure', apiKey: KEY });
    const client = clientFor(server, { dialect: 'azure', apiVersion: '2024-06-01', stream: true });
    const result = await client.complete({ messages: [{ role: 'user', content: 'y'.repeat(800) }] });
    assert.equal(server.requests[0]!.body?.stream_options, undefined);
    assert.equal(server.requests[0]!.deployment, 'coder', 'the deployment defaults to the model');
    assert.equal(result.usage.source, 'estimated');
    assert.equal(result.usage.completionTokens, 100);
    assert.ok(result.usage.promptTokens >= 200, `${result.usage.promptTokens}`);
  });

  test('azure: a wrong key is a 401 that never shows the key; an unknown deployment a 404', async () => {
    const server = await serve({ script: [{ kind: 'reply', text: 'no' }], dialect: 'azure', apiKey: 'the-right-key', azure: { deployments: ['other'] } });
    await assert.rejects(clientFor(server, SETTINGS.azure).complete({ messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
      assert.ok(e instanceof LlmError);
      assert.equal(e.status, 401);
      assert.doesNotMatch(`${e.message} ${JSON.stringify(e)}`, new RegExp(KEY));
      return true;
    });
    const right = await serve({ script: [{ kind: 'reply', text: 'no' }], dialect: 'azure', apiKey: KEY, azure: { deployments: ['other'] } });
    await assert.rejects(
      clientFor(right, SETTINGS.azure).complete({ messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof LlmError && e.status === 404,
    );
  });

  test('vllm: without include_usage a stream carries no usage, so the client always asks', async () => {
    const server = await serve({ script: [{ kind: 'reply', text: 'ok', usage: { promptTokens: 7, completionTokens: 3 } }], dialect: 'vllm' });
    const raw = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.doesNotMatch(await raw.text(), /"usage":\{/);
  });

  test('ollama: the server root becomes its /v1 API; llama.cpp keeps a /v1 base as given', () => {
    assert.equal(normaliseBaseUrl('ollama', 'http://gpu-box:11434'), 'http://gpu-box:11434/v1');
    assert.equal(normaliseBaseUrl('ollama', 'http://gpu-box:11434/v1/'), 'http://gpu-box:11434/v1');
    assert.equal(normaliseBaseUrl('llamacpp', 'http://127.0.0.1:8080/v1'), 'http://127.0.0.1:8080/v1');
    assert.equal(normaliseBaseUrl('azure', 'https://res.openai.azure.com/openai/'), 'https://res.openai.azure.com');
  });

  for (const dialect of ['vllm', 'llamacpp', 'ollama'] as const) {
    test(`${dialect}: a server that cannot take tools answers 400, which the policy reads as "switch to text"`, async () => {
      const server = await serve({ script: [{ kind: 'reply', text: 'ok' }], dialect, toolsUnsupported: true });
      const client = clientFor(server, { ...SETTINGS[dialect] }, { key: null });
      const error = await client.complete({ messages: [{ role: 'user', content: 'x' }], tools }).then(
        () => assert.fail('the tools request was accepted'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof LlmError);
      assert.equal(error.status, 400);
      assert.ok(refusesTools(error), error.message);
      // the same server answers a request without tools
      assert.equal((await client.complete({ messages: [{ role: 'user', content: 'x' }] })).content, 'ok');
    });
  }

  test('settings: azure needs an apiVersion, and only azure takes one', () => {
    assert.match(JSON.stringify(ModelSettingsSchema.safeParse({ dialect: 'azure' }).error?.issues), /apiVersion/);
    assert.equal(ModelSettingsSchema.safeParse({ dialect: 'vllm', apiVersion: '2024-10-21' }).success, false);
    assert.equal(ModelSettingsSchema.safeParse({ dialect: 'azure', apiVersion: 'latest' }).success, false);
    assert.equal(ModelSettingsSchema.safeParse({ dialect: 'azure', apiVersion: '2025-01-01-preview', deployment: 'gpt4o-prod' }).success, true);
  });

  test('token counts: reported usage first, then llama.cpp timings (cache included), then an estimate', () => {
    const text = () => 'x'.repeat(40);
    assert.deepEqual(
      readTokenCounts({ usage: { prompt_tokens: 5, completion_tokens: 2 }, timings: { prompt_n: 1, predicted_n: 1 }, promptText: text, completionText: '' }),
      {
        promptTokens: 5,
        completionTokens: 2,
        source: 'reported',
      },
    );
    assert.deepEqual(readTokenCounts({ usage: null, timings: { prompt_n: 10, cache_n: 90, predicted_n: 4 }, promptText: text, completionText: '' }), {
      promptTokens: 100,
      completionTokens: 4,
      source: 'timings',
    });
    assert.deepEqual(readTokenCounts({ usage: undefined, timings: undefined, promptText: text, completionText: 'abcdefgh' }), {
      promptTokens: 10,
      completionTokens: 2,
      source: 'estimated',
    });
  });
});
