import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '@/lib/db';
import { hashToken } from '@/lib/tokens/auth';

// `npm run demo -- --no-serve` for real, in a temporary data folder with the
// embedded database: the steps before the server starts (the server itself is
// exercised by the end-to-end suite).

const ROOT = path.resolve(import.meta.dirname, '../../..');

function runDemo(dataDir: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string | undefined> = { ...process.env, FLOWFIX_DATA_DIR: dataDir };
  // the embedded database, whatever the suite around us uses
  delete env.DATABASE_URL;
  delete env.NEXTAUTH_SECRET;
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', ...args], {
      cwd: ROOT,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('scripts/demo.ts --no-serve', () => {
  let dataDir: string;

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'flowfix-demo-script-'));
  });

  after(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  test('migrates, builds the repositories, seeds and keeps its secrets private; a second run reuses everything', async () => {
    const first = await runDemo(dataDir, ['--no-serve']);
    assert.equal(first.code, 0, first.output);
    assert.match(first.output, /applied/);

    for (const file of ['auth-secret', 'demo-ci-token']) {
      const stat = await fs.stat(path.join(dataDir, file));
      assert.equal(stat.mode & 0o777, 0o600, `${file} is 0600`);
    }
    const secret = (await fs.readFile(path.join(dataDir, 'auth-secret'), 'utf8')).trim();
    const token = (await fs.readFile(path.join(dataDir, 'demo-ci-token'), 'utf8')).trim();
    assert.ok(secret.length >= 32);
    await fs.access(path.join(dataDir, 'repos', 'checkout-ts', '.git'));
    await fs.access(path.join(dataDir, 'repos', 'ledger-py', '.git'));

    const second = await runDemo(dataDir, ['--no-serve']);
    assert.equal(second.code, 0, second.output);
    assert.match(second.output, /database \(pglite\): up to date/);
    assert.match(second.output, /checkout-ts: .* \(up to date/);
    assert.equal((await fs.readFile(path.join(dataDir, 'auth-secret'), 'utf8')).trim(), secret);
    assert.equal((await fs.readFile(path.join(dataDir, 'demo-ci-token'), 'utf8')).trim(), token);

    // the script closed the folder: we can own it now
    const handle = openDb({ kind: 'pglite', location: path.join(dataDir, 'pglite') });
    try {
      assert.equal(await handle.db.user.count({ where: { email: { endsWith: '@demo.flowfix' } } }), 4);
      const tokens = await handle.db.ciToken.findMany();
      assert.deepEqual(
        tokens.map((t) => t.tokenHash),
        [hashToken(token)],
      );
      const repos = await handle.db.repository.findMany({ orderBy: { name: 'asc' } });
      assert.deepEqual(
        repos.map((r) => r.gitUrl),
        [path.join(dataDir, 'repos', 'checkout-ts'), path.join(dataDir, 'repos', 'ledger-py')],
      );
    } finally {
      await handle.close();
    }
  });
});
