import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// One door to the sandbox: everything outside lib/sandbox/ imports it from
// lib/sandbox (index.ts: may a command run, the argv that runs one, the
// parts beside it) or the admin's stored mode (settings.ts), never one of
// its parts, so "refuse unless the admin chose unsafe" is written once.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DIRS = ['agent', 'app', 'bench', 'cli', 'components', 'lib', 'scripts', 'demo'];
const PART = /(?:^|\/)lib\/sandbox\/(?!settings$)[\w.-]+$/;

function sourceFiles(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { recursive: true })
    .map(String)
    .filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f) && !f.includes('node_modules') && !f.startsWith('generated'))
    .map((f) => path.join(dir, f))
    .filter((f) => !f.startsWith(path.join('lib', 'sandbox') + path.sep));
}

function specifiers(file: string): string[] {
  const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...source.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2])!,
  );
}

test('nothing outside lib/sandbox/ imports one of its parts', () => {
  const files = DIRS.flatMap(sourceFiles);
  assert.ok(files.length > 100, `found ${files.length} files: the scan must see the sources`);
  const through: string[] = [];
  const parts: string[] = [];
  for (const file of files) {
    for (const spec of specifiers(file)) {
      if (/(?:^|\/)lib\/sandbox$/.test(spec)) through.push(file);
      if (PART.test(spec)) parts.push(`${file} imports ${spec}`);
    }
  }
  assert.ok(through.includes(path.join('agent', 'workspace', 'exec.ts')), 'the scan sees the door');
  assert.deepEqual(parts, []);
});

test('the check tells a part from the door', () => {
  assert.ok(PART.test('../../lib/sandbox/argv'));
  assert.ok(PART.test('@/lib/sandbox/probe'));
  assert.ok(!PART.test('../../lib/sandbox'));
  assert.ok(!PART.test('@/lib/sandbox/settings'));
});
