import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lockSeconds, MAX_DELAY_S, throttledCode } from '../../../lib/auth/throttle';
import { signInErrorMessage, waitText } from '../../../components/signin/messages';

test('an account gets four free failures, then 1 s doubling up to 15 minutes', () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((n) => lockSeconds('account', n)),
    [0, 0, 0, 0],
  );
  assert.deepEqual(
    [5, 6, 7, 8].map((n) => lockSeconds('account', n)),
    [1, 2, 4, 8],
  );
  assert.equal(lockSeconds('account', 14), 512);
  assert.equal(lockSeconds('account', 15), MAX_DELAY_S);
  assert.equal(lockSeconds('account', 10_000), MAX_DELAY_S);
  // an address (a whole office behind one NAT) gets more room first
  assert.equal(lockSeconds('address', 19), 0);
  assert.equal(lockSeconds('address', 20), 1);
});

test('the lock reaches the page as a clear message', () => {
  assert.equal(throttledCode(0.2), 'SignInThrottled:1');
  assert.equal(signInErrorMessage('SignInThrottled:1'), 'Too many attempts; try again in 1 second. An admin can unlock the account sooner.');
  assert.equal(signInErrorMessage('SignInThrottled:61'), 'Too many attempts; try again in 2 minutes. An admin can unlock the account sooner.');
  assert.equal(waitText(45), '45 seconds');
  assert.equal(waitText(60), '1 minute');
  assert.equal(waitText(900), '15 minutes');
  assert.equal(signInErrorMessage('SignInThrottled:abc'), 'Sign-in failed. Try again.');
});
