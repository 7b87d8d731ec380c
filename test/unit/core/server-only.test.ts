import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// lib/ is server code; a module there that touches a server resource (Node's
// built-ins, the database drivers, the queue, next-auth, process.env) carries
// `import 'server-only'`, so that a client component reaching it fails
// `next build` (test/integration/build/server-only.test.ts) instead of
// shipping it to the browser. common/ is the browser-safe side and reaches
// none of that. Next resolves 'server-only' per bundle layer itself; every
// plain Node process (tests, worker, CLI, scripts, bench) runs under tsx,
// which follows tsconfig.json's mapping of it to the package's empty build.

const ROOT = path.resolve(import.meta.dirname, '../../..');

const SERVER_PACKAGE = /^(node:.*|pg|pg-boss|@electric-sql\/.*|@prisma\/.*|pglite-prisma-adapter|next-auth(\/.*)?|openai|server-only)$/;
const MARKER = /^import 'server-only';$/m;

function sourceFiles(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { recursive: true })
    .map(String)
    .filter((f) => /\.tsx?$/.test(f) && !f.split(path.sep).includes('generated'))
    .map((f) => path.join(dir, f))
    .sort();
}

/** Specifiers a module imports at run time: `import type` and `export type` are erased. */
function runtimeImports(source: string): string[] {
  const specifiers: string[] = [];
  const statement = /^(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(statement)) {
    if (!match[1]) specifiers.push(match[2]);
  }
  for (const match of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(match[1]);
  return specifiers;
}

/** The repository file a `@/…` or relative specifier names, or null for a package. */
function resolveLocal(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith('@/')) base = specifier.slice(2);
  else if (specifier.startsWith('.')) base = path.join(path.dirname(from), specifier);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')]) {
    const abs = path.join(ROOT, candidate);
    if (fs.existsSync(abs) && fs.statSync(abs).isFile()) return path.normalize(candidate);
  }
  return null;
}

function needsServer(source: string): string[] {
  const reasons = runtimeImports(source).filter((s) => SERVER_PACKAGE.test(s) && s !== 'server-only');
  if (/\bprocess\.env\b/.test(source)) reasons.push('process.env');
  return reasons;
}

describe('server-only marks', () => {
  test('under tsx the marker is the empty build, so Node processes load marked modules', async () => {
    await assert.doesNotReject(import('server-only'));
    const db = await import('../../../lib/db');
    assert.equal(typeof db.openDb, 'function');
  });

  test('every lib/ module that touches a server resource is marked server-only', () => {
    const unmarked = sourceFiles('lib')
      .map((file) => ({ file, source: fs.readFileSync(path.join(ROOT, file), 'utf8') }))
      .filter(({ source }) => needsServer(source).length > 0 && !MARKER.test(source))
      .map(({ file, source }) => `${file} (${needsServer(source).join(', ')})`);
    assert.deepEqual(unmarked, []);
  });

  test('common/ is browser-safe: no server resource, nothing from lib/, agent/, demo/ or scripts/ at run time', () => {
    const offenders = sourceFiles('common').flatMap((file) => {
      const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const serverImports = runtimeImports(source).filter((s) => SERVER_PACKAGE.test(s) || /^(@\/|(\.\.\/)+)(lib|agent|demo|scripts)(\/|$)/.test(s));
      const reasons = [...serverImports, ...(/\bprocess\.env\b/.test(source) ? ['process.env'] : [])];
      return reasons.length ? [`${file} (${reasons.join(', ')})`] : [];
    });
    assert.deepEqual(offenders, []);
  });

  test("browser code reaches lib/ and agent/ only with `import type`: every 'use client' module and what it imports", () => {
    const offenders: string[] = [];
    const seen = new Set<string>();
    const queue = [...sourceFiles('app'), ...sourceFiles('components')].filter((file) =>
      /^\s*['"]use client['"]/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
    );
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const specifier of runtimeImports(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
        const target = resolveLocal(file, specifier);
        if (!target) continue;
        if (/^(lib|agent|demo|scripts)\//.test(target)) offenders.push(`${file} → ${specifier}`);
        // common/ is checked above; app/ and components/ modules a client module imports are client code too
        else if (/^(app|components)\//.test(target)) queue.push(target);
      }
    }
    assert.ok(seen.size > 50, `found only ${seen.size} client modules: the scan is not looking where the client code is`);
    assert.deepEqual(offenders.sort(), []);
  });

  test('the import scanner sees value imports and skips type-only ones', () => {
    const source = [
      "import 'server-only';",
      "import fs from 'node:fs';",
      "import type { Db } from '../db';",
      "import { z } from 'zod';",
      "export { thing } from './thing';",
      "export type { Other } from './other';",
      "const lazy = await import('pg');",
    ].join('\n');
    assert.deepEqual(runtimeImports(source), ['server-only', 'node:fs', 'zod', './thing', 'pg']);
    assert.deepEqual(needsServer(source), ['node:fs', 'pg']);
  });
});
