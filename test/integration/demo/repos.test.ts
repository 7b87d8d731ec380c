import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildDemoRepos, type BuiltRepo } from '@/demo/build-repos';
import { demoGit } from '@/demo/git';
import { runSuiteAt, type SuiteRun } from '@/demo/run-tests';
import { parseJunitXml } from '@/lib/junit/parse';

// Builds the demo repositories for real and runs their real test suites:
// main must be green, and each demo change must fail exactly the tests it
// names (with the ids the ingestion API will compute from the JUnit report).

const FLAKY_MAX_RUNS = 20;

function failingIds(run: SuiteRun): string[] {
  assert.ok(run.junitXml.length > 0, `no JUnit report was written:\n${run.log}`);
  return parseJunitXml(run.junitXml)
    .results.filter((r) => r.status === 'failed' || r.status === 'error')
    .map((r) => r.id)
    .sort();
}

function runSuite(repo: BuiltRepo, rev: string): Promise<SuiteRun> {
  return runSuiteAt({ repoDir: repo.dir, rev, testCommand: repo.spec.testCommand, junitPath: repo.spec.junitPath });
}

describe('demo repositories', () => {
  let dataDir: string;
  let repos: BuiltRepo[];

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'flowfix-demo-repos-'));
    repos = await buildDemoRepos({ dataDir });
  });

  after(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  test('builds a TypeScript/JavaScript repository and a Python repository under <dataDir>/repos', async () => {
    assert.deepEqual(
      repos.map((r) => [r.spec.name, r.dir]),
      [
        ['checkout-ts', path.join(dataDir, 'repos', 'checkout-ts')],
        ['ledger-py', path.join(dataDir, 'repos', 'ledger-py')],
      ],
    );
    for (const repo of repos) {
      assert.equal(await demoGit(repo.dir, ['rev-parse', 'main']), repo.mainSha);
      assert.equal(await demoGit(repo.dir, ['status', '--porcelain']), '', `${repo.spec.name} has a clean tree`);
      const settings = JSON.parse(await fs.readFile(path.join(repo.dir, '.flowfix.json'), 'utf8'));
      assert.equal(settings.settings.junitReport, repo.spec.junitPath);
      assert.deepEqual(settings.settings, repo.spec.settings);
    }
  });

  test('covers every kind of demo change the product needs', () => {
    const kinds = (name: string) =>
      repos
        .find((r) => r.spec.name === name)!
        .changes.map((c) => c.spec.kind)
        .sort();
    assert.deepEqual(kinds('checkout-ts'), ['bot', 'flaky', 'off_by_one', 'oversized', 'stale_expectation', 'wrong_operator']);
    assert.deepEqual(kinds('ledger-py'), ['off_by_one', 'stale_expectation', 'wrong_operator']);
  });

  test('is idempotent and deterministic: a rebuild reuses the repository, a fresh build gives the same commits', async () => {
    const again = await buildDemoRepos({ dataDir });
    assert.deepEqual(
      again.map((r) => r.rebuilt),
      [false, false],
    );
    const otherDir = await fs.mkdtemp(path.join(os.tmpdir(), 'flowfix-demo-repos-'));
    try {
      const fresh = await buildDemoRepos({ dataDir: otherDir });
      const shas = (list: BuiltRepo[]) => list.map((r) => [r.mainSha, ...r.changes.map((c) => c.headSha)]);
      assert.deepEqual(shas(fresh), shas(repos));
      assert.deepEqual(shas(again), shas(repos));
    } finally {
      await fs.rm(otherDir, { recursive: true, force: true });
    }
  });

  test('rebuilds a repository whose change branch went missing', async () => {
    const ledger = repos.find((r) => r.spec.name === 'ledger-py')!;
    await demoGit(ledger.dir, ['branch', '-D', ledger.changes[0].spec.branch]);
    const [, rebuilt] = await buildDemoRepos({ dataDir });
    assert.equal(rebuilt.rebuilt, true);
    assert.equal(await demoGit(ledger.dir, ['rev-parse', ledger.changes[0].spec.branch]), ledger.changes[0].headSha);
  });

  test('the bot change is authored by dependabot[bot] and the oversized change touches more than 50 files', async () => {
    const checkout = repos.find((r) => r.spec.name === 'checkout-ts')!;
    const bot = checkout.changes.find((c) => c.spec.kind === 'bot')!;
    assert.equal(await demoGit(checkout.dir, ['log', '-1', '--format=%an', bot.headSha]), 'dependabot[bot]');
    assert.equal(bot.spec.authorKind, 'BOT');
    const oversized = checkout.changes.find((c) => c.spec.kind === 'oversized')!;
    const files = (await demoGit(checkout.dir, ['diff', '--name-only', oversized.baseSha, oversized.headSha])).split('\n');
    assert.ok(files.length > 50, `oversized change touches ${files.length} files`);
  });

  test('every test passes on main', async () => {
    for (const repo of repos) {
      const run = await runSuite(repo, repo.mainSha);
      assert.equal(run.exitCode, 0, `${repo.spec.name} main:\n${run.log}`);
      assert.deepEqual(failingIds(run), []);
      assert.ok(parseJunitXml(run.junitXml).results.length >= 10, `${repo.spec.name} runs its suite`);
    }
  });

  test('each broken change fails exactly the tests it names', async () => {
    for (const repo of repos) {
      for (const change of repo.changes.filter((c) => !c.spec.flaky)) {
        const run = await runSuite(repo, change.headSha);
        assert.notEqual(run.exitCode, 0, `${repo.spec.name} ${change.spec.branch} should fail`);
        assert.deepEqual(failingIds(run), [...change.spec.failingTests].sort(), `${repo.spec.name} ${change.spec.branch}`);
      }
    }
  });

  test('checkout-ts is TypeScript: main and every change type-check with its build command', async () => {
    const checkout = repos.find((r) => r.spec.name === 'checkout-ts')!;
    assert.equal(checkout.spec.language, 'typescript');
    const build = checkout.spec.settings.build;
    assert.ok(build, 'checkout-ts has a build (type-check) command');
    for (const rev of [checkout.mainSha, ...checkout.changes.map((c) => c.headSha)]) {
      const run = await runSuiteAt({ repoDir: checkout.dir, rev, testCommand: ['/bin/sh', '-c', build], junitPath: checkout.spec.junitPath });
      assert.equal(run.exitCode, 0, `tsc at ${rev}:\n${run.log}`);
    }
  });

  test("checkout-ts failures point at the .ts test file and the failing assertion's line", async () => {
    const checkout = repos.find((r) => r.spec.name === 'checkout-ts')!;
    const offByOne = checkout.changes.find((c) => c.spec.kind === 'off_by_one')!;
    const source = checkout.spec.main.files['test/windows.test.ts'];
    assert.ok(source, 'the windows test is a .ts file');
    const line = source.split('\n').findIndex((l) => l.includes("isWithinWindow('2026-03-31', spring)")) + 1;
    const run = await runSuite(checkout, offByOne.headSha);
    const failure = parseJunitXml(run.junitXml).results.find((r) => r.status === 'failed');
    assert.ok(failure, run.log);
    assert.match(JSON.stringify(failure), new RegExp(`test/windows\\.test\\.ts:${line}:\\d+`));
  });

  test('the flaky change fails on some runs and passes on others', async () => {
    const checkout = repos.find((r) => r.spec.name === 'checkout-ts')!;
    const flaky = checkout.changes.find((c) => c.spec.flaky)!;
    const outcomes = new Set<string>();
    for (let i = 0; i < FLAKY_MAX_RUNS && outcomes.size < 2; i++) {
      const run = await runSuite(checkout, flaky.headSha);
      const failing = failingIds(run);
      if (failing.length === 0) {
        assert.equal(run.exitCode, 0);
        outcomes.add('pass');
      } else {
        assert.deepEqual(failing, flaky.spec.failingTests);
        outcomes.add('fail');
      }
    }
    assert.deepEqual([...outcomes].sort(), ['fail', 'pass']);
  });
});
