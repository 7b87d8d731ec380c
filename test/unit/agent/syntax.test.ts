import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { closePythonHelpers } from '@/agent/python/client';
import { syntaxCheckFiles, syntaxCheckJson, syntaxCheckTypeScript } from '@/agent/gates/syntax';
import { Workspace } from '@/agent/workspace/workspace';
import { createPyRepo, createTsRepo, type TestRepo } from '../../helpers/agent-repos';

describe('syntax checkers', () => {
  test('TypeScript: the parser error and its line; type errors are left to the build', () => {
    const diags = syntaxCheckTypeScript(
      'src/cart.ts',
      'export function total(items: number[]) {\n  let sum = 0;\n  for (const n of items {\n    sum += n;\n  }\n  return sum;\n}\n',
    );
    assert.ok(diags.length >= 1);
    assert.deepEqual([diags[0].kind, diags[0].file, diags[0].line], ['syntax', 'src/cart.ts', 3]);
    assert.match(diags[0].message, /'\)' expected/);
    assert.deepEqual(syntaxCheckTypeScript('src/cart.ts', 'export const n: number = "not a number";\n'), []);
    assert.deepEqual(syntaxCheckTypeScript('src/view.tsx', 'export const v = <div className="x">{1}</div>;\n'), []);
  });

  test('JSON: the parser message, with the line of the position it names', () => {
    const diags = syntaxCheckJson('config/settings.json', '{\n  "a": 1,\n  "b": 2,\n}\n');
    assert.equal(diags.length, 1);
    assert.equal(diags[0].kind, 'syntax');
    assert.equal(diags[0].line, 4);
    assert.match(diags[0].message, /position \d+/);
    assert.deepEqual(syntaxCheckJson('config/settings.json', '{"a": 1}'), []);
  });
});

describe('syntaxCheckFiles on a workspace', () => {
  let ts: TestRepo;
  let py: TestRepo;
  let tsWs: Workspace;
  let pyWs: Workspace;
  before(async () => {
    ts = createTsRepo();
    py = createPyRepo();
    [tsWs, pyWs] = await Promise.all([Workspace.create({ source: ts.dir, headRev: ts.head }), Workspace.create({ source: py.dir, headRev: py.head })]);
  });
  after(async () => {
    closePythonHelpers();
    await Promise.all([tsWs.dispose(), pyWs.dispose()]);
    ts.cleanup();
    py.cleanup();
  });

  test('checks each touched file by its language; other files and deleted files are not checked', async () => {
    await tsWs.writeFile('src/broken.ts', 'export const x = (1;\n');
    await tsWs.writeFile('config/broken.json', '{\n  "a": 1,\n}\n');
    await tsWs.writeFile('notes.txt', '(((');
    const diags = await syntaxCheckFiles(tsWs, ['src/cart.ts', 'src/broken.ts', 'config/broken.json', 'notes.txt', 'src/deleted.ts']);
    assert.deepEqual(
      diags.map((d) => [d.kind, d.file, d.line]),
      [
        ['syntax', 'src/broken.ts', 1],
        ['syntax', 'config/broken.json', 3],
      ],
    );
  });

  test('Python files go to the pooled helper: the error, its file and line', async () => {
    await pyWs.writeFile('shop/broken.py', 'def total(items):\n    return sum(price * (qty for price, qty in items)\n');
    const diags = await syntaxCheckFiles(pyWs, ['shop/cart.py', 'shop/broken.py']);
    assert.equal(diags.length, 1, JSON.stringify(diags));
    assert.deepEqual([diags[0].kind, diags[0].file, diags[0].line], ['syntax', 'shop/broken.py', 2]);
  });
});
