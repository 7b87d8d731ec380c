import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnv } from '@/lib/env';

describe('parseEnv', () => {
  test('defaults to the embedded database and 20 MB uploads', () => {
    const env = parseEnv({});
    assert.equal(env.DATABASE_URL, undefined);
    assert.equal(env.FLOWFIX_DATA_DIR, '.data');
    assert.equal(env.FLOWFIX_MAX_UPLOAD_BYTES, 20 * 1024 * 1024);
    assert.equal(env.FLOWFIX_DEMO, false);
  });

  test('names the variable that is wrong', () => {
    assert.throws(() => parseEnv({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL: must start with postgresql:\/\/ or pglite:\/\//);
    assert.throws(() => parseEnv({ FLOWFIX_MAX_UPLOAD_BYTES: '-5' }), /FLOWFIX_MAX_UPLOAD_BYTES/);
  });

  test('production requires a session secret', () => {
    assert.throws(() => parseEnv({ NODE_ENV: 'production' }), /NEXTAUTH_SECRET: is required in production/);
    assert.equal(parseEnv({ NODE_ENV: 'production', NEXTAUTH_SECRET: 'x'.repeat(32) }).NODE_ENV, 'production');
  });

  test('OIDC needs issuer, client id and secret together', () => {
    assert.throws(() => parseEnv({ OIDC_ISSUER: 'https://idp.example.com' }), /must be set together/);
    const env = parseEnv({ OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' });
    assert.equal(env.OIDC_CLIENT_ID, 'a');
  });

  test('reads demo mode from the usual spellings of true', () => {
    assert.equal(parseEnv({ FLOWFIX_DEMO: '1' }).FLOWFIX_DEMO, true);
    assert.equal(parseEnv({ FLOWFIX_DEMO: 'true' }).FLOWFIX_DEMO, true);
    assert.equal(parseEnv({ FLOWFIX_DEMO: '0' }).FLOWFIX_DEMO, false);
  });
});
