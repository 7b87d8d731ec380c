// A temporary JavaScript repository checked out through the real
// agent/workspace/workspace.ts, with the real gates (agent/gates/gates.ts) over it: no build
// step, `node --test` with a JUnit report as the target-test command, so the
// policy-loop tests stay fast.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { Workspace } from '@/agent/workspace/workspace';
import { createGates } from '@/agent/gates/gates';
import { RepositorySettingsSchema } from '@/common/settings';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { AgentEvent, CommandResult, EventSink, PolicyContext, PolicyGates, WorkspaceView } from '@/agent/types';

const run = promisify(execFile);

export const BUGGY_CART = `export function total(items) {
  let sum = 0;
  for (let i = 0; i < items.length - 1; i++) {
    sum += items[i].price * items[i].qty;
  }
  return sum;
}
`;

export const CART_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../src/cart.js';

test('total sums every line', () => {
  assert.equal(total([{ price: 2, qty: 2 }, { price: 3, qty: 1 }]), 7);
});
`;

export const TARGET_ID = 'test::total sums every line';

export interface TempRepo {
  root: string;
  gates: PolicyGates;
  workspace: WorkspaceView;
  cleanup(): Promise<void>;
}

async function git(root: string, args: string[]) {
  return run('git', args, {
    cwd: root,
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

export async function createTempRepo(
  files: Record<string, string> = { 'src/cart.js': BUGGY_CART, 'test/cart.test.js': CART_TEST, 'package.json': '{"type":"module"}\n' },
): Promise<TempRepo> {
  const source = await realpath(await mkdtemp(join(tmpdir(), 'flowfix-llm-src-')));
  for (const [file, content] of Object.entries(files)) {
    await mkdir(dirname(join(source, file)), { recursive: true });
    await writeFile(join(source, file), content);
  }
  await git(source, ['init', '-q']);
  await git(source, ['add', '-A']);
  await git(source, ['commit', '-q', '-m', 'head']);
  // the real per-run checkout (agent/workspace/workspace.ts): its path checks guard the tools
  const ws = await Workspace.create({ source, headRev: 'HEAD' });
  const root = ws.root;

  const settings = RepositorySettingsSchema.parse({
    language: 'javascript',
    test: 'node --test --test-reporter=tap --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=junit.xml test/cart.test.js',
    junitReport: 'junit.xml',
    timeLimits: { testSeconds: 60 },
  });
  // the pipeline's real gates; their own gate events go to a private sink
  const gates: PolicyGates = createGates({ workspace: ws, settings, targets: [{ id: TARGET_ID }], sink: { emit: async () => {} } });

  return {
    root,
    gates,
    workspace: ws,
    cleanup: async () => {
      await ws.dispose();
      await rm(source, { recursive: true, force: true });
    },
  };
}

export function arraySink(): EventSink & { events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  return {
    events,
    async emit(event) {
      events.push(event);
    },
  };
}

export function policyContext({
  repo,
  sink,
  signal,
  limits,
  description = 'Refactor the cart loop.',
}: {
  repo: TempRepo;
  sink: EventSink;
  signal?: AbortSignal;
  limits?: Partial<PolicyContext['limits']>;
  description?: string;
}): PolicyContext {
  const redCommand: CommandResult = {
    command: 'node --test test/',
    exitCode: 1,
    signal: null,
    timedOut: false,
    durationMs: 50,
    output: 'not ok 1 - total sums every line\n  expected: 7\n  actual: 4\n',
    truncatedBytes: 0,
  };
  return {
    change: {
      title: 'Cart: simplify total()',
      description,
      author: 'dev@example.com',
      diff: 'diff --git a/src/cart.js b/src/cart.js\n--- a/src/cart.js\n+++ b/src/cart.js\n@@ -1,3 +1,3 @@\n-  for (let i = 0; i < items.length; i++) {\n+  for (let i = 0; i < items.length - 1; i++) {\n',
      editedSpans: [{ file: 'src/cart.js', startLine: 3, endLine: 3 }],
      language: 'javascript',
    },
    evidence: {
      failingTests: [
        {
          id: 'test/cart.test.js::total sums every line',
          name: 'total sums every line',
          file: 'test/cart.test.js',
          message: 'Expected values to be strictly equal: 4 !== 7',
        },
      ],
      messages: ['Expected values to be strictly equal: 4 !== 7'],
      expectedActual: [{ testId: 'test/cart.test.js::total sums every line', expected: '7', actual: '4', operator: 'strictEqual' }],
      frames: [{ file: 'test/cart.test.js', line: 6, fn: 'TestContext.<anonymous>' }],
      symbols: ['total'],
    },
    suspects: [
      {
        file: 'src/cart.js',
        symbol: 'total',
        kind: 'function',
        startLine: 1,
        endLine: 7,
        score: 0.9,
        reasons: ['edited by the change', 'called by the failing test'],
      },
    ],
    targetTests: [TARGET_ID],
    redRun: { command: redCommand, results: [] },
    gates: repo.gates,
    workspace: repo.workspace,
    sink,
    signal: signal ?? new AbortController().signal,
    limits: { maxToolCalls: 100, deadline: Date.now() + 60_000, maxTokens: 1_000_000, maxCostUsd: 10, ...limits },
  };
}
