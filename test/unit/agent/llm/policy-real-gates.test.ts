// The LLM policy with the pipeline's real workspace and gates (agent/gates/gates.ts)
// on a real TypeScript repository: compile-gate diagnostics reach the model,
// and `finish` is judged by the real target-test run.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createGates } from '@/agent/gates/gates';
import { Workspace } from '@/agent/workspace/workspace';
import { createLlmPolicy } from '@/agent/policies/llm';
import type { PolicyContext } from '@/agent/types';
import { startScriptedModelServer, latestToolResults, type ScriptedModelServer } from '@/e2e/doubles/scripted-model-server';
import { createTsRepo, type TestRepo } from '../../../helpers/agent-repos';
import { arraySink } from './temp-repo';

const TARGET = 'test::cart > total multiplies price by quantity';

describe('LLM policy with the real gates', () => {
  let repo: TestRepo;
  let ws: Workspace;
  let server: ScriptedModelServer;

  before(async () => {
    repo = createTsRepo();
    ws = await Workspace.create({ source: repo.dir, headRev: repo.head });
  });
  after(async () => {
    await server?.close();
    await ws.dispose();
    repo.cleanup();
  });

  test('a type error is rejected with diagnostics, the model corrects it, and finish passes GREEN', async () => {
    server = await startScriptedModelServer({
      script: [
        {
          kind: 'reply',
          text: 'total() adds instead of multiplying.',
          toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.ts', old_text: 'item.price + item.qty', new_text: 'item.price * item.quantity' } }],
        },
        (req) => {
          const seen = latestToolResults(req)[0]?.content ?? '';
          // only a model that saw the diagnostic knows what to change
          return /REJECTED/.test(seen) && /quantity/.test(seen)
            ? {
                kind: 'reply',
                toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.ts', old_text: 'item.price + item.qty', new_text: 'item.price * item.qty' } }],
              }
            : { kind: 'reply', text: `unexpected observation: ${seen.slice(0, 200)}` };
        },
        { kind: 'reply', toolCalls: [{ name: 'run_tests', arguments: {} }] },
        { kind: 'reply', toolCalls: [{ name: 'finish', arguments: { summary: 'total() added price and quantity; it multiplies them again.' } }] },
      ],
    });
    const sink = arraySink();
    const gates = createGates({ workspace: ws, settings: repo.settings, targets: [{ id: TARGET }], sink });
    const red = await gates.runTargets('red', 'fail');
    const ctx: PolicyContext = {
      change: {
        title: 'Rework total',
        description: '',
        author: 'dev',
        diff: '',
        editedSpans: [{ file: 'src/cart.ts', startLine: 6, endLine: 12 }],
        language: 'typescript',
      },
      evidence: {
        failingTests: [{ id: TARGET, name: 'total multiplies price by quantity', message: '10 !== 17' }],
        messages: [],
        expectedActual: [],
        frames: [],
        symbols: ['total'],
      },
      suspects: [{ file: 'src/cart.ts', symbol: 'total', kind: 'function', startLine: 6, endLine: 12, score: 1, reasons: ['edited by the change'] }],
      targetTests: [TARGET],
      redRun: red.run,
      gates,
      workspace: ws,
      sink,
      signal: new AbortController().signal,
      limits: { maxToolCalls: 20, deadline: Date.now() + 120_000, maxTokens: 1_000_000, maxCostUsd: 5 },
    };
    const outcome = await createLlmPolicy({ client: { baseURL: server.url, model: 'm', apiKey: 'k' } }).run(ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assert.equal(outcome.usage.toolCalls, 4);
    assert.match(await gates.diff(), /^\+ {4}sum \+= item\.price \* item\.qty;$/m);
    const rejected = sink.events.find((e) => e.type === 'observation' && e.payload.name === 'edit_file');
    assert.equal(rejected?.payload.ok, false);
    assert.equal((rejected?.payload.verdict as { passed: boolean } | undefined)?.passed, false);
  });
});
