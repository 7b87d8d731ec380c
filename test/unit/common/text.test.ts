import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { wrapLabel } from '@/common/text';

// A chart's category names are never dropped for lack of room: each is
// wrapped onto a few short lines and cut with "…" only past them.

describe('wrapLabel', () => {
  test('words onto lines of at most the width', () => {
    assert.deepEqual(wrapLabel('Editor (VS Code)', 9, 2), ['Editor', '(VS Code)']);
    assert.deepEqual(wrapLabel('Pull request', 8, 2), ['Pull', 'request']);
    assert.deepEqual(wrapLabel('API', 8, 2), ['API']);
  });

  test('past the last line, cut with an ellipsis; a word longer than a line is cut too', () => {
    assert.deepEqual(wrapLabel('Tiered · gpt-4.1-mini-2025-04-14', 10, 2), ['Tiered ·', 'gpt-4.1-m…']);
    assert.deepEqual(wrapLabel('Mislocalised (the developer changed other files)', 12, 2), ['Mislocalised', '(the develo…']);
    assert.deepEqual(wrapLabel('', 8, 2), ['']);
  });
});
