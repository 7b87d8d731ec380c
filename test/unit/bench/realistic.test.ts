import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { realisticRepos, sourcesOf, writeRepo } from '../../../bench/mutants/realistic';
import { runRepoSuite } from '../../../bench/mutants/run';

describe('bench mutants: the realistic repositories', () => {
  const repos = realisticRepos();

  it("has the demo's repositories, the corpus's projects and the fixtures' library, each with its own settings", () => {
    const names = repos.map((r) => r.name);
    for (const name of ['demo/checkout-ts', 'demo/ledger-py', 'corpus/ts-cart', 'corpus/ts-sched', 'corpus/py-grades', 'fixtures/slug-main'])
      assert.ok(names.includes(name), names.join(', '));
    const checkout = repos.find((r) => r.name === 'demo/checkout-ts');
    assert.equal(checkout?.settings.junitReport, 'reports/junit.xml');
    assert.ok(sourcesOf(checkout!).includes('src/cart.ts'));
    // a vendored package and the tests are not the project's code to mutate
    assert.ok(!sourcesOf(checkout!).some((f) => f.startsWith('vendor/') || f.startsWith('test/')), sourcesOf(checkout!).join(', '));
    const slug = repos.find((r) => r.name === 'fixtures/slug-main');
    assert.equal(slug?.language, 'javascript');
    // what the runner detection makes of `node --test test/` (it may put the repository's own .bin first on PATH)
    assert.match(slug?.settings.test ?? '', /\bnode --test .*test\/$/);
    assert.deepEqual(sourcesOf(slug!), ['lib/index.js', 'lib/slugify.js']);
    const ledger = repos.find((r) => r.name === 'demo/ledger-py');
    assert.deepEqual(sourcesOf(ledger!), []);
    assert.ok(sourcesOf(ledger!, ['py']).includes('ledger/fees.py'), sourcesOf(ledger!, ['py']).join(', '));
  });

  for (const repo of repos) {
    it(`${repo.name}: framed, its own test command is green on the original`, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'flowfix-realistic-test-'));
      try {
        await writeRepo(dir, repo);
        const run = await runRepoSuite(dir, repo.settings);
        assert.equal(run.note, undefined, run.note);
        assert.ok(run.tests > 0, `${run.tests} tests`);
        assert.equal(run.killed, false, run.failing.join(', '));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
