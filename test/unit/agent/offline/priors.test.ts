import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CORPUS_FIX_COUNTS, editSize, sizeFactor, templatePrior } from '../../../../agent/policies/offline/priors';
import { corpusFixCounts } from '../../../../bench/agent/priors';
import { BUGS } from '../../../../bench/agent/corpus/index';

test('the pattern priors are the corpus’s own counts (bench/agent/priors.ts), for every template', () => {
  assert.deepEqual(CORPUS_FIX_COUNTS, corpusFixCounts(BUGS));
});

test('a prior is (count + 1) / (max + 1): the commonest fix pattern 1, an unseen one still above 0', () => {
  const max = Math.max(...Object.values(CORPUS_FIX_COUNTS));
  const top = Object.entries(CORPUS_FIX_COUNTS).find(([, n]) => n === max)![0] as keyof typeof CORPUS_FIX_COUNTS;
  assert.equal(templatePrior(top), 1);
  const unseen = Object.entries(CORPUS_FIX_COUNTS).find(([, n]) => n === 0);
  if (unseen) assert.equal(templatePrior(unseen[0] as keyof typeof CORPUS_FIX_COUNTS), 1 / (max + 1));
  assert.equal(templatePrior('stale-expectation'), 1, 'stale expectations are ordered apart');
});

test('edit size counts tokens deleted and inserted: one operator swapped is 2, two arguments swapped 4, a guard statement more', () => {
  assert.equal(editSize('<', '<='), 2);
  assert.equal(editSize('a, b', 'b, a'), 4, 'a swap: two names out, two in');
  assert.equal(editSize('', 'if (xs.length === 0) return 0;\n'), 11, 'if ( xs . length === 0 ) return 0 ;');
  assert.equal(sizeFactor(2), 1);
  assert.ok(sizeFactor(12) < sizeFactor(3));
});
