// The oracle bench's case runner (bench/oracle/oracle.ts) on a real git
// repository: the oracle double, fed the right fix, gets it through the whole
// pipeline to a reviewer; fed a wrong one, the run is a loss with the phase
// and the reason it ended.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runOracleCase, fixDiffFromFiles } from '@/bench/oracle/oracle';
import { createTsRepo, tsSettings, TS_CART_BASE, TS_CART_HEAD, type TestRepo } from '../../helpers/agent-repos';

const TARGET = 'test::cart > total multiplies price by quantity';
// the whole pipeline, without what this test does not need: no tsc build, no coverage run, one proof run
const settings = tsSettings({ build: undefined, coverage: false, proof: { runs: 1 } });

describe('runOracleCase', () => {
  let repo: TestRepo;

  before(() => {
    repo = createTsRepo();
  });
  after(() => repo.cleanup());

  test('the right fix reaches a reviewer, and the right function was a top-3 suspect', async () => {
    const fixDiff = await fixDiffFromFiles(repo.dir, repo.head, { 'src/cart.ts': TS_CART_BASE });
    assert.match(fixDiff, /^\+ {4}sum \+= item\.price \* item\.qty;$/m);
    const outcome = await runOracleCase({ id: 'cart', repoPath: repo.dir, baseRev: repo.base, headRev: repo.head, targetTests: [TARGET], fixDiff, settings });
    assert.equal(outcome.reached, true, JSON.stringify(outcome, null, 2));
    assert.equal(outcome.status, 'fixed');
    assert.equal(outcome.reason, null);
    assert.equal(outcome.sameDiff, true);
    assert.deepEqual(outcome.truth, { file: 'src/cart.ts', symbol: 'total' });
    assert.equal(outcome.top3, true);
    // read, patch, finish, then the root-cause summary, as a server run asks for it
    assert.equal(outcome.modelCalls, 4);
  });

  test('a wrong fix is a loss, with the phase and the reason the run ended', async () => {
    const wrong = TS_CART_HEAD.replace('sum += item.price + item.qty;', 'sum += item.price - item.qty;');
    const fixDiff = await fixDiffFromFiles(repo.dir, repo.head, { 'src/cart.ts': wrong });
    const outcome = await runOracleCase({
      id: 'cart-wrong',
      repoPath: repo.dir,
      baseRev: repo.base,
      headRev: repo.head,
      targetTests: [TARGET],
      fixDiff,
      settings,
    });
    assert.equal(outcome.reached, false);
    assert.equal(outcome.status, 'no_fix');
    assert.equal(outcome.phase, 'patch');
    assert.equal(outcome.exitReason, 'no_candidate');
    assert.match(outcome.reason ?? '', /^no_candidate/);
  });
});
