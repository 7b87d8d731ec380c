import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runStartedCell } from '@/common/run-list';

// The Runs list's "Started" is when a worker began the run, not when it was
// queued: a run that waited half an hour in the queue started half an hour
// after it was queued.

describe('runStartedCell', () => {
  const now = Date.parse('2026-11-30T11:00:00Z');

  test('a run that waited in the queue: started is its start, and the wait is said', () => {
    const cell = runStartedCell({ createdAt: '2026-11-30T10:00:00.000Z', startedAt: '2026-11-30T10:30:00.000Z' }, now);
    assert.equal(cell.started, true);
    assert.equal(cell.text, '30 min ago');
    assert.equal(cell.at, '2026-11-30T10:30:00.000Z');
    assert.match(cell.title, /queued 30 min before it started/);
  });

  test('a run that started at once says nothing of a wait', () => {
    const cell = runStartedCell({ createdAt: '2026-11-30T10:00:00.000Z', startedAt: '2026-11-30T10:00:00.400Z' }, now);
    assert.equal(cell.text, '59 min ago');
    assert.doesNotMatch(cell.title, /queued/);
  });

  test('a run not started yet says it waits, since when', () => {
    const cell = runStartedCell({ createdAt: '2026-11-30T10:55:00.000Z', startedAt: null }, now);
    assert.equal(cell.started, false);
    assert.equal(cell.text, 'not yet (queued 5 min ago)');
    assert.equal(cell.at, null);
  });
});
