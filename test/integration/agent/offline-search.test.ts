import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { runRepair } from '@/agent/pipeline';
import { createOfflinePolicy } from '@/agent/policies/offline';
import { ArraySink } from '@/agent/report/sinks';
import { createTsRepo, type TestRepo } from '../../helpers/agent-repos';

// The offline policy in the whole pipeline, where the regression suite has a
// say: a candidate that turns the target green but breaks another test is
// refused, and the policy goes on from the next candidate.

const repos: TestRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

const BASE = `export function isAdult(age: number): boolean {
  if (age < 18) return false;
  return true;
}
`;
// The change names the age and, in passing, folds the guard into a comparison
// that is the wrong way round. Nothing of the base's text is the fix, so the
// change's old side does not lift the right candidate over the others.
const HEAD = `export const ADULT_AGE_NOTE = 'the age of majority';

export function isAdult(age: number): boolean {
  return age < 18;
}
`;
const TESTS = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAdult } from '../src/age.ts';

test('a thirty-year-old is an adult', () => {
  assert.equal(isAdult(30), true);
});

test('adulthood starts at eighteen', () => {
  assert.equal(isAdult(18), true);
  assert.equal(isAdult(5), false);
});
`;

describe('offline policy after a regression refusal', () => {
  test('goes on from the candidate after the refused one; nothing before it is validated again', async () => {
    const repo = createTsRepo();
    repos.push(repo);
    repo.git('rm', '-q', 'test/cart.test.ts');
    repo.write('src/age.ts', BASE);
    repo.write('test/age.test.ts', TESTS);
    const base = repo.commit('age');
    repo.write('src/age.ts', HEAD);
    const head = repo.commit('age: a note on the age of majority');
    const sink = new ArraySink();
    const result = await runRepair({
      repoPath: repo.dir,
      baseRev: base,
      headRev: head,
      // only the first test is the target: `age > 18` turns it green, the regression suite refuses that
      targetTests: ['test::a thirty-year-old is an adult'],
      settings: repo.settings,
      policy: createOfflinePolicy({ maxCandidates: 30 }),
      sink,
      change: { title: 'age: a note', description: 'Names the age of majority.', author: 'dev' },
    });
    assert.equal(result.exitReason, 'fixed', `${result.exitReason}: ${result.exitDetail}`);
    assert.match(result.diff, /^\+  return age >= 18;$/m);

    const tried = sink
      .ofType('candidate')
      .map((e) => ({ rank: Number(e.payload.rank), outcome: String(e.payload.outcome), description: String(e.payload.description) }));
    const ranks = tried.map((t) => t.rank);
    assert.deepEqual(ranks, [...new Set(ranks)], `each candidate is validated once: ${ranks.join(', ')}`);
    for (let i = 1; i < ranks.length; i += 1) assert.ok(ranks[i] > ranks[i - 1], `in order: ${ranks.join(', ')}`);

    // one GREEN candidate was refused by the regression suite, and the next validated is the one after it
    const regressions = sink
      .ofType('gate')
      .filter((e) => e.payload.gate === 'regression')
      .map((e) => e.payload.passed);
    assert.deepEqual(regressions, [false, true]);
    const greens = tried.filter((t) => t.outcome === 'green');
    assert.equal(greens.length, 2);
    assert.match(greens[0].description, /`<` → `>`$/);
    const refused = greens[0].rank;
    const resumedAt = tried.findIndex((t) => t.rank === refused) + 1;
    assert.equal(tried[resumedAt]?.rank, refused + 1, 'the next turn starts right after the refused candidate');
    const thoughts = sink.ofType('thought').map((e) => String(e.payload.text));
    assert.ok(
      thoughts.some((t) => t.startsWith(`The regression suite refused candidate ${refused}; going on from candidate ${refused + 1} of `)),
      thoughts.join('\n'),
    );
  });
});
