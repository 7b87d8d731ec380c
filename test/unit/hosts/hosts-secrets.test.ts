import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSecretBox, SecretDecryptError } from '../../../lib/hosts/secrets';
import { parseEnv } from '../../../lib/env';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

describe('code-host secrets at rest (AES-256-GCM)', () => {
  test('round-trips, names its version and key, never contains the plaintext, and a fresh nonce each time', () => {
    const box = createSecretBox({ current: k1 });
    const secret = '-----BEGIN RSA PRIVATE KEY-----\nMIIE…';
    const a = box.encrypt(secret, 'github.privateKey:h1');
    const b = box.encrypt(secret, 'github.privateKey:h1');
    assert.match(a, /^ffs1:k1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/);
    assert.notEqual(a, b);
    assert.ok(!a.includes('PRIVATE'));
    assert.equal(box.decrypt(a, 'github.privateKey:h1'), secret);
  });

  test('another purpose (column or host), a flipped bit or an unknown key does not decrypt', () => {
    const box = createSecretBox({ current: k1 });
    const stored = box.encrypt('s3cret', 'gitlab.token:h1');
    assert.throws(() => box.decrypt(stored, 'gitlab.token:h2'), SecretDecryptError);
    const parts = stored.split(':');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    assert.throws(() => box.decrypt([...parts.slice(0, 3), body.toString('base64url')].join(':'), 'gitlab.token:h1'), SecretDecryptError);
    assert.throws(() => createSecretBox({ current: k2 }).decrypt(stored, 'gitlab.token:h1'), /key "k1", which is not configured/);
    assert.throws(() => box.decrypt('plain text', 'gitlab.token:h1'), /unknown format/);
  });

  test('after a rotation the old key still decrypts and the new one encrypts', () => {
    const before = createSecretBox({ current: k1 }).encrypt('webhook-secret', 'p');
    const rotated = createSecretBox({ current: k2, old: [k1] });
    assert.equal(rotated.decrypt(before, 'p'), 'webhook-secret');
    assert.match(rotated.encrypt('x', 'p'), /^ffs1:k2:/);
  });

  test('the env module refuses a key that is not 32 bytes of base64, and marks it secret', async () => {
    assert.throws(() => parseEnv({ FLOWFIX_SECRETS_KEY: Buffer.alloc(16).toString('base64') }), /FLOWFIX_SECRETS_KEY: must be 32 bytes/);
    assert.equal(parseEnv({ FLOWFIX_SECRETS_KEY: randomBytes(32).toString('base64') }).FLOWFIX_SECRETS_KEY_ID, 'k1');
    const { SECRET_ENV_NAMES } = await import('../../../lib/env');
    assert.ok((SECRET_ENV_NAMES as readonly string[]).includes('FLOWFIX_SECRETS_KEY'));
  });
});
