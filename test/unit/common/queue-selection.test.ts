import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectionAfterDecision } from '../../../common/queue-selection';

const queue = ['a', 'b', 'c', 'd'];

test('a decided card hands the selection to the card after it', () => {
  assert.equal(selectionAfterDecision(queue, 'b', 'b'), 'c');
  assert.equal(selectionAfterDecision(queue, 'a', 'a'), 'b');
});

test('the last card hands it to the one before it; the only card to nothing', () => {
  assert.equal(selectionAfterDecision(queue, 'd', 'd'), 'c');
  assert.equal(selectionAfterDecision(['a'], 'a', 'a'), null);
});

test('no explicit selection means the first card is selected', () => {
  assert.equal(selectionAfterDecision(queue, null, 'a'), 'b');
  assert.equal(selectionAfterDecision(queue, 'gone', 'a'), 'b');
  assert.equal(selectionAfterDecision(queue, null, 'c'), null);
});

test('a decision on a card the reviewer has moved away from leaves the selection alone', () => {
  assert.equal(selectionAfterDecision(queue, 'a', 'c'), 'a');
  // a fix no longer listed (decided elsewhere) changes nothing
  assert.equal(selectionAfterDecision(queue, 'b', 'x'), 'b');
});
