// The LLM policy end to end on a real corpus bug, through the production path:
// a run requested through the service, claimed by the worker, repaired by the
// ReAct loop against the scripted model double (the only stand-in: real
// HTTP, the real `openai` SDK), every gate on the way (compile gate with a
// rejected edit rolled back, GREEN, the regression suite, the final rerun on
// a clean checkout, the post filters), the fix and the cost stored.
//
// The conversation is e2e/doubles/scripts/ts-cart-shipping-threshold.conversation.json,
// played with native tool calls (Azure dialect, priced from the admin's
// price table), with the text protocol (llama.cpp dialect, streamed, no
// usage in the stream, no price: cost unknown), and in auto mode on vLLM
// after two malformed tool calls.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Prisma } from '@/lib/generated/prisma/client';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { requestRun } from '@/lib/runs/service';
import { stopRunQueue } from '@/lib/queue';
import { setModelPrices } from '@/lib/models/prices';
import { startWorker, type RunWorker } from '@/agent/worker/worker';
import { BUGS, buildBugRepo, projectOf, settingsFor, type BugRepo } from '@/bench/agent/corpus/index';
import {
  ConversationSchema,
  scriptFromConversation,
  startScriptedModelServer,
  type Dialect,
  type ScriptedModelServer,
} from '@/e2e/doubles/scripted-model-server';
import { checkedEvents, TERMINAL, waitFor } from '../runs/helpers';

// the worker reads the key from the environment (lib/env.ts, read on first use)
const MODEL_KEY = 'sk-recorded-repair-0123456789';
process.env.FLOWFIX_MODEL_API_KEY = MODEL_KEY;

// what the model double answers when asked for the root cause, with HTML a model could echo from the repository
const SUMMARY_REPLY =
  '<p>The <strong>shipping</strong> was charged at the threshold: <code>shippingCents</code> compared with <code>&gt;</code>.</p><script>alert(1)</script><p onerror="alert(2)">The fix compares with <code>&gt;=</code>.</p>';

const conversation = ConversationSchema.parse(JSON.parse(readFileSync('e2e/doubles/scripts/ts-cart-shipping-threshold.conversation.json', 'utf8')));
const bug = BUGS.find((b) => b.id === conversation.bug)!;

let db: TestDb;
let worker: RunWorker;
const repos: BugRepo[] = [];
const servers: ScriptedModelServer[] = [];

before(async () => {
  assert.ok(bug, `the corpus has the bug ${conversation.bug}`);
  // the model dialects and the pricing are this file's subject, not the database: one backend (the real server)
  db = await createTestDb({ kind: 'postgres' });
  worker = await startWorker({ concurrency: 1, leaseMs: 10_000, heartbeatMs: 250, pollMs: 100 });
});
after(async () => {
  await worker?.stop({ graceMs: 0 });
  await stopRunQueue();
  await Promise.all(servers.map((s) => s.close()));
  await db?.drop();
  await Promise.all(repos.map((r) => rm(r.dir, { recursive: true, force: true })));
});

/** The corpus bug as a registered repository with its failing change, the model settings pointing at the double. */
async function seedBug({ name, modelSettings }: { name: string; modelSettings: Record<string, unknown> }) {
  const repo = await buildBugRepo({ bug });
  repos.push(repo);
  const repository = await db.db.repository.create({
    data: {
      name,
      gitUrl: repo.dir,
      language: projectOf(bug).language,
      settings: settingsFor(projectOf(bug)) as unknown as Prisma.InputJsonValue,
      modelSettings: { policy: 'llm', ...modelSettings } as Prisma.InputJsonValue,
    },
  });
  const change = await db.db.change.create({
    data: {
      repositoryId: repository.id,
      externalId: name,
      title: bug.title,
      description: bug.description,
      author: 'dev',
      branch: 'feature',
      baseRev: repo.base,
      headRev: repo.head,
      failingTestCount: 1,
    },
  });
  const revision = await db.db.changeRevision.create({ data: { changeId: change.id, number: 1, baseRev: repo.base, headRev: repo.head, branch: 'feature' } });
  for (const testId of bug.failingTests) {
    await db.db.failure.create({
      data: { changeId: change.id, revisionId: revision.id, testId, testName: testId.replace(/^test::/, ''), message: 'shipping is charged at the threshold' },
    });
  }
  return { changeId: change.id };
}

