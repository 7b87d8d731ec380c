// A temporary git repository checked out through the real agent/workspace.ts,
// plus a small in-test implementation of PolicyGates over it, for testing the
// LLM policy loop until agent/gates.ts lands (then these tests should switch).
// The gates are deliberately simple: JavaScript only, `node --check` as the
// syntax check, `node --test` as the target-test command.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import { Workspace } from '@/agent/workspace';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { AgentEvent, CommandResult, Edit, EventSink, GateVerdict, PolicyContext, PolicyGates, TestRun, WorkspaceView } from '@/agent/types';

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

export interface TempRepo {
  root: string;
  gates: PolicyGates;
  workspace: WorkspaceView;
  cleanup(): Promise<void>;
}

async function git(root: string, args: string[]) {
  return run('git', args, { cwd: root, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

// node's test runner marks its children with NODE_TEST_CONTEXT; a nested
// `node --test` that inherits it reports to the outer runner and exits 0.
function childEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _ctx, NODE_OPTIONS: _opts, ...rest } = process.env;
  return rest;
}

async function runCmd(root: string, file: string, args: string[]): Promise<CommandResult> {
  const started = Date.now();
  try {
    const { stdout, stderr } = await run(file, args, { cwd: root, timeout: 60_000, env: childEnv() });
    return { command: [file, ...args].join(' '), exitCode: 0, signal: null, timedOut: false, durationMs: Date.now() - started, output: stdout + stderr, truncatedBytes: 0 };
  } catch (error) {
    const e = error as { code?: number; signal?: string; stdout?: string; stderr?: string; killed?: boolean };
    return {
      command: [file, ...args].join(' '),
      exitCode: typeof e.code === 'number' ? e.code : null,
      signal: e.signal ?? null,
      timedOut: Boolean(e.killed),
      durationMs: Date.now() - started,
      output: (e.stdout ?? '') + (e.stderr ?? ''),
      truncatedBytes: 0,
    };
  }
}

export async function createTempRepo(files: Record<string, string> = { 'src/cart.js': BUGGY_CART, 'test/cart.test.js': CART_TEST, 'package.json': '{"type":"module"}\n' }): Promise<TempRepo> {
  const source = await realpath(await mkdtemp(join(tmpdir(), 'flowfix-llm-src-')));
  for (const [file, content] of Object.entries(files)) {
    await mkdir(dirname(join(source, file)), { recursive: true });
    await writeFile(join(source, file), content);
  }
  await git(source, ['init', '-q']);
  await git(source, ['add', '-A']);
  await git(source, ['commit', '-q', '-m', 'head']);
  // the real per-run checkout (agent/workspace.ts): its path checks guard the tools
  const ws = await Workspace.create({ source, headRev: 'HEAD' });
  const root = ws.root;

  const verdict = (passed: boolean, started: number, extra: Partial<GateVerdict> = {}): GateVerdict => ({ gate: 'compile', passed, durationMs: Date.now() - started, ...extra });

  const syntaxCheck = async (abs: string): Promise<string | undefined> => {
    if (!abs.endsWith('.js')) return undefined;
    const result = await runCmd(root, process.execPath, ['--check', abs]);
    return result.exitCode === 0 ? undefined : result.output;
  };

  const gates: PolicyGates = {
    async applyEdit(edit: Edit) {
      const started = Date.now();
      try {
        if (edit.kind === 'diff') {
          const patchFile = join(ws.runDir, 'flowfix.patch');
          await writeFile(patchFile, edit.diff);
          const check = await runCmd(root, 'git', ['apply', '--check', patchFile]);
          if (check.exitCode !== 0) return verdict(false, started, { diagnostics: [{ kind: 'apply', message: check.output.trim() }] });
          await runCmd(root, 'git', ['apply', patchFile]);
          return verdict(true, started);
        }
        const abs = await ws.resolve(edit.file);
        const before = await readFile(abs, 'utf8').catch(() => undefined);
        if (edit.kind === 'replace') {
          if (before === undefined) return verdict(false, started, { diagnostics: [{ kind: 'apply', file: edit.file, message: 'no such file' }] });
          if (before.split(edit.oldText).length !== 2) return verdict(false, started, { diagnostics: [{ kind: 'apply', file: edit.file, message: 'old text must occur exactly once' }] });
          await writeFile(abs, before.replace(edit.oldText, () => edit.newText));
        } else if (edit.kind === 'create') {
          if (before !== undefined) return verdict(false, started, { diagnostics: [{ kind: 'apply', file: edit.file, message: 'file exists' }] });
          await mkdir(dirname(abs), { recursive: true });
          await writeFile(abs, edit.content);
        } else {
          if (before === undefined) return verdict(false, started, { diagnostics: [{ kind: 'apply', file: edit.file, message: 'no such file' }] });
          await unlink(abs);
          return verdict(true, started);
        }
        const syntax = await syntaxCheck(abs);
        if (syntax) {
          if (before === undefined) await unlink(abs);
          else await writeFile(abs, before);
          const line = /:(\d+)\n/.exec(syntax)?.[1];
          return verdict(false, started, { diagnostics: [{ kind: 'syntax', file: edit.file, line: line ? Number(line) : undefined, message: syntax.split('\n').find((l) => /Error/.test(l)) ?? syntax }] });
        }
        return verdict(true, started);
      } catch (error) {
        return verdict(false, started, { diagnostics: [{ kind: 'path', message: (error as Error).message }] });
      }
    },
    async green() {
      const command = await runCmd(root, process.execPath, ['--test', 'test/cart.test.js']);
      ws.setLastLog(command.output);
      const passed = command.exitCode === 0;
      const run: TestRun = { command, results: [{ id: 'test/cart.test.js::total sums every line', name: 'total sums every line', status: passed ? 'passed' : 'failed' }] };
      return { verdict: { gate: 'green', passed, durationMs: command.durationMs, tests: run.results.map(({ id, status }) => ({ id, status })) }, run };
    },
    reset: () => ws.reset(),
    diff: () => ws.diff(),
    async build() {
      const result = await runCmd(root, process.execPath, ['--check', 'src/cart.js']);
      ws.setLastLog(result.output);
      return result;
    },
  };

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

export function policyContext({ repo, sink, signal, limits, description = 'Refactor the cart loop.' }: {
  repo: TempRepo;
  sink: EventSink;
  signal?: AbortSignal;
  limits?: Partial<PolicyContext['limits']>;
  description?: string;
}): PolicyContext {
  const redCommand: CommandResult = { command: 'node --test test/', exitCode: 1, signal: null, timedOut: false, durationMs: 50, output: 'not ok 1 - total sums every line\n  expected: 7\n  actual: 4\n', truncatedBytes: 0 };
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
      failingTests: [{ id: 'test/cart.test.js::total sums every line', name: 'total sums every line', file: 'test/cart.test.js', message: 'Expected values to be strictly equal: 4 !== 7' }],
      messages: ['Expected values to be strictly equal: 4 !== 7'],
      expectedActual: [{ testId: 'test/cart.test.js::total sums every line', expected: '7', actual: '4', operator: 'strictEqual' }],
      frames: [{ file: 'test/cart.test.js', line: 6, fn: 'TestContext.<anonymous>' }],
      symbols: ['total'],
    },
    suspects: [{ file: 'src/cart.js', symbol: 'total', kind: 'function', startLine: 1, endLine: 7, score: 0.9, reasons: ['edited by the change', 'called by the failing test'] }],
    targetTests: ['test/cart.test.js::total sums every line'],
    redRun: { command: redCommand, results: [] },
    gates: repo.gates,
    workspace: repo.workspace,
    sink,
    signal: signal ?? new AbortController().signal,
    limits: { maxToolCalls: 100, deadline: Date.now() + 60_000, maxTokens: 1_000_000, maxCostUsd: 10, ...limits },
  };
}
