import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

// The layers' boundaries as `npm run lint` holds them (eslint.config.mjs):
// each rule refuses a real crossing and lets the allowed import through.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: ROOT });

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

test('client components take types from lib/ and agent/, nothing that runs', async () => {
  assert.match((await restricted('components/x/probe.tsx', "import { getDb } from '@/lib/db';\nexport const x = getDb;\n")).join(), /client code/);
  assert.match(
    (await restricted('components/x/probe.tsx', "import { runRepair } from '../../agent/pipeline';\nexport const x = runRepair;\n")).join(),
    /agent\/ runs on the server/,
  );
  assert.deepEqual(await restricted('components/x/probe.tsx', "import type { FixView } from '@/lib/fixes/views';\nexport type X = FixView;\n"), []);
});

test('lib/ never imports agent/', async () => {
  assert.match(
    (await restricted('lib/x/probe.ts', "import { runRepair } from '../../agent/pipeline';\nexport const x = runRepair;\n")).join(),
    /lib\/ never imports agent\//,
  );
});

test('common/ is browser-safe: types only from the rest of the project', async () => {
  assert.match((await restricted('common/probe.ts', "import { getDb } from '../lib/db';\nexport const x = getDb;\n")).join(), /browser-safe/);
  assert.deepEqual(await restricted('common/probe.ts', "import type { RunStatus } from '../lib/generated/prisma/enums';\nexport type X = RunStatus;\n"), []);
});
