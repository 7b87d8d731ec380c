import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentSecurityPolicy, newNonce, nonceFromPolicy } from '../../../lib/http/csp';

// The root layout finds the request's nonce in the policy proxy.ts made, for
// its inline theme script.

test('the nonce comes back out of the policy it was put in', () => {
  for (let i = 0; i < 20; i++) {
    const nonce = newNonce();
    assert.equal(nonceFromPolicy(contentSecurityPolicy(nonce)), nonce);
    assert.equal(nonceFromPolicy(contentSecurityPolicy(nonce, { development: true })), nonce);
  }
});

test('no policy, or one without a nonce, gives none', () => {
  assert.equal(nonceFromPolicy(null), undefined);
  assert.equal(nonceFromPolicy(undefined), undefined);
  assert.equal(nonceFromPolicy("script-src 'self'"), undefined);
});
