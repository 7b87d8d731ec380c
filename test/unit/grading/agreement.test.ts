import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  agreementWithConsensus,
  cohenKappaFromMatrix,
  fleissKappa,
  krippendorffAlpha,
  labelsAsFirstGiven,
  pairwiseCohen,
  percentAgreement,
  type Unit,
} from '@/lib/grading/agreement';

const near = (got: number | null, want: number, digits = 3) => {
  assert.notEqual(got, null);
  assert.equal(got!.toFixed(digits), want.toFixed(digits), `got ${got}`);
};

/** Units from per-item category counts (anonymous raters r0, r1, …). */
function fromCounts(rows: number[][], categories: string[]): Unit[] {
  return rows.map((row) => {
    const unit: Unit = {};
    let r = 0;
    row.forEach((k, c) => {
      for (let i = 0; i < k; i++) unit[`r${r++}`] = categories[c];
    });
    return unit;
  });
}

/** Units from a rater × item table; null: missing. */
function fromTable(table: Record<string, Array<string | null>>): Unit[] {
  const length = Object.values(table)[0].length;
  return Array.from({ length }, (_, i) => {
    const unit: Unit = {};
    for (const [rater, row] of Object.entries(table)) if (row[i] !== null) unit[rater] = row[i]!;
    return unit;
  });
}

describe("Fleiss' kappa", () => {
  // Fleiss (1971) as worked on Wikipedia ("Fleiss' kappa", worked example):
  // 14 raters, 10 subjects, 5 categories; P̄ = 0.378, P̄e = 0.213, κ = 0.210.
  const table = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
  ];
  const units = fromCounts(table, ['1', '2', '3', '4', '5']);

  test('the worked example: κ = 0.210, P̄ = 0.378', () => {
    near(fleissKappa(units), 0.20993, 4);
    near(percentAgreement(units), 0.378, 3);
  });

  test('perfect agreement over two categories is 1; one category only is n/a', () => {
    assert.equal(
      fleissKappa(
        fromCounts(
          [
            [3, 0],
            [0, 3],
          ],
          ['a', 'b'],
        ),
      ),
      1,
    );
    assert.equal(fleissKappa(fromCounts([[3], [3]], ['a'])), null);
    assert.equal(fleissKappa([]), null);
    assert.equal(fleissKappa([{ x: 'a' }, { y: 'b' }]), null, 'no item with two labels');
    assert.equal(percentAgreement([{ x: 'a' }]), null);
  });
});

describe("Krippendorff's alpha (nominal)", () => {
  // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
  // 4 observers, 12 units, missing values; nominal α = 0.743.
  const units = fromTable({
    A: ['1', '2', '3', '3', '2', '1', '4', '1', '2', null, null, null],
    B: ['1', '2', '3', '3', '2', '2', '4', '1', '2', '5', null, '3'],
    C: [null, '3', '3', '3', '2', '3', '4', '2', '2', '5', '1', null],
    D: ['1', '2', '3', '3', '2', '4', '4', '1', '2', '5', '1', null],
  });

  test('the worked example with missing values: α = 0.743', () => {
    near(krippendorffAlpha(units), 0.743);
  });

  test('his two-observer binary example (section A): α = 0.095', () => {
    // 10 units, observers A and B, values 0/1
    const binary = fromTable({
      A: ['0', '1', '0', '0', '0', '0', '0', '0', '1', '0'],
      B: ['1', '1', '1', '0', '0', '1', '0', '0', '0', '0'],
    });
    near(krippendorffAlpha(binary), 0.095);
  });

  test('degenerate: one value in all, or nothing pairable → n/a (null, never NaN)', () => {
    assert.equal(krippendorffAlpha(fromTable({ A: ['a', 'a'], B: ['a', 'a'] })), null);
    assert.equal(krippendorffAlpha([{ A: 'a' }, { B: 'b' }]), null);
    assert.equal(krippendorffAlpha([]), null);
    assert.equal(krippendorffAlpha(fromTable({ A: ['a', 'b'], B: ['a', 'b'] })), 1);
  });
});

