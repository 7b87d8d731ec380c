#!/usr/bin/env node
// Installs what is missing, with nothing but Node: the first step of both
// `npm run demo` and `npm test` on a fresh clone.
//   1. node_modules missing or older than package-lock.json → npm ci
//   2. the Prisma client missing or older than schema.prisma → prisma generate
// Prisma's CLI would try to download a native schema engine that this kind of
// machine cannot reach; PRISMA_SCHEMA_ENGINE_BINARY pointing at any file stops
// that (generate does not need the engine).
import { execSync } from 'node:child_process';
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

// --generate-only: called from npm's postinstall, where installing again would recurse
const generateOnly = process.argv.includes('--generate-only');
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
