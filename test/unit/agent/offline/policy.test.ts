// The offline policy against real gates: real git repositories (the demo's
// fixture repositories and the bench corpus), real test runs, real compile
// checks. No mocks: the policy must turn the target tests green by itself.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { editedSpans } from '../../../../agent/edits/diff';
import { extractEvidence } from '../../../../agent/testing/evidence';
import { createGates } from '../../../../agent/gates/gates';
import { workspaceGit } from '../../../../agent/workspace/git';
import { createOfflinePolicy } from '../../../../agent/policies/offline';
import { localise } from '../../../../agent/scaffold/index';
import type { AgentEvent, PolicyContext } from '../../../../agent/types';
import { Workspace } from '../../../../agent/workspace/workspace';
import { buildDemoRepo } from '../../../../demo/build-repos';
import { checkoutTs } from '../../../../demo/repos/checkout-ts';
import { ledgerPy } from '../../../../demo/repos/ledger-py';
import type { DemoChangeKind, DemoRepoSpec } from '../../../../demo/repos/types';
import type { RepositorySettings } from '../../../../common/settings';
import { RepositorySettingsSchema } from '../../../../common/settings';
import { BUGS, buildBugRepo, projectOf, settingsFor } from '../../../../bench/agent/corpus/index';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

interface Prepared {
  ctx: PolicyContext;
  events: AgentEvent[];
  workspace: Workspace;
  diff: () => Promise<string>;
}

/** RED, evidence and suspects the way the pipeline makes them, then a PolicyContext over real gates. */
async function prepare(input: {
  repoDir: string;
  base: string;
  head: string;
  targets: string[];
  settings: RepositorySettings;
  title: string;
  description: string;
  deadline?: number;
  signal?: AbortSignal;
}): Promise<Prepared> {
  const workspace = await Workspace.create({ source: input.repoDir, headRev: input.head, excludes: [input.settings.junitReport] });
  cleanup.push(() => workspace.dispose());
  const events: AgentEvent[] = [];
  const sink = { emit: async (e: AgentEvent) => void events.push(e) };
  const gates = createGates({ workspace, settings: input.settings, targets: input.targets.map((id) => ({ id })), sink });
  const red = await gates.runTargets('red', 'fail');
  assert.ok(red.verdict.passed, `RED reproduces: ${red.verdict.detail}`);
  const tracked = (await workspaceGit(workspace.root, ['ls-files', '-z'])).stdout.split('\0').filter(Boolean);
  const evidence = extractEvidence({ run: red.run, root: workspace.root, files: tracked, targets: input.targets });
  const changeDiff = (await workspaceGit(workspace.root, ['diff', '--no-color', input.base, input.head])).stdout;
  const change = {
    title: input.title,
    description: input.description,
    author: 'dev',
    diff: changeDiff,
    editedSpans: editedSpans(changeDiff),
    language: input.settings.language,
  };
  const suspects = await localise({ root: workspace.root, evidence, editedSpans: change.editedSpans });
  const ctx: PolicyContext = {
    change,
    evidence,
    suspects,
    targetTests: input.targets,
    redRun: red.run,
    gates,
    workspace,
    sink,
    signal: input.signal ?? new AbortController().signal,
    limits: { maxToolCalls: 100, deadline: input.deadline ?? Date.now() + 10 * 60_000, maxTokens: 0, maxCostUsd: 0 },
  };
  return { ctx, events, workspace, diff: () => gates.diff() };
}

let demoDir: string | undefined;
async function demoChange(spec: DemoRepoSpec, kind: DemoChangeKind) {
  demoDir ??= await mkdtemp(path.join(tmpdir(), 'flowfix-offline-demo-'));
  const dir = demoDir;
  if (cleanup.length === 0 || !cleanup.some((c) => c.name === 'removeDemo')) {
    cleanup.unshift(async function removeDemo() {
      await rm(dir, { recursive: true, force: true });
    });
  }
  const built = await buildDemoRepo({ spec, dataDir: dir });
  const change = built.changes.find((c) => c.spec.kind === kind);
  assert.ok(change, `demo ${spec.name} has a ${kind} change`);
  return { dir: built.dir, base: change.baseSha, head: change.headSha, spec: change.spec, settings: RepositorySettingsSchema.parse(spec.settings) };
}

/** Only these files changed, and the diff contains each of `contains`. */
function assertDiff(diff: string, files: string[], contains: string[]): void {
  const touched = [...diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]).sort();
  assert.deepEqual(touched, [...files].sort(), diff);
  for (const text of contains) assert.ok(diff.includes(text), `diff has ${text}:\n${diff}`);
}

