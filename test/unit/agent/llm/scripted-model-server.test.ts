import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { LlmClient, LlmError } from '@/agent/llm/client';
import { startScriptedModelServer, type ScriptedModelServer } from '@/e2e/doubles/scripted-model-server';

const servers: ScriptedModelServer[] = [];
after(async () => Promise.all(servers.map((s) => s.close())));

async function serve(...args: Parameters<typeof startScriptedModelServer>) {
  const server = await startScriptedModelServer(...args);
  servers.push(server);
  return server;
}

const post = (url: string, body: string) => fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('scripted model server (test double) protocol', () => {
  test('rejects a history whose tool calls were not all answered, as the hosted API does', async () => {
    const server = await serve({ script: [{ kind: 'reply', text: 'never' }] });
    const res = await post(
      server.url,
      JSON.stringify({
        model: 'm',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'a', arguments: '{}' } }] },
          { role: 'user', content: 'y' },
        ],
      }),
    );
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { type: string; message: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /call_1/);
  });

  test('unparseable JSON, unknown URLs and an exhausted script answer with OpenAI-shaped errors', async () => {
    const server = await serve({ script: [{ kind: 'reply', text: 'one' }] });
    assert.equal((await post(server.url, '{nope')).status, 400);
    const missing = await fetch(`${server.url}/embeddings`, { method: 'POST' });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'unknown_url');
    const ok = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    assert.equal((await post(server.url, JSON.stringify(ok))).status, 200);
    const exhausted = await post(server.url, JSON.stringify(ok));
    assert.equal(exhausted.status, 500);
    assert.match(((await exhausted.json()) as { error: { message: string } }).error.message, /script exhausted/);
  });

  test('azure: /__requests never serves the api-key header; a request without api-version is refused', async () => {
    const server = await serve({ script: [{ kind: 'reply', text: 'ok' }], dialect: 'azure', apiKey: 'azure-secret-key' });
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const headers = { 'content-type': 'application/json', 'api-key': 'azure-secret-key' };
    const missing = await fetch(`${server.url}/openai/deployments/d/chat/completions`, { method: 'POST', headers, body });
    assert.equal(missing.status, 400);
    const ok = await fetch(`${server.url}/openai/deployments/d/chat/completions?api-version=2024-10-21`, { method: 'POST', headers, body });
    assert.equal(ok.status, 200);
    assert.equal(server.requests.at(-1)!.apiKeyHeader, 'azure-secret-key');
    const served = await (await fetch(`${server.url}/__requests`)).text();
    assert.match(served, /"deployment":"d"/);
    assert.doesNotMatch(served, /azure-secret-key/);
  });

  test('an expectation that the latest results do not meet answers 400 and names what was missing', async () => {
    const server = await serve({ script: [{ kind: 'reply', expect: { resultIncludes: ['PASSED'], resultExcludes: [] }, text: 'never' }] });
    const res = await post(server.url, JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Target tests FAILED' }] }));
    assert.equal(res.status, 400);
    const error = ((await res.json()) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'scripted_expectation_failed');
    assert.match(error.message, /missing "PASSED"; the latest results were: Target tests FAILED/);
  });

  test('a raw step sends any body: a proxy error page is an error the client retries', async () => {
    const server = await serve({
      script: [
        { kind: 'raw', status: 502, contentType: 'text/html', body: '<html>Bad gateway</html>' },
        { kind: 'reply', text: 'fine' },
      ],
    });
    const client = new LlmClient({ baseURL: server.url, model: 'm', apiKey: 'k', backoffBaseMs: 5 });
    const result = await client.complete({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(result.content, 'fine');
    assert.equal(result.attempts, 2);
  });

  test('a 200 with a truncated JSON body is an error, not an answer', async () => {
    const server = await serve({ script: [{ kind: 'raw', status: 200, body: '{"id": "x", "choices": [' }] });
    const client = new LlmClient({ baseURL: server.url, model: 'm', apiKey: 'k', maxRetries: 0 });
    await assert.rejects(client.complete({ messages: [{ role: 'user', content: 'x' }] }), LlmError);
  });

  test('CLI: serves a JSON script file and lists the requests it received', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'e2e/doubles/scripted-model-server.ts', '--port', '0', '--script', 'e2e/doubles/scripts/example.json'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const lines = createInterface({ input: child.stdout! });
      const [line] = (await once(lines, 'line')) as [string];
      const url = /^SCRIPTED_MODEL_SERVER_URL=(http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(line)?.[1];
      assert.ok(url, line);
      const client = new LlmClient({ baseURL: url, model: 'demo', apiKey: 'cli-key', backoffBaseMs: 5 });
      const result = await client.complete({ messages: [{ role: 'user', content: 'fix' }] });
      assert.equal(result.toolCalls[0]?.name, 'read_file');
      assert.equal(result.attempts, 2); // the script starts with a 429
      const recorded = (await (await fetch(url.replace(/\/v1$/, '/__requests'))).json()) as Array<Record<string, unknown>>;
      assert.deepEqual(
        recorded.map((r) => r.step),
        ['error', 'reply'],
      );
      assert.equal(JSON.stringify(recorded).includes('cli-key'), false, 'the auth header is not served');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