async function repairThrough({
  dialect,
  server,
  modelSettings,
  name,
}: {
  dialect: Dialect;
  server: ScriptedModelServer;
  modelSettings: Record<string, unknown>;
  name: string;
}) {
  const { changeId } = await seedBug({ name, modelSettings: { model: 'coder-7b', baseUrl: server.url, dialect, maxToolCalls: 30, ...modelSettings } });
  const { runId } = await requestRun({ changeId, trigger: 'MANUAL', policy: 'llm', model: 'coder-7b' });
  const run = await waitFor(
    async () => {
      const r = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
      return TERMINAL.includes(r.status) ? r : undefined;
    },
    { what: `the ${dialect} run to finish`, timeoutMs: 180_000 },
  );
  const events = await checkedEvents(db.db, runId);
  const fixes = await db.db.fix.findMany({ where: { runId } });
  return { run, events, fixes };
}

type Events = Awaited<ReturnType<typeof checkedEvents>>;
const payload = (e: Events[number]) => e.payload as Record<string, unknown>;

/** What every repaired run must show, whatever the dialect and protocol. */
function assertRepairedWithEveryGate({ run, events, fixes }: Awaited<ReturnType<typeof repairThrough>>) {
  assert.equal(run.status, 'FIXED', `${run.exitReason}: ${run.exitDetail}`);
  assert.equal(run.exitReason, 'fixed');
  assert.equal(fixes.length, 1);
  assert.equal(fixes[0]!.status, 'READY');
  assert.match(fixes[0]!.diff, /^-\s+const free = subtotalCents > threshold;$/m);
  assert.match(fixes[0]!.diff, /^\+\s+const free = subtotalCents >= threshold;$/m);
  assert.deepEqual(fixes[0]!.files, ['src/cart.ts']);
  // the syntax error of turn 3 was rejected by the compile gate and rolled back; the fix passed it
  const compile = events.filter((e) => e.type === 'gate' && payload(e).gate === 'compile').map((e) => payload(e).passed);
  assert.deepEqual(compile.slice(0, 2), [false, true], JSON.stringify(compile));
  // every later gate ran and passed: GREEN (run_tests, finish), the regression suite, the final rerun
  for (const gate of ['green', 'regression', 'final']) {
    assert.ok(
      events.some((e) => e.type === 'gate' && payload(e).gate === gate && payload(e).passed === true),
      `a passing ${gate} gate`,
    );
  }
  assert.ok(run.toolCalls >= 6, `${run.toolCalls} tool calls`);
  assert.ok(run.promptTokens > 0 && run.completionTokens > 0);
}