describe("offline policy on the demo's failing changes", () => {
  test('checkout-ts off-by-one: the window end becomes inclusive again', async () => {
    const d = await demoChange(checkoutTs, 'off_by_one');
    const p = await prepare({
      repoDir: d.dir,
      base: d.base,
      head: d.head,
      targets: d.spec.failingTests,
      settings: d.settings,
      title: d.spec.title,
      description: d.spec.description,
    });
    const outcome = await createOfflinePolicy().run(p.ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assertDiff(await p.diff(), ['src/windows.ts'], ['+  return t >= Date.parse(window.start) && t <= Date.parse(window.end);']);
    const tried = p.events.filter((e) => e.type === 'candidate');
    assert.equal(tried.at(-1)?.payload.outcome, 'green');
    assert.ok(p.events.some((e) => e.type === 'thought'));
  });

  test('checkout-ts wrong operator: the welcome discount goes back to members OR first orders', async () => {
    const d = await demoChange(checkoutTs, 'wrong_operator');
    const p = await prepare({
      repoDir: d.dir,
      base: d.base,
      head: d.head,
      targets: d.spec.failingTests,
      settings: d.settings,
      title: d.spec.title,
      description: d.spec.description,
    });
    const outcome = await createOfflinePolicy().run(p.ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assertDiff(await p.diff(), ['src/discounts.ts'], ['+  return isMember(customer) || isFirstOrder(customer);']);
  });

  test("checkout-ts stale expectation: the tests follow the deliberate banker's rounding", async () => {
    const d = await demoChange(checkoutTs, 'stale_expectation');
    const p = await prepare({
      repoDir: d.dir,
      base: d.base,
      head: d.head,
      targets: d.spec.failingTests,
      settings: d.settings,
      title: d.spec.title,
      description: d.spec.description,
    });
    const outcome = await createOfflinePolicy().run(p.ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    const diff = await p.diff();
    assert.ok(diff.includes('+    assert.equal(roundCents(12.5), 12);'), diff);
    assert.ok(diff.includes('+    assert.equal(roundCents(-12.5), -12);'), diff);
    assert.ok(!diff.includes('+++ b/src/'), 'the source is left as the change wrote it');
  });

  test('ledger-py wrong operator: credits add to the balance', async () => {
    const d = await demoChange(ledgerPy, 'wrong_operator');
    const p = await prepare({
      repoDir: d.dir,
      base: d.base,
      head: d.head,
      targets: d.spec.failingTests,
      settings: d.settings,
      title: d.spec.title,
      description: d.spec.description,
    });
    const outcome = await createOfflinePolicy().run(p.ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assertDiff(await p.diff(), ['ledger/accounts.py'], ['+        return self.opening + self.credits() - self.debits()']);
  });

  test('ledger-py stale expectation: the test expects the new overdraft fee', async () => {
    const d = await demoChange(ledgerPy, 'stale_expectation');
    const p = await prepare({
      repoDir: d.dir,
      base: d.base,
      head: d.head,
      targets: d.spec.failingTests,
      settings: d.settings,
      title: d.spec.title,
      description: d.spec.description,
    });
    const outcome = await createOfflinePolicy().run(p.ctx);
    assert.equal(outcome.status, 'patched', JSON.stringify(outcome));
    assertDiff(await p.diff(), ['tests/test_fees.py'], ['+    assert overdraft_fee(Decimal("-0.01")) == Decimal("35.00")']);
  });
});

describe('offline policy limits', () => {
  const bug = BUGS.find((b) => b.id === 'ts-sched/zero-size-missing');
  assert.ok(bug);

  async function corpus() {
    const repo = await buildBugRepo({ bug: bug! });
    cleanup.push(() => rm(repo.dir, { recursive: true, force: true }));
    return repo;
  }

  test('missing logic: every candidate is validated and the policy gives up with no_candidate', async () => {
    const repo = await corpus();
    const p = await prepare({
      repoDir: repo.dir,
      base: repo.base,
      head: repo.head,
      targets: bug!.failingTests,
      settings: settingsFor(projectOf(bug!)),
      title: bug!.title,
      description: bug!.description,
    });
    const outcome = await createOfflinePolicy({ maxCandidates: 3 }).run(p.ctx);
    assert.equal(outcome.status, 'gave_up');
    assert.equal(outcome.status === 'gave_up' && outcome.exitReason, 'no_candidate');
    const tried = p.events.filter((e) => e.type === 'candidate');
    assert.equal(tried.length, 3);
    assert.ok(tried.every((e) => e.payload.outcome === 'tests_failed' || e.payload.outcome === 'compile_failed'));
    assert.equal(await p.diff(), '', 'the workspace is left clean');
  });

  test('a deadline in the past ends with time_limit before any edit; an aborted signal with cancelled', async () => {
    const repo = await corpus();
    const settings = settingsFor(projectOf(bug!));
    const late = await prepare({
      repoDir: repo.dir,
      base: repo.base,
      head: repo.head,
      targets: bug!.failingTests,
      settings,
      title: bug!.title,
      description: bug!.description,
      deadline: Date.now() - 1,
    });
    const timed = await createOfflinePolicy().run(late.ctx);
    assert.equal(timed.status === 'gave_up' && timed.exitReason, 'time_limit');
    assert.equal(late.events.filter((e) => e.type === 'candidate').length, 0);

    const controller = new AbortController();
    controller.abort();
    const gone = await prepare({
      repoDir: repo.dir,
      base: repo.base,
      head: repo.head,
      targets: bug!.failingTests,
      settings,
      title: bug!.title,
      description: bug!.description,
      signal: controller.signal,
    });
    const cancelled = await createOfflinePolicy().run(gone.ctx);
    assert.equal(cancelled.status === 'gave_up' && cancelled.exitReason, 'cancelled');
  });
});
