import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixHistoryLabel, fixTitle, primaryFix, type ChoosableFix } from '@/common/fix-choice';

const f = (id: string, status: ChoosableFix['status'], dropReason: string | null = null) => ({ id, status, dropReason });

test('after edit-then-accept the applied fix is in front, not the newer dropped re-validation fix', () => {
  const fixes = [f('reval', 'DROPPED', 'revalidation of orig'), f('orig', 'APPLIED')];
  assert.equal(primaryFix(fixes)?.id, 'orig');
  assert.equal(fixTitle(primaryFix(fixes)!.status), 'Applied fix');
});

test('while nothing is applied, the one READY fix; with none, the newest for what it is', () => {
  assert.equal(primaryFix([f('new', 'STALE', 'superseded'), f('ready', 'READY')])?.id, 'ready');
  assert.equal(primaryFix([f('a', 'APPLYING'), f('b', 'READY')])?.id, 'a');
  assert.equal(primaryFix([f('r', 'REJECTED'), f('d', 'DROPPED', 'test edit')])?.id, 'r');
  assert.equal(primaryFix([]), null);
});

test('the list names a dropped or superseded fix as such', () => {
  assert.equal(fixHistoryLabel(f('x', 'STALE', 'superseded')), 'superseded by a newer fix');
  assert.equal(fixHistoryLabel(f('x', 'DROPPED', 'revalidation of abc')), 'dropped: the re-validation of an edited fix');
  assert.equal(fixHistoryLabel(f('x', 'DROPPED', 'deletes a test')), 'dropped: deletes a test');
  assert.equal(fixHistoryLabel(f('x', 'APPLIED')), 'applied');
});
