import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseApplyDiagnostics, parseBuildDiagnostics } from '@/agent/gates/diagnostics';

// The compile gate's diagnostics read from what the real tools print (tsc,
// Python's compileall, gcc, git apply), not from hand-written samples.

const TSC = path.join(process.cwd(), 'node_modules/typescript/bin/tsc');

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'flowfix-diagnostics-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a build-like command the way the gate sees it: stdout and stderr together, a non-zero exit. */
function failingOutput(cwd: string, command: string): string {
  const run = spawnSync('/bin/sh', ['-c', `${command} 2>&1`], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, LANG: 'C' } as unknown as NodeJS.ProcessEnv,
  });
  assert.notEqual(run.status, 0, `${command} was expected to fail:\n${run.stdout}`);
  return run.stdout;
}

function write(rel: string, content: string) {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), content);
}

describe('parseBuildDiagnostics on real build output', () => {
  test('tsc: one diagnostic per error, with the file, the line and the TS code', () => {
    write('ts/tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['src/**/*.ts'] }));
    write('ts/src/cart.ts', 'export const n: number = "x";\n\nexport function f(a: { b: number }) {\n  return a.c;\n}\n');
    const diags = parseBuildDiagnostics(failingOutput(path.join(dir, 'ts'), `node ${TSC} -p .`));
    assert.deepEqual(
      diags.map((d) => [d.kind, d.file, d.line, d.message.split(':')[0]]),
      [
        ['build', 'src/cart.ts', 1, 'TS2322'],
        ['build', 'src/cart.ts', 4, 'TS2339'],
      ],
    );
    assert.match(diags[1].message, /^TS2339: Property 'c' does not exist/);
  });

  test('Python compileall: the file and line of the syntax error', () => {
    write('py/shop/__init__.py', '');
    write('py/shop/cart.py', 'def total(items):\n    return sum(price * (qty for price, qty in items)\n');
    const diags = parseBuildDiagnostics(failingOutput(path.join(dir, 'py'), 'python3 -m compileall -q shop'));
    assert.equal(diags.length, 1, JSON.stringify(diags));
    assert.equal(diags[0].kind, 'build');
    assert.equal(diags[0].file, 'shop/cart.py');
    assert.equal(diags[0].line, 2);
  });

  test('gcc: file, line and the error text', () => {
    write('c/cart.c', 'int total(void) {\n  int sum = 0;\n  return missing + sum;\n}\n');
    const diags = parseBuildDiagnostics(failingOutput(path.join(dir, 'c'), 'gcc -c cart.c -o /dev/null'));
    assert.equal(diags.length, 1, JSON.stringify(diags));
    assert.deepEqual([diags[0].file, diags[0].line], ['cart.c', 3]);
    assert.match(diags[0].message, /missing/);
    assert.match(diags[0].message, /undeclared/);
  });

  test('output it cannot read becomes one summary of its last lines', () => {
    const output = failingOutput(dir, 'for i in $(seq 1 30); do echo "step $i"; done; echo "make: *** [all] Error 2"; exit 2');
    const diags = parseBuildDiagnostics(output);
    assert.equal(diags.length, 1);
    assert.equal(diags[0].file, undefined);
    assert.equal(diags[0].message.split('\n').length, 20);
    assert.match(diags[0].message, /^step 12\n[\s\S]*make: \*\*\* \[all\] Error 2$/);
    assert.deepEqual(parseBuildDiagnostics(''), [{ kind: 'build', message: 'build failed with no output' }]);
  });
});

describe('parseApplyDiagnostics on real git apply output', () => {
  let repo: string;
  before(() => {
    repo = path.join(dir, 'repo');
    mkdirSync(path.join(repo, 'src'), { recursive: true });
    spawnSync('git', ['init', '-q'], { cwd: repo });
    writeFileSync(
      path.join(repo, 'src/cart.ts'),
      'export function total(items) {\n  let sum = 0;\n  for (const item of items) sum += item.price + item.qty;\n  return sum;\n}\n',
    );
  });
  const refusal = (patch: string) => {
    const run = spawnSync('git', ['apply', '--recount', '--whitespace=nowarn', '--unidiff-zero', '--check', '-'], {
      cwd: repo,
      input: patch,
      encoding: 'utf8',
    });
    assert.notEqual(run.status, 0);
    return run.stderr;
  };

  test('a hunk whose context differs: the file and the line it was meant for', () => {
    const stderr = refusal(
      [
        '--- a/src/cart.ts',
        '+++ b/src/cart.ts',
        '@@ -3,1 +3,1 @@',
        '-  for (const thing of things) sum += thing.price + thing.qty;',
        '+  for (const item of items) sum += item.price * item.qty;',
        '',
      ].join('\n'),
    );
    assert.deepEqual(parseApplyDiagnostics(stderr), [
      { kind: 'apply', file: 'src/cart.ts', line: 3, message: 'the hunk does not match the file (context or removed lines differ)' },
    ]);
  });

  test('a file that is not there', () => {
    const diags = parseApplyDiagnostics(refusal(['--- a/src/missing.ts', '+++ b/src/missing.ts', '@@ -1,1 +1,1 @@', '-a', '+b', ''].join('\n')));
    assert.equal(diags.length, 1, JSON.stringify(diags));
    assert.equal(diags[0].kind, 'apply');
    assert.equal(diags[0].file, 'src/missing.ts');
  });

  test('a corrupt patch is malformed', () => {
    const diags = parseApplyDiagnostics(refusal(['--- a/src/cart.ts', '+++ b/src/cart.ts', '@@ -3,1 +3,1 @@', 'no prefix on this line', ''].join('\n')));
    assert.equal(diags.length, 1, JSON.stringify(diags));
    assert.equal(diags[0].kind, 'malformed');
    assert.match(diags[0].message, /corrupt patch/);
  });
});
