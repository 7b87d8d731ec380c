import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileByName } from '@/agent/phases/localise';
import type { Evidence } from '@/agent/types';
import { makeRepo } from '../../helpers/agent-repos';

// ava's and tape's TAP name a failing test without its file; the test file
// whose text holds the name is the one the scaffold starts from.

const repo = makeRepo('flowfix-filebyname-');
after(() => repo.cleanup());
repo.write('test.js', "const test = require('ava');\ntest('multiplies price by quantity', (t) => t.pass());\ntest('shared name', (t) => t.pass());\n");
repo.write('test/other.js', "test('shared name', () => {});\n");
repo.write('index.js', "// not a test: 'multiplies price by quantity' in a comment\n");
repo.commit('base');

const evidence = (...names: string[]): Evidence => ({
  failingTests: names.map((name) => ({ id: `tap::${name}`, name, message: '' })),
  messages: [],
  expectedActual: [],
  frames: [],
  symbols: [],
});
const isTest = (rel: string) => rel === 'test.js' || rel.startsWith('test/');

test('the one test file that holds the name; none when two do, or when only production code does', async () => {
  const e = evidence('multiplies price by quantity', 'shared name', 'suite > multiplies price by quantity');
  await fileByName(repo.dir, e, isTest);
  assert.deepEqual(
    e.failingTests.map((t) => t.file),
    ['test.js', undefined, 'test.js'],
  );
  const prodOnly = evidence('multiplies price by quantity');
  await fileByName(repo.dir, prodOnly, (rel) => rel === 'test/other.js');
  assert.equal(prodOnly.failingTests[0]!.file, undefined);
});
