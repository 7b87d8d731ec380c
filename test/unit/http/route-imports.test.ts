import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// The route wrapper is generic: who may call (sessions, tokens, a signed
// delivery's verifier handed in by the route) and how errors become HTTP.
// It knows no feature; a feature it imported would be imported by every
// route, and would import the wrapper back.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const ALLOWED = /^(next\/server|\.\.\/(errors|env|(auth|tokens)\/[\w-]+))$/;

function imports(file: string): string[] {
  const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...source.matchAll(/^(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

test('lib/http/route.ts imports only the errors, env, auth and token modules', () => {
  const found = imports('lib/http/route.ts');
  assert.ok(found.length > 0);
  assert.deepEqual(
    found.filter((s) => !ALLOWED.test(s)),
    [],
  );
});

test('the check sees a feature import', () => {
  assert.ok(!ALLOWED.test('../hosts/webhooks'));
  assert.ok(ALLOWED.test('../tokens/personal-tokens'));
  assert.ok(ALLOWED.test('../auth/session'));
});
