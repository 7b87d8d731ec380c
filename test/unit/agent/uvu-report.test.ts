import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { detectRunner, parseTap, tapCutShort, TAP_REPORT } from '@/agent/testing/runners';
import { shownCommand } from '@/agent/testing/uvu-report';

// The real uvu (flowfix's own devDependency, copied into each repository's
// node_modules) run by the command detection writes, through a shell as the
// test runner runs it: what its report says, ESM and CommonJS alike.

const run = promisify(execFile);
const UVU = path.resolve('node_modules', 'uvu');
let dir: string;

async function repository(name: string, script: string, files: Record<string, string>): Promise<string> {
  const root = path.join(dir, name);
  await mkdir(path.join(root, 'node_modules', '.bin'), { recursive: true });
  // uvu itself copied (it requires `-r` modules from its own folder), its dependencies linked
  await cp(UVU, path.join(root, 'node_modules', 'uvu'), { recursive: true });
  for (const dep of ['dequal', 'diff', 'kleur', 'sade', 'mri']) await symlink(path.resolve('node_modules', dep), path.join(root, 'node_modules', dep));
  await symlink('../uvu/bin.js', path.join(root, 'node_modules', '.bin', 'uvu'));
  const pkg = { name, scripts: { test: script }, devDependencies: { uvu: '^0.5.6' } };
  await writeFile(path.join(root, 'package.json'), JSON.stringify(pkg));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  return root;
}

/** Detects the command from the repository's package.json and runs it as the test runner would. */
async function detectAndRun(root: string): Promise<{ tap: string; command: string }> {
  const read = async (rel: string) => readFile(path.join(root, rel), 'utf8').catch(() => null);
  const pkg = await read('package.json');
  const d = detectRunner((rel) => (rel === 'package.json' ? pkg : null));
  assert.equal(d?.runner, 'uvu');
  assert.equal(d?.junitReport, TAP_REPORT);
  await run('sh', ['-c', d!.test], { cwd: root, env: { ...process.env, NODE_OPTIONS: '' } }).catch((e: { code?: number }) =>
    assert.equal(e.code, 1, 'uvu exits 1 when a test fails'),
  );
  return { tap: await readFile(path.join(root, TAP_REPORT), 'utf8'), command: d!.test };
}

describe("uvu through flowfix's own reporter", () => {
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'flowfix-uvu-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('ESM tests: every test named by its file (from the working folder) and suite, failures with their messages and stack', async () => {
    const root = await repository('esm', 'uvu tests -i fixtures', {
      'tests/math.mjs': [
        "import { test, suite } from 'uvu';",
        "import * as assert from 'uvu/assert';",
        "test('adds', () => assert.is(1 + 1, 2));",
        "test('compares objects', () => assert.equal({ a: 1 }, { a: 2 }));",
        "const mul = suite('mul');",
        "mul('squares', () => assert.is(3 * 3, 9));",
        'mul.run();',
        'test.run();',
      ].join('\n'),
      'tests/fixtures/skip.mjs': 'throw new Error("not a test file")',
    });
    const { tap, command } = await detectAndRun(root);
    assert.match(command, /NODE_OPTIONS="\$NODE_OPTIONS --import=data:text\/javascript;base64,[A-Za-z0-9+/=]+" uvu tests -i fixtures$/);
    assert.equal(tapCutShort(tap), undefined);
    const results = parseTap(tap);
    assert.deepEqual(
      results.map((r) => [r.name, r.status]),
      [
        ['tests/math.mjs > mul > squares', 'passed'],
        ['tests/math.mjs > adds', 'passed'],
        ['tests/math.mjs > compares objects', 'failed'],
      ],
    );
    const failed = results.find((r) => r.status === 'failed')!;
    assert.match(failed.message ?? '', /Expected values to be deeply equal/);
    assert.match(failed.details ?? '', /tests\/math\.mjs:4/);
    assert.doesNotMatch(tap, /\u001b\[/, 'no colour codes in the report');
  });

  test('CommonJS tests with a preloaded module (-r): the same report', async () => {
    // uvu requires -r's module by name (from its own folder): a package, as `-r esm` and `-r tsm` are
    const root = await repository('cjs', 'uvu -r answer-setup tests', {
      'node_modules/answer-setup/index.js': 'global.answer = 42;',
      'tests/answer.test.js': [
        "const { test } = require('uvu');",
        "const assert = require('uvu/assert');",
        "test('knows the answer', () => assert.is(global.answer, 42));",
        "test('is wrong', () => assert.is('x', 'y'));",
        'test.run();',
      ].join('\n'),
    });
    const results = parseTap((await detectAndRun(root)).tap);
    assert.deepEqual(
      results.filter((r) => r.name.includes('answer.test')).map((r) => [r.name, r.status]),
      [
        ['tests/answer.test.js > knows the answer', 'passed'],
        ['tests/answer.test.js > is wrong', 'failed'],
      ],
    );
  });

  test('a test file that throws on import: the report says the run was cut short', async () => {
    const root = await repository('crash', 'uvu tests', {
      'tests/a.js': "const { test } = require('uvu'); test('fine', () => {}); test.run();",
      'tests/b.js': 'throw new Error("boom on import");',
    });
    const { tap } = await detectAndRun(root);
    assert.match(tapCutShort(tap) ?? '', /ends before its plan/);
  });

  test('a node process that never loads uvu writes no report', async () => {
    const root = await repository('other', 'uvu tests', {});
    const d = detectRunner((rel) => (rel === 'package.json' ? JSON.stringify({ scripts: { test: 'uvu tests' }, devDependencies: { uvu: '1' } }) : null))!;
    const options = /NODE_OPTIONS="\$NODE_OPTIONS ([^"]+)"/.exec(d.test)![1]!;
    await run(process.execPath, ['-e', 'console.log(1)'], { cwd: root, env: { ...process.env, NODE_OPTIONS: options } });
    await assert.rejects(readFile(path.join(root, TAP_REPORT), 'utf8'), /ENOENT/);
  });
});

test('the command as a person reads it names the reporter instead of spelling out its module', () => {
  const d = detectRunner((rel) =>
    rel === 'package.json' ? JSON.stringify({ scripts: { test: 'uvu -r tsm tests' }, devDependencies: { uvu: '0.5' } }) : null,
  )!;
  assert.equal(shownCommand(d.test), `PATH="$PWD/node_modules/.bin:$PATH" NODE_OPTIONS="$NODE_OPTIONS --import=<flowfix's uvu reporter>" uvu -r tsm tests`);
});
