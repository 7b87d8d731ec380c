#!/usr/bin/env node
// Installs what is missing, with nothing but Node: the first step of both
// `npm run demo` and `npm test` on a fresh clone.
//   1. system packages (`--for test` or `--for demo`): Debian packages the
//      product or the tests run, installed with apt-get when we are root, or
//      named in one line saying how to install them when we are not
//   2. node_modules missing or older than package-lock.json → npm ci
//   3. the Prisma client missing or older than schema.prisma → prisma generate
// Prisma's CLI would try to download a native schema engine that this kind of
// machine cannot reach; PRISMA_SCHEMA_ENGINE_BINARY pointing at any file stops
// that (generate does not need the engine).
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/false' };
const run = (cmd) => {
  console.log(`[ensure-deps] ${cmd}`);
  execSync(cmd, { cwd: root, stdio: 'inherit', env });
};

// The oldest Node flowfix runs on (package.json's engines): Prisma 7 needs
// 20.19, whose require() of ES modules some dependencies rely on. Three
// packages declare Node 22 (@axe-core/playwright, content-type through
// @octokit/request, and @prisma/streams-local of the prisma CLI's unused `dev`
// command); what flowfix uses of them runs on 20.19, which the tests prove.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`[ensure-deps] Node ${process.versions.node} is too old: flowfix needs Node 20.19 or newer`);
  process.exit(2);
}

// --generate-only: called from npm's postinstall, where installing again would recurse
const generateOnly = process.argv.includes('--generate-only');
const purpose = process.argv.includes('--for') ? process.argv[process.argv.indexOf('--for') + 1] : null;
if (purpose && !['test', 'demo'].includes(purpose)) {
  console.error(`[ensure-deps] --for ${purpose}: expected "test" or "demo"`);
  process.exit(2);
}
if (purpose) ensureSystemPackages(purpose);
const lock = path.join(root, 'package-lock.json');
const installed = path.join(root, 'node_modules', '.package-lock.json');
if (!generateOnly && (!existsSync(installed) || mtime(lock) > mtime(installed))) {
  run(existsSync(lock) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund');
}

const schema = path.join(root, 'prisma', 'schema.prisma');
const client = path.join(root, 'lib', 'generated', 'prisma', 'client.ts');
if (mtime(schema) > mtime(client)) {
  run('npx prisma generate');
}

/**
 * What the product needs from the operating system, by what checks for it.
 * bubblewrap: every repository command runs in its sandbox; git: workspaces;
 * python3 with pytest: the Python demo repository and the Python tests;
 * chromium: the end-to-end tests.
 */
function systemNeeds(forWhat) {
  const has = (cmd, args = ['--version']) => {
    try {
      return spawnSync(cmd, args, { stdio: 'ignore', timeout: 20_000 }).status === 0;
    } catch {
      return false;
    }
  };
  const needs = [];
  if (!has('git')) needs.push('git');
  if (!has('bwrap')) needs.push('bubblewrap');
  if (!has('python3', ['-c', 'import pytest'])) needs.push('python3-pytest');
  if (forWhat === 'test' && !has(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) needs.push('chromium');
  return needs;
}

function ensureSystemPackages(forWhat) {
  const needs = systemNeeds(forWhat);
  if (needs.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    // not ours to install: say exactly what, once, and let the step that needs it fail with its own message
    console.error(
      `[ensure-deps] missing system packages: ${needs.join(' ')}; install them with ` +
        `\`sudo apt-get install -y --no-install-recommends ${needs.join(' ')}\` (Debian/Ubuntu package names)`,
    );
    return;
  }
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  console.log(`[ensure-deps] apt-get install ${needs.join(' ')}`);
  execSync('apt-get update -qq', { stdio: 'inherit', env: aptEnv });
  execSync(`apt-get install -y -qq --no-install-recommends ${needs.join(' ')}`, { stdio: 'inherit', env: aptEnv });
  const still = systemNeeds(forWhat);
  if (still.length) console.error(`[ensure-deps] still missing after apt-get: ${still.join(' ')}`);
}
