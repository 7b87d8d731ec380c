import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { COHORT_TABLE, COUNTER, HISTOGRAM_COLUMN, PRECISION_TABLE, RUN_TABLE, add, addAll, keyedColumn, type Counts } from '../../../lib/insights/tables';

// The rollup tables' shape: every keyed count lands in a jsonb column its
// table has, bigints are among the scalars, and counts add exactly (a zero is
// no entry, so a cell that nets to nothing is empty).

describe('the rollup tables', () => {
  test('a histogram key goes to its own column, every other key to counters', () => {
    assert.equal(keyedColumn(`${COUNTER.fixMs}7`), 'histFix');
    assert.equal(keyedColumn(`${COUNTER.phaseMs}reproduce:3`), 'histPhase');
    assert.equal(keyedColumn(`${COUNTER.developerMs}12`), 'histDeveloper');
    assert.equal(keyedColumn(`${COUNTER.reject}WRONG_FIX`), 'counters');
    assert.equal(keyedColumn(`${COUNTER.noFix}not_localised:no_candidate`), 'counters');
  });

  test('each histogram column belongs to the table its counts are folded into', () => {
    assert.ok(COHORT_TABLE.keyed.includes(HISTOGRAM_COLUMN[COUNTER.developerMs]!));
    for (const prefix of [COUNTER.fixMs, COUNTER.phaseMs, COUNTER.toolCalls, COUNTER.tokens])
      assert.ok(RUN_TABLE.keyed.includes(HISTOGRAM_COLUMN[prefix]!), prefix);
    for (const table of [COHORT_TABLE, RUN_TABLE, PRECISION_TABLE]) {
      for (const b of table.bigints) assert.ok(table.scalars.includes(b), `${table.name}.${b}`);
      assert.ok(table.dims.includes('day'), table.name);
    }
  });

  test('counts add exactly and a zero is no entry', () => {
    const a: Counts = new Map([['runs', 2]]);
    add(a, 'runs', -2);
    assert.equal(a.has('runs'), false);
    const into: Counts = new Map([
      ['found', 3],
      ['posted', 1],
    ]);
    addAll(
      into,
      new Map([
        ['found', 1],
        ['posted', 1],
      ]),
      -1,
    );
    assert.deepEqual([...into], [['found', 2]]);
  });
});
