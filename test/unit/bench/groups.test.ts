import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GROUPS, groupedReport, selectGroups, splitSample, type MutantOutcome } from '../../../bench/mutants/run';

const outcome = (corpus: 'own' | 'realistic', order: number, plausible: boolean): MutantOutcome => ({
  module: corpus === 'own' ? 'lib/x.ts' : 'demo/checkout-ts:src/cart.ts',
  corpus,
  order,
  mutant: { id: 'm', operator: 'EqualityOperator', line: 1, original: '<', replacement: '<=' },
  truth: 'f',
  targets: [],
  status: plausible ? 'fixed' : 'no_fix',
  exitReason: plausible ? 'fixed' : 'no_candidate',
  plausible,
  identical: plausible,
  suitePasses: plausible ? true : null,
  correct: plausible,
  overfitting: false,
  rank: 1,
  testFileEdits: 0,
  files: [],
  diff: '',
  wallMs: 1000,
  candidates: 1,
});

describe('bench mutants: the groups', () => {
  it('the default run has all four groups, and the 200 split 80/40/50/30', () => {
    const groups = selectGroups('all', 'mixed');
    assert.deepEqual(
      groups.map((g) => g.name),
      ['own-1', 'own-2', 'realistic-1', 'realistic-2'],
    );
    assert.deepEqual(splitSample(200, groups), [80, 40, 50, 30]);
    const small = splitSample(30, groups);
    assert.equal(
      small.reduce((n, x) => n + x, 0),
      30,
    );
    assert.ok(
      small.every((n) => n > 0),
      String(small),
    );
  });

  it('--corpus own --order 1 is the bench as it was: one group, the whole sample', () => {
    const groups = selectGroups('own', '1');
    assert.deepEqual(groups, [GROUPS[0]]);
    assert.deepEqual(splitSample(200, groups), [200]);
    assert.throws(() => selectGroups('theirs', '1'), /--corpus/);
    assert.throws(() => selectGroups('all', '3'), /--order/);
  });

  it('the summary reports each group on its own, runs from before the groups counted as own first order', () => {
    const old = { ...outcome('own', 1, true), corpus: undefined, order: undefined };
    const text = groupedReport([old, outcome('own', 2, false), outcome('realistic', 1, true), outcome('realistic', 1, false)], {
      seed: 1,
      totalMs: 60_000,
      jobs: 2,
      groups: {
        'own-1': { screened: 1, killed: 1, modules: 1 },
        'own-2': { screened: 1, killed: 1, modules: 1 },
        'realistic-1': { screened: 2, killed: 2, modules: 1 },
      },
    });
    assert.match(text, /^ {2}own-1 +1 +100\.0%/m);
    assert.match(text, /^ {2}own-2 +1 +0\.0%/m);
    assert.match(text, /^ {2}realistic-1 +2 +50\.0%/m);
    assert.ok(!/realistic-2/.test(text));
    for (const name of ['own-1', 'own-2', 'realistic-1']) assert.match(text, new RegExp(`── ${name}: `));
  });
});
