import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSE_ROLES, GRADING_ROLES, hasRoleIn, homeFor } from '../../../common/roles';

test('each user lands on the first page their roles open', () => {
  // a reviewer's work is the review queue; an admin's start is the triage list
  assert.equal(homeFor(['REVIEWER']), '/review');
  assert.equal(homeFor(['ADMIN']), '/changes');
  assert.equal(homeFor(['REVIEWER', 'ADMIN']), '/review');
  assert.equal(homeFor(['REVIEWER', 'MANAGER']), '/review');
  assert.equal(homeFor(['MANAGER']), '/insights');
  assert.equal(homeFor(['GRADER']), '/grading');
  assert.equal(homeFor(['GRADER', 'REVIEWER']), '/review');
  assert.equal(homeFor(['GRADER', 'MANAGER']), '/insights');
  assert.equal(homeFor([]), '/settings/tokens');
});

test('a grader who holds no other role does not browse changes (reviewers’ decisions would bias the label)', () => {
  assert.equal(hasRoleIn(['GRADER'], BROWSE_ROLES), false);
  assert.equal(hasRoleIn(['GRADER'], GRADING_ROLES), true);
  for (const r of ['REVIEWER', 'MANAGER', 'ADMIN']) assert.equal(hasRoleIn([r], BROWSE_ROLES), true, r);
});
