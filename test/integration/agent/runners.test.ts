import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { runRepair } from '@/agent/pipeline';
import { ArraySink } from '@/agent/sinks';
import { createOfflinePolicy } from '@/agent/policies/offline';
import { createTsRepo, type TestRepo } from '../../helpers/agent-repos';

// The repository's runner as it is: what its reports and its processes really
// do (repeated test names, hangs), on real repositories and real runners.

const repos: TestRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

/** One test body run for each case under the same name, as a parametrised test does. */
const PARAMETRISED_TEST = `import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../src/cart.ts';

const cases: Array<[Array<{ price: number; qty: number }>, number]> = [
  [[], 0],
  [[{ price: 5, qty: 3 }], 15],
  [[{ price: 0, qty: 0 }], 0],
];

describe('cart', () => {
  for (const [items, want] of cases) {
    test('total of a cart', () => {
      assert.equal(total(items), want);
    });
  }
});
`;

describe('repeated test names', () => {
  test('a target whose second instance fails reproduces, the repeat is reported, and the offline policy fixes it', async () => {
    const repo = createTsRepo();
    repos.push(repo);
    repo.write('test/cart.test.ts', PARAMETRISED_TEST);
    const head = repo.commit('tests: total over several carts');
    const sink = new ArraySink();
    const result = await runRepair({
      repoPath: repo.dir,
      baseRev: repo.base,
      headRev: head,
      targetTests: ['test::cart > total of a cart'],
      settings: repo.settings,
      policy: createOfflinePolicy(),
      sink,
      checkBase: false,
      change: { title: 'tests', description: '', author: 'dev' },
    });
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.equal(result.evidence.red?.passed, true);
    assert.match(result.diff, /item\.price \* item\.qty/);
    const logs = sink.ofType('log').map((e) => String(e.payload.text));
    assert.ok(
      logs.some((t) => t.includes('repeated test id test::cart > total of a cart stored as test::cart > total of a cart [2]')),
      logs.join('\n'),
    );
  });
});
