import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FULL_CUBE, cellKey, foldChanges, foldPrecision, foldRuns, type Cells } from '../../../lib/insights/cells';
import type { ChangeFact, PrecisionFact, RunFact } from '../../../lib/insights/facts';
import { ALL, COUNTER, REPAIR } from '../../../lib/insights/tables';
import { bucketOf } from '../../../lib/insights/histogram';

// What a count means: facts folded into the cells the rollups keep. Written
// from the product's definitions (a change attempted once per cell however
// many runs it had, a decision implies a preview, an unpriced run is unknown
// cost and never $0), not read back from the code.

const DAY = '2026-12-01';

function change(over: Partial<ChangeFact> = {}): ChangeFact {
  return { id: 'c1', day: DAY, repositoryId: 'r1', authorKind: 'HUMAN', skip: null, developerMs: [], ...over };
}

function run(over: Partial<RunFact> = {}): RunFact {
  return {
    changeId: 'c1',
    day: DAY,
    repositoryId: 'r1',
    authorKind: 'HUMAN',
    policy: 'offline',
    model: '',
    trigger: 'AUTO',
    status: 'FIXED',
    exitReason: 'fixed',
    ended: true,
    phases: [['reproduce', 1_000]],
    toolCalls: 3,
    tokens: 0,
    costUsd: 0,
    reachedGreen: true,
    mislocalised: false,
    fix: { dropReason: null, latencyMs: 60_000, decisions: [] },
    ...over,
  };
}

function count(cells: Cells, dims: string[], name: string): number {
  return cells.get(cellKey(dims))?.counts.get(name) ?? 0;
}

describe('foldChanges', () => {
  test('a change counts in its repository and in every repository; a skipped one by its filter; developer times by bucket', () => {
    const cells = foldChanges([change(), change({ id: 'c2', skip: 'draft', developerMs: [90_000] })], FULL_CUBE);
    for (const repo of ['r1', ALL]) {
      assert.equal(count(cells, [repo, 'HUMAN', DAY], 'changes'), 2);
      assert.equal(count(cells, [repo, 'HUMAN', DAY], 'skipped'), 1);
      assert.equal(count(cells, [repo, 'HUMAN', DAY], `${COUNTER.skip}draft`), 1);
      assert.equal(count(cells, [repo, 'HUMAN', DAY], COUNTER.developerMs + bucketOf(90_000)), 1);
    }
    // no roll-up over the author kind: readers add those rows
    assert.equal(cells.get(cellKey(['r1', ALL, DAY])), undefined);
  });
});

