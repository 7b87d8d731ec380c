import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMutant, higherOrderMutants, orderOf, ownMutants, seededRandom, strykerMutants } from '../../../bench/mutants/mutate';
import { truthOf } from '../../../bench/mutants/run';

const SOURCE = `export function window(items: number[], start: number, size: number): number[] {
  if (start < 0 || size <= 0) return [];
  return items.slice(start, start + size);
}

export class Meter {
  total = 0;
  add(n: number): number {
    this.total += n > 0 ? n : 0;
    return this.total;
  }
}

export const LIMIT = 10;
`;

async function firstOrder() {
  return [...(await strykerMutants([{ file: 'src/w.ts', text: SOURCE }])), ...ownMutants('src/w.ts', SOURCE)];
}

describe('bench mutants: higher-order mutants', () => {
  it('a higher-order mutant holds two non-overlapping mutations inside one named function, applied as one splice', async () => {
    const mutants = await firstOrder();
    const fn = (m: { line: number }) => truthOf('src/w.ts', SOURCE, m.line);
    const pairs = higherOrderMutants(SOURCE, mutants, fn, seededRandom(1));
    assert.ok(pairs.length >= 4, `${pairs.length} pairs`);
    const used = new Set<string>();
    for (const pair of pairs) {
      assert.equal(orderOf(pair), 2);
      const [a, b] = pair.parts ?? [];
      assert.ok(a && b);
      // both in the same function, and that function is a named one
      assert.ok(fn(a) !== null && fn(a) === fn(b), `${a.id} in ${fn(a)}, ${b.id} in ${fn(b)}`);
      assert.ok(a.end <= b.start, `${a.id} overlaps ${b.id}`);
      // the pair is both mutations: the same text as applying one then the other
      assert.equal(applyMutant(SOURCE, pair), applyMutant(applyMutant(SOURCE, b), a));
      assert.notEqual(applyMutant(SOURCE, pair), applyMutant(SOURCE, a));
      assert.notEqual(applyMutant(SOURCE, pair), applyMutant(SOURCE, b));
      // each first-order mutant is in one pair at most
      assert.ok(!used.has(a.id) && !used.has(b.id));
      used.add(a.id);
      used.add(b.id);
    }
    // the module-level constant is in no function: none of its mutants is paired
    assert.ok(!pairs.some((p) => p.parts?.some((m) => m.line === 14)));
    assert.ok(pairs.some((p) => fn(p) === 'window') && pairs.some((p) => fn(p) === 'Meter.add'), pairs.map((p) => fn(p)).join(', '));
  });

  it("the pairs are the seed's: the same seed gives the same pairs, another seed others", async () => {
    const mutants = await firstOrder();
    const fn = (m: { line: number }) => truthOf('src/w.ts', SOURCE, m.line);
    const ids = (seed: number) => higherOrderMutants(SOURCE, mutants, fn, seededRandom(seed)).map((p) => p.id);
    assert.deepEqual(ids(3), ids(3));
    assert.notDeepEqual(ids(3), ids(4));
  });
});
