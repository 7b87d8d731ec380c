import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { persistedSecret, readSecretFile, writeSecretFile } from '../../../lib/auth/secret-file';

function scratch(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-secret-'));
}
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

test('a new secret file is created 0600 even under a permissive umask', () => {
  const dir = scratch();
  const old = process.umask(0o000);
  try {
    const file = path.join(dir, 'data', 'auth-secret');
    const value = persistedSecret({ file, create: () => 'fresh-secret-value' });
    assert.equal(value, 'fresh-secret-value');
    assert.equal(modeOf(file), 0o600);
    assert.equal(persistedSecret({ file, create: () => 'other' }), 'fresh-secret-value', 'kept across runs');
  } finally {
    process.umask(old);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an existing secret file readable by others is tightened to 0600 before it is used', () => {
  const dir = scratch();
  try {
    const file = path.join(dir, 'auth-secret');
    fs.writeFileSync(file, 'old-secret\n');
    fs.chmodSync(file, 0o644);
    assert.equal(persistedSecret({ file, create: () => 'never' }), 'old-secret');
    assert.equal(modeOf(file), 0o600);

    const token = path.join(dir, 'demo-ci-token');
    fs.writeFileSync(token, 'ffx_old\n');
    fs.chmodSync(token, 0o666);
    assert.equal(readSecretFile(token), 'ffx_old');
    assert.equal(modeOf(token), 0o600);
    fs.chmodSync(token, 0o664);
    writeSecretFile(token, 'ffx_new');
    assert.equal(modeOf(token), 0o600);
    assert.equal(readSecretFile(token), 'ffx_new');
    assert.equal(readSecretFile(path.join(dir, 'missing')), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
