import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, verifyPassword } from '@/lib/auth/password';

test('a password hash verifies the password and nothing else', async () => {
  const hash = await hashPassword('correct horse battery staple');
  assert.ok(hash.startsWith('scrypt$32768$8$1$'), hash);
  assert.ok(!hash.includes('correct horse'));
  assert.equal(await verifyPassword('correct horse battery staple', hash), true);
  assert.equal(await verifyPassword('correct horse battery stapler', hash), false);
  assert.equal(await verifyPassword('', hash), false);
});

test('the same password hashes differently each time (salted)', async () => {
  assert.notEqual(await hashPassword('same'), await hashPassword('same'));
});

test('a malformed stored hash never verifies', async () => {
  assert.equal(await verifyPassword('x', 'plaintext'), false);
  assert.equal(await verifyPassword('x', 'bcrypt$1$2$3$4$5'), false);
});