describe("Cohen's kappa", () => {
  test("Wikipedia's worked example (20 / 5 / 10 / 15 of 50): κ = 0.4", () => {
    near(
      cohenKappaFromMatrix([
        [20, 5],
        [10, 15],
      ]),
      0.4,
    );
  });

  test("the two tables of the same observed agreement (Feinstein & Cicchetti's paradox, as on Wikipedia): 0.1304 and 0.2593", () => {
    near(
      cohenKappaFromMatrix([
        [45, 15],
        [25, 15],
      ]),
      0.1304,
      4,
    );
    near(
      cohenKappaFromMatrix([
        [25, 35],
        [5, 35],
      ]),
      0.2593,
      4,
    );
  });

  test('per pair: shared items, confusion matrix and kappa; no shared item is n/a', () => {
    const units: Unit[] = [
      { ann: 'CORRECT', bob: 'CORRECT' },
      { ann: 'CORRECT', bob: 'INCORRECT' },
      { ann: 'INCORRECT', bob: 'INCORRECT', cy: 'INCORRECT' },
      { ann: 'CORRECT', cy: 'CORRECT' },
    ];
    const pairs = pairwiseCohen(units, ['CORRECT', 'INCORRECT']);
    assert.deepEqual(
      pairs.map((p) => [p.a, p.b, p.shared]),
      [
        ['ann', 'bob', 3],
        ['ann', 'cy', 2],
        ['bob', 'cy', 1],
      ],
    );
    const ab = pairs[0];
    assert.deepEqual(ab.confusion, [
      [1, 1],
      [0, 1],
    ]);
    // po = 2/3, pe = (2/3)(1/3) + (1/3)(2/3) = 4/9 → κ = (2/3 − 4/9) / (5/9) = 0.4
    near(ab.kappa, 0.4);
    assert.equal(ab.agreement, 2 / 3);
    assert.equal(pairs[1].kappa, 1);
    assert.equal(pairs[2].kappa, null, 'one shared item, one category: chance agreement is 1');
    const apart = pairwiseCohen([{ ann: 'CORRECT' }, { bob: 'CORRECT' }], ['CORRECT']);
    assert.deepEqual(apart[0], { a: 'ann', b: 'bob', shared: 0, kappa: null, agreement: null, confusion: [[0]] });
  });
});

describe('agreement with consensus', () => {
  test('per rater, over settled items only', () => {
    const rows = agreementWithConsensus(
      [{ ann: 'CORRECT', bob: 'INCORRECT' }, { ann: 'CORRECT', bob: 'CORRECT' }, { ann: 'OVERFITTING' }],
      ['CORRECT', 'CORRECT', null],
    );
    assert.deepEqual(rows, [
      { rater: 'ann', settled: 2, agreeing: 2, share: 1 },
      { rater: 'bob', settled: 2, agreeing: 1, share: 0.5 },
    ]);
    assert.deepEqual(agreementWithConsensus([{ cy: 'CORRECT' }], [null]), [{ rater: 'cy', settled: 0, agreeing: 0, share: null }]);
  });
});

describe('the label that counts', () => {
  const t = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
  test('a revision before the labels were final counts; one after counts as first given; without history, the label as stored', () => {
    const unit = labelsAsFirstGiven({
      current: [
        { rater: 'ann', label: 'INCORRECT' },
        { rater: 'bob', label: 'OVERFITTING' },
        { rater: 'cy', label: 'CORRECT' },
        { rater: 'dee', label: 'IRRELEVANT' },
      ],
      events: [
        // Ann: labelled, revised blind, then revised after the fix was complete
        { rater: 'ann', label: 'CORRECT', at: t(1) },
        { rater: 'ann', label: 'OVERFITTING', at: t(2) },
        { rater: 'ann', label: 'INCORRECT', at: t(9) },
        // Bob: one label, kept
        { rater: 'bob', label: 'OVERFITTING', at: t(3) },
        // Cy: labelled only after the cut-off (through a queue that asks for more labels), then revised
        { rater: 'cy', label: 'INCORRECT', at: t(7) },
        { rater: 'cy', label: 'CORRECT', at: t(8) },
      ],
      finalAt: new Map([
        ['ann', t(5)],
        ['bob', t(5)],
        ['cy', t(5)],
        ['dee', t(5)],
      ]),
    });
    assert.deepEqual(unit, { ann: 'OVERFITTING', bob: 'OVERFITTING', cy: 'INCORRECT', dee: 'IRRELEVANT' });
  });

  test('an earlier reveal is the cut-off for that rater; no cut-off: the label as stored', () => {
    const unit = labelsAsFirstGiven({
      current: [
        { rater: 'ann', label: 'CORRECT' },
        { rater: 'bob', label: 'CORRECT' },
      ],
      events: [
        { rater: 'ann', label: 'INCORRECT', at: t(1) },
        { rater: 'ann', label: 'CORRECT', at: t(3) },
        { rater: 'bob', label: 'INCORRECT', at: t(1) },
        { rater: 'bob', label: 'CORRECT', at: t(3) },
      ],
      finalAt: new Map([['ann', t(2)]]),
    });
    assert.deepEqual(unit, { ann: 'INCORRECT', bob: 'CORRECT' });
  });
});
