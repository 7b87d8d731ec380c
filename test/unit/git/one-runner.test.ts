import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// Every git process the product starts goes through lib/git (the runner's
// profiles for repositories flowfix reads or owns, runUserGit for the CLI in
// the user's own checkout): a direct spawn of git would run with the
// repository's config and the caller's environment. Benchmarks and tests make
// their own scratch repositories and are not product code.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const PRODUCT = ['lib', 'agent', 'cli', 'app', 'components', 'common', 'demo', 'scripts', 'bin'];
// lib/git's own spawn, and the deployment test (npm run test:deploy), which makes its scratch repository as the other tests do
const ALLOWED = new Set([path.join('lib', 'git', 'process.ts'), path.join('scripts', 'test-deploy.mjs')]);
// `promisify(execFile)('git', …)` as well as `execFile('git', …)`
const DIRECT_GIT = /\b(?:execFile|execFileSync|spawn|spawnSync|exec|execSync)\)?\(\s*['"`]git\b/;

function productFiles(): string[] {
  return PRODUCT.flatMap((dir) => {
    const abs = path.join(ROOT, dir);
    if (!fs.existsSync(abs)) return [];
    return fs
      .readdirSync(abs, { recursive: true })
      .map(String)
      .filter((f) => /\.(c|m)?[tj]sx?$/.test(f) && !f.split(path.sep).includes('generated'))
      .map((f) => path.join(dir, f));
  });
}

test('product code starts git only through lib/git', () => {
  const offenders = productFiles().filter((file) => !ALLOWED.has(file) && DIRECT_GIT.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  assert.deepEqual(offenders, []);
});

test('the scan sees a direct spawn of git', () => {
  assert.ok(DIRECT_GIT.test("await promisify(execFile)('git', ['-C', repo, 'show', rev])"));
  assert.ok(DIRECT_GIT.test("execFile('git', ['-C', repo, 'show', rev])"));
  assert.ok(DIRECT_GIT.test("spawnSync('git', ['status'])"));
  assert.ok(!DIRECT_GIT.test("runGit('read', repo, ['show', rev])"));
});
