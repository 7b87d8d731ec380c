import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMutant, higherOrderMutants, pythonMutants, seededRandom } from '../../../bench/mutants/mutate';
import { truthOf } from '../../../bench/mutants/run';

const SOURCE = `"""Fees."""
from decimal import Decimal

OVERDRAFT = Decimal("35.00")


class Account:
    def __init__(self, balance):
        self.balance = balance
        self.limit = 0

    def fee(self, days):
        if self.balance < self.limit and days >= 1:
            return OVERDRAFT * days
        return Decimal("0")


def total(items):
    return sum(item.amount for item in items if not item.void)
`;

describe('bench mutants: Python mutants', () => {
  it("the classic operators over Python's ast, at exact character spans", () => {
    const { mutants } = pythonMutants('ledger/fees.py', SOURCE);
    const has = (op: string, original: string, replacement: string) =>
      mutants.some((m) => m.operator === op && m.original === original && m.replacement === replacement);
    assert.ok(has('EqualityOperator', '<', '<='), JSON.stringify(mutants.map((m) => [m.operator, m.original, m.replacement])));
    assert.ok(has('EqualityOperator', '>=', '>'));
    assert.ok(has('LogicalOperator', 'and', 'or'));
    assert.ok(has('ArithmeticOperator', '*', '/'));
    assert.ok(has('OffByOneConstant', '1', '2') && has('OffByOneConstant', '0', '1'));
    assert.ok(has('BooleanLiteral', 'not ', ''));
    assert.ok(has('RemovedReturn', 'return ', ''));
    assert.ok(has('WrongProperty', 'balance', 'limit'));
    for (const m of mutants) {
      assert.equal(SOURCE.slice(m.start, m.end), m.original);
      assert.equal(applyMutant(SOURCE, m).length, SOURCE.length - m.original.length + m.replacement.length);
    }
  });

  it('the ground truth is the dotted name the product gives a Python function or method', () => {
    assert.equal(truthOf('ledger/fees.py', SOURCE, 13), 'Account.fee');
    assert.equal(truthOf('ledger/fees.py', SOURCE, 19), 'total');
    assert.equal(truthOf('ledger/fees.py', SOURCE, 4), null);
  });

  it('pairs of Python mutants stay inside one function', () => {
    const { mutants } = pythonMutants('ledger/fees.py', SOURCE);
    const fn = (m: { line: number }) => truthOf('ledger/fees.py', SOURCE, m.line);
    const pairs = higherOrderMutants(
      SOURCE,
      mutants.filter((m) => fn(m) !== null),
      fn,
      seededRandom(2),
    );
    assert.ok(pairs.length > 0);
    for (const p of pairs) assert.equal(fn(p.parts![0]), fn(p.parts![1]));
  });
});
