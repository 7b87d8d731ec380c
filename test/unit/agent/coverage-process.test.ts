import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readProcessCoverage } from '@/agent/coverage/process';
import { declarationLines, executedLines } from '@/agent/coverage/v8';

// Whole-process coverage (agent/coverage/process.ts), as jest, vitest, mocha,
// ava, node-tap and tape processes write it under NODE_V8_COVERAGE.

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const INDEX = `function helper(x) {
  return x * 2;
}

exports.total = function total(items) {
  let sum = 0;
  for (const item of items) sum += item.price + item.qty;
  return sum;
};

exports.unused = function unused() {
  return helper(1);
};
`;

describe('readProcessCoverage', () => {
  test('the lines every process of a run executed, in the workspace, outside node_modules and with each file once', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'flowfix-proc-'));
    dirs.push(root);
    const v8Dir = path.join(root, '..', `${path.basename(root)}-v8`);
    dirs.push(v8Dir);
    mkdirSync(v8Dir);
    writeFileSync(path.join(root, 'index.js'), INDEX);
    mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(path.join(root, 'node_modules', 'dep', 'index.js'), 'module.exports = () => 1;\n');
    // two processes: one runs total() on items, the other on nothing (its loop body never runs)
    const run = (items: string) =>
      execFileSync(process.execPath, ['-e', `require('./node_modules/dep')(); require('./index.js').total(${items});`], {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: '', NODE_V8_COVERAGE: v8Dir },
      });
    run('[{ price: 1, qty: 2 }]');
    run('[]');
    return readProcessCoverage({ v8Dir, root, readSource: async (rel) => readFileSync(path.join(root, rel), 'utf8') }).then((cov) => {
      assert.equal(cov.processes, 2);
      assert.deepEqual([...cov.lines.keys()], ['index.js']);
      const lines = cov.lines.get('index.js')!;
      for (const l of [5, 6, 7, 8]) assert.ok(lines.has(l), `line ${l}`);
      assert.equal(lines.has(2), false, 'helper never ran');
      assert.equal(lines.has(12), false, 'unused never ran');
    });
  });
});

describe('a script V8 ran that is not the file: function level', () => {
  test("jest's transformed module (offsets of other code, no source map Node kept): the declarations of the functions that ran", async () => {
    // what jest 29 wrote for index.js through babel-jest, a test calling total() alone
    const coverage = {
      result: [
        {
          url: 'file:///repo/index.js',
          functions: [
            { functionName: '', ranges: [{ startOffset: 0, endOffset: 1408, count: 1 }] },
            { functionName: 'Object.<anonymous>', ranges: [{ startOffset: 23, endOffset: 1405, count: 1 }] },
            { functionName: 'helper', ranges: [{ startOffset: 82, endOffset: 120, count: 0 }] },
            { functionName: 'total', ranges: [{ startOffset: 137, endOffset: 249, count: 1 }] },
            { functionName: 'unused', ranges: [{ startOffset: 268, endOffset: 309, count: 0 }] },
          ],
        },
      ],
    };
    const executed = await executedLines(
      coverage,
      () => true,
      async () => INDEX,
    );
    assert.deepEqual([...(executed.files.get('/repo/index.js') ?? [])], [5]);
  });

  test('declarations: function statements and expressions, assignments, arrows, methods; not calls', () => {
    const text = `function a(x) {}
const b = async (x) => x;
exports.c = function () {};
class K {
  static d(x) {
  }
  e<T>(y: T): void {
  }
}
a(1)
  d(2)
`;
    assert.deepEqual(declarationLines(text, 'a'), [1]);
    assert.deepEqual(declarationLines(text, 'b'), [2]);
    assert.deepEqual(declarationLines(text, 'exports.c'), [3]);
    assert.deepEqual(declarationLines(text, 'K.d'), [5]);
    assert.deepEqual(declarationLines(text, 'e'), [7]);
    assert.deepEqual(declarationLines(text, 'Object.<anonymous>'), []);
  });
});
