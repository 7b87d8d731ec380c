import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMutant, ownMutants, seededRandom, shuffled, strykerMutants } from '../../../bench/mutants/mutate';

const SOURCE = `export function pick(items: number[], opts: { limit: number; offset: number }): number[] {
  const out = items.slice(opts.offset, opts.offset + opts.limit);
  return out;
}
export async function load(read: () => Promise<string>): Promise<string> {
  const text = await read();
  return text.length < 10 && text !== '' ? text : '';
}
`;

describe('bench mutants: the mutators', () => {
  it("Stryker's instrumenter gives the boundary, equality and logical mutants at their exact spans", async () => {
    const mutants = await strykerMutants([{ file: 'src/x.ts', text: SOURCE }]);
    const boundary = mutants.find((m) => m.operator === 'EqualityOperator' && m.replacement === 'text.length <= 10');
    assert.ok(boundary, JSON.stringify(mutants.map((m) => [m.operator, m.replacement])));
    assert.equal(boundary.original, 'text.length < 10');
    assert.equal(boundary.line, 7);
    assert.ok(mutants.some((m) => m.operator === 'LogicalOperator' && m.replacement === "text.length < 10 || text !== ''"));
    // block removal and string literals are left out
    assert.ok(!mutants.some((m) => m.operator === 'BlockStatement' || m.operator === 'StringLiteral'));
    for (const m of mutants) assert.equal(applyMutant(SOURCE, m).length, SOURCE.length - m.original.length + m.replacement.length);
  });

  it('the own operators: off-by-one constants, swapped arguments, removed return and await, a wrong property', () => {
    const mutants = ownMutants('src/x.ts', SOURCE);
    const applied = (op: string) => mutants.filter((m) => m.operator === op).map((m) => applyMutant(SOURCE, m));
    assert.ok(applied('OffByOneConstant').some((t) => t.includes('text.length < 11')));
    assert.ok(applied('OffByOneConstant').some((t) => t.includes('text.length < 9')));
    assert.ok(applied('SwappedArguments').some((t) => t.includes('items.slice(opts.offset + opts.limit, opts.offset)')));
    assert.ok(applied('RemovedReturn').some((t) => t.includes('\n  out;\n')));
    assert.ok(applied('RemovedAwait').some((t) => t.includes('const text = read();')));
    assert.ok(applied('WrongProperty').some((t) => t.includes('items.slice(opts.limit, ')));
    // type annotations are never mutated
    assert.ok(!mutants.some((m) => m.line === 1 && m.operator === 'WrongProperty'));
  });

  it('a mutant that does not match the text is refused', () => {
    assert.throws(() => applyMutant('abc', { start: 0, end: 1, original: 'x', replacement: 'y' }), /does not match/);
  });

  it('a seed names one order', () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    assert.deepEqual(shuffled(items, seededRandom(7)), shuffled(items, seededRandom(7)));
    assert.notDeepEqual(shuffled(items, seededRandom(7)), shuffled(items, seededRandom(8)));
  });
});