describe(`the recorded repair of ${bug?.id ?? 'a corpus bug'}`, () => {
  test('native tool calls on the Azure dialect: deployment URL, api-version, api-key; priced from the admin table', async () => {
    const admin = await db.db.user.create({ data: { email: 'admin@prices.test', name: 'Admin', roles: ['ADMIN'] } });
    // priced under the name Azure answers with (the model behind the deployment)
    await setModelPrices({ actorId: admin.id, prices: { 'gpt-4o-2024-08-06': { inputPerMTokUsd: 2.5, outputPerMTokUsd: 10 } } });
    const server = await startScriptedModelServer({
      dialect: 'azure',
      apiKey: MODEL_KEY,
      azure: { deployments: ['repair-east'], modelName: 'gpt-4o-2024-08-06' },
      // the root cause is one more call after the fix, as on any server run with a model (agent/assemble.ts)
      script: [...scriptFromConversation(conversation, 'tools'), { kind: 'reply', text: SUMMARY_REPLY }],
    });
    servers.push(server);
    const result = await repairThrough({
      dialect: 'azure',
      server,
      name: 'azure-tools',
      modelSettings: { apiVersion: '2024-10-21', deployment: 'repair-east', editProtocol: 'tools' },
    });
    assertRepairedWithEveryGate(result);
    const { run, events, fixes } = result;
    assert.equal(server.requests.length, conversation.turns.length + 1);
    // the last call asks for the summary: no tools, the fix's diff in the data
    const summaryRequest = server.requests.at(-1)!;
    assert.equal(summaryRequest.body?.tools, undefined);
    assert.match(JSON.stringify(summaryRequest.body?.messages), /subtotalCents >= threshold/);
    // the model's summary is stored, sanitised: its words kept, its script and handler gone
    assert.match(fixes[0]!.summaryHtml, /<strong>shipping<\/strong> was charged at the threshold/);
    assert.doesNotMatch(fixes[0]!.summaryHtml, /<script|onerror|alert\(/);
    assert.equal((fixes[0]!.evidence as { summarySource?: string }).summarySource, 'model');
    for (const r of server.requests) {
      assert.equal(r.path, '/openai/deployments/repair-east/chat/completions');
      assert.equal(r.query['api-version'], '2024-10-21');
      assert.equal(r.apiKeyHeader, MODEL_KEY);
      assert.equal(r.authorization, undefined);
    }
    assert.ok(
      server.requests.slice(0, -1).every((r) => r.body?.tools?.length),
      'native tools were sent on every turn of the repair',
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'tool_call').map((e) => payload(e).name),
      ['search_code', 'read_file', 'edit_file', 'edit_file', 'run_tests', 'finish'],
    );
    // cost from the admin's price table, on the tokens Azure reported
    const expected = (run.promptTokens * 2.5 + run.completionTokens * 10) / 1e6;
    assert.ok(run.costUsd !== null && Math.abs(run.costUsd - expected) < 1e-9, `${run.costUsd} vs ${expected}`);
    assert.ok(events.filter((e) => e.type === 'usage').every((e) => payload(e).source === 'reported' && payload(e).priced === true));
    // the key never reached the trajectory
    assert.doesNotMatch(JSON.stringify(events), new RegExp(MODEL_KEY));
  });

  test('the text protocol on the llama.cpp dialect, streamed: no tools sent, tokens from timings, cost unknown (null, not 0)', async () => {
    const server = await startScriptedModelServer({
      dialect: 'llamacpp',
      apiKey: MODEL_KEY,
      script: [...scriptFromConversation(conversation, 'text'), { kind: 'reply', text: SUMMARY_REPLY }],
    });
    servers.push(server);
    const result = await repairThrough({
      dialect: 'llamacpp',
      server,
      name: 'llamacpp-text',
      modelSettings: { editProtocol: 'text', stream: true, contextTokens: 8192 },
    });
    assertRepairedWithEveryGate(result);
    const { run, events } = result;
    assert.equal(server.requests.length, conversation.turns.length + 1, 'the turns, then the summary');
    for (const r of server.requests) {
      assert.equal(r.path, '/v1/chat/completions');
      assert.equal(r.authorization, `Bearer ${MODEL_KEY}`);
      assert.equal(r.body?.tools, undefined, 'no tools in the text protocol');
      assert.equal(r.body?.stream, true);
      assert.ok(JSON.stringify(r.body?.messages).length / 4 < 8192, 'under the context window');
    }
    assert.deepEqual(
      events.filter((e) => e.type === 'tool_call').map((e) => payload(e).name),
      ['search_code', 'read_file', 'search_replace', 'search_replace', 'run_tests', 'finish'],
    );
    assert.ok(events.filter((e) => e.type === 'usage').every((e) => payload(e).source === 'timings'));
    assert.equal(run.costUsd, null, 'no price for coder-7b: the cost is unknown');
    const final = payload(events.at(-1)!);
    assert.equal((final.usage as { costUsd: unknown }).costUsd, null);
    assert.ok(events.some((e) => e.type === 'log' && /no price for model coder-7b/.test(String(payload(e).message))));
  });

  test('auto on the vLLM dialect: two malformed tool calls, then the rest of the run in text, recorded in the trajectory', async () => {
    const server = await startScriptedModelServer({
      dialect: 'vllm',
      script: [...scriptFromConversation(conversation, 'text', { malformedFirst: 2 }), { kind: 'reply', text: SUMMARY_REPLY }],
    });
    servers.push(server);
    const result = await repairThrough({ dialect: 'vllm', server, name: 'vllm-auto', modelSettings: { editProtocol: 'auto', textFallbackAfter: 2 } });
    assertRepairedWithEveryGate(result);
    const { events } = result;
    assert.ok(server.requests[0]!.body?.tools?.length && server.requests[1]!.body?.tools?.length);
    assert.ok(server.requests.slice(2).every((r) => r.body?.tools === undefined));
    const switched = events.find((e) => e.type === 'log' && /switched to text/.test(String(payload(e).message)));
    assert.ok(switched, 'the switch is in the trajectory');
    assert.equal(payload(switched).malformedToolCalls, 2);
    assert.equal(events.filter((e) => e.type === 'observation' && payload(e).malformed === true).length, 2);
  });
});