describe('foldRuns', () => {
  test('a change with two runs is attempted once per cell; each run counts as a run', () => {
    const cells = foldRuns([run(), run({ status: 'NO_FIX', exitReason: 'no_candidate', fix: null })], FULL_CUBE);
    const own = ['r1', 'HUMAN', DAY, 'offline', '', 'AUTO'];
    assert.equal(count(cells, own, 'attempted'), 1);
    assert.equal(count(cells, own, 'runs'), 2);
    assert.equal(count(cells, own, 'finished'), 2);
    assert.equal(count(cells, own, 'noFix'), 1);
    assert.equal(count(cells, own, 'found'), 1);
    assert.equal(count(cells, own, 'posted'), 1);
    // the roll-ups: every repository, policy and model; AUTO is a repair run
    assert.equal(count(cells, [ALL, 'HUMAN', DAY, ALL, ALL, REPAIR], 'attempted'), 1);
    assert.equal(count(cells, [ALL, 'HUMAN', DAY, ALL, ALL, REPAIR], 'runs'), 2);
  });

  test('a re-validation run is not a repair run', () => {
    const cells = foldRuns([run({ trigger: 'REVALIDATE' })], FULL_CUBE);
    assert.equal(count(cells, ['r1', 'HUMAN', DAY, 'offline', '', 'REVALIDATE'], 'runs'), 1);
    assert.equal(cells.get(cellKey(['r1', 'HUMAN', DAY, 'offline', '', REPAIR])), undefined);
  });

  test('a decision is a preview; an edit-accept applies from its surface; a reject counts its reason', () => {
    const cells = foldRuns(
      [
        run({ changeId: 'c1', fix: { dropReason: null, latencyMs: 1, decisions: [{ kind: 'EDIT_ACCEPT', surface: 'IDE', reason: null }] } }),
        run({ changeId: 'c2', fix: { dropReason: null, latencyMs: 1, decisions: [{ kind: 'REJECT', surface: 'DASHBOARD', reason: 'WRONG_FIX' }] } }),
      ],
      FULL_CUBE,
    );
    const own = ['r1', 'HUMAN', DAY, 'offline', '', 'AUTO'];
    assert.equal(count(cells, own, 'previewed'), 2);
    assert.equal(count(cells, own, 'applied'), 1);
    assert.equal(count(cells, own, 'editAccepts'), 1);
    assert.equal(count(cells, own, `${COUNTER.surfaceApplied}IDE`), 1);
    assert.equal(count(cells, own, `${COUNTER.surfacePreviewed}DASHBOARD`), 1);
    assert.equal(count(cells, own, 'rejected'), 1);
    assert.equal(count(cells, own, `${COUNTER.reject}WRONG_FIX`), 1);
  });

  test('a dropped fix is found, not posted; its change counts once per reason however many of its fixes were dropped', () => {
    const dropped = { dropReason: 'touches_tests', latencyMs: 1, decisions: [] };
    const cells = foldRuns([run({ fix: dropped }), run({ fix: dropped })], FULL_CUBE);
    const own = ['r1', 'HUMAN', DAY, 'offline', '', 'AUTO'];
    assert.equal(count(cells, own, 'found'), 2);
    assert.equal(count(cells, own, 'posted'), 0);
    assert.equal(count(cells, own, `${COUNTER.drop}touches_tests`), 2);
    assert.equal(count(cells, own, `${COUNTER.dropChanges}touches_tests`), 1);
  });

  test('an unpriced run is unknown cost, never $0; a priced one counts in millionths of a dollar', () => {
    const cells = foldRuns([run({ costUsd: null }), run({ changeId: 'c2', costUsd: 0.0123 }), run({ changeId: 'c3', costUsd: 0 })], FULL_CUBE);
    const own = ['r1', 'HUMAN', DAY, 'offline', '', 'AUTO'];
    assert.equal(count(cells, own, 'unpriced'), 1);
    assert.equal(count(cells, own, 'costMicros'), 12_300);
    // posted at zero cost: the run that cost $0, not the one whose cost is unknown
    assert.equal(count(cells, own, 'postedZeroCost'), 1);
  });

  test('a run still working has not finished, and its phase times do not count yet', () => {
    const cells = foldRuns([run({ status: 'RUNNING', ended: false, fix: null })], FULL_CUBE);
    const own = ['r1', 'HUMAN', DAY, 'offline', '', 'AUTO'];
    assert.equal(count(cells, own, 'runs'), 1);
    assert.equal(count(cells, own, 'finished'), 0);
    assert.equal(count(cells, own, `${COUNTER.phaseMs}reproduce:${bucketOf(1_000)}`), 0);
  });
});

describe('foldPrecision', () => {
  function settled(over: Partial<PrecisionFact>): PrecisionFact {
    return { day: DAY, repositoryId: 'r1', policy: 'offline', model: '', label: 'CORRECT', status: 'READY', rejectReason: null, ...over };
  }

  test('settled labels by kind; an applied fix judged bad and a rejected fix judged correct are counted apart', () => {
    const cells = foldPrecision(
      [settled({ status: 'APPLIED', label: 'OVERFITTING' }), settled({ status: 'REJECTED', label: 'CORRECT', rejectReason: 'NOT_HOW_I_WOULD' }), settled({})],
      { repositoryId: ['own', 'all'], policy: ['own'], model: ['own'] },
    );
    for (const repo of ['r1', ALL]) {
      const dims = [repo, DAY, 'offline', ''];
      assert.equal(count(cells, dims, 'correct'), 2);
      assert.equal(count(cells, dims, 'overfitting'), 1);
      assert.equal(count(cells, dims, 'acceptedSettled'), 1);
      assert.equal(count(cells, dims, 'acceptedJudgedBad'), 1);
      assert.equal(count(cells, dims, 'rejectedJudgedCorrect'), 1);
      assert.equal(count(cells, dims, `${COUNTER.rejectedCorrect}NOT_HOW_I_WOULD`), 1);
    }
  });
});
