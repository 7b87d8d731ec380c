import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Workspace, WorkspacePathError, BinaryFileError } from '@/agent/workspace/workspace';
import { createTsRepo, type TestRepo } from '../../helpers/agent-repos';

let repo: TestRepo;
let ws: Workspace;

before(async () => {
  repo = createTsRepo();
  // committed symlinks pointing out of the repository
  symlinkSync('/etc', path.join(repo.dir, 'etc-link'));
  symlinkSync('/etc/passwd', path.join(repo.dir, 'passwd-link'));
  symlinkSync('src', path.join(repo.dir, 'src-link'));
  writeFileSync(path.join(repo.dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
  repo.commit('links and a binary');
  ws = await Workspace.create({ source: repo.dir, headRev: 'HEAD' });
});
after(async () => {
  await ws.dispose();
  repo.cleanup();
});

const refusesPath = (err: unknown) => err instanceof WorkspacePathError;

describe('Workspace', () => {
  test('checks out the head revision in its own folder', async () => {
    assert.notEqual(ws.root, repo.dir);
    assert.match(await ws.readFile('src/cart.ts'), /item\.price \+ item\.qty/);
    assert.equal(await ws.readFile('src/cart.ts', { start: 6, end: 6 }), 'export function total(items: Item[]): number {');
    assert.deepEqual(
      (await ws.listDir('')).map((e) => e.name),
      ['.gitignore', 'README.md', 'logo.png', 'package.json', 'src', 'src-link', 'test', 'tsconfig.json'],
    );
  });

  test('../../etc/passwd is refused', async () => {
    await assert.rejects(ws.readFile('../../etc/passwd'), refusesPath);
    await assert.rejects(ws.readFile('src/../../../../etc/passwd'), refusesPath);
    await assert.rejects(ws.writeFile('../escape.txt', 'x'), refusesPath);
  });

  test('absolute paths are refused', async () => {
    await assert.rejects(ws.readFile('/etc/passwd'), refusesPath);
    await assert.rejects(ws.writeFile(path.join(ws.root, 'src/cart.ts'), 'x'), refusesPath);
  });

  test('symlinks pointing out of the workspace are refused for read, write and list', async () => {
    await assert.rejects(ws.readFile('passwd-link'), refusesPath);
    await assert.rejects(ws.readFile('etc-link/passwd'), refusesPath);
    await assert.rejects(ws.writeFile('etc-link/flowfix-was-here', 'x'), refusesPath);
    assert.equal(existsSync('/etc/flowfix-was-here'), false);
    await assert.rejects(ws.listDir('etc-link'), refusesPath);
    // a link that stays inside is fine
    assert.match(await ws.readFile('src-link/cart.ts'), /export function total/);
  });

  test('the .git folder is off limits', async () => {
    await assert.rejects(ws.readFile('.git/config'), refusesPath);
    await assert.rejects(ws.writeFile('.git/hooks/pre-commit', '#!/bin/sh'), refusesPath);
  });

  test('binary files are refused', async () => {
    await assert.rejects(ws.readFile('logo.png'), (err: unknown) => err instanceof BinaryFileError);
    await assert.rejects(ws.writeFile('logo.png', 'text now'), (err: unknown) => err instanceof BinaryFileError);
    await assert.rejects(ws.writeFile('new.bin', 'a\0b'), (err: unknown) => err instanceof BinaryFileError);
  });

  test('search finds text with file and line', async () => {
    const hits = await ws.search('applyDiscount');
    assert.deepEqual(
      hits.map((h) => `${h.file}:${h.line}`),
      ['src/cart.ts:14', 'test/cart.test.ts:3', 'test/cart.test.ts:13'],
    );
    assert.deepEqual((await ws.search('applyDiscount', { glob: 'src/**' })).length, 1);
    assert.deepEqual(await ws.search('no such text anywhere'), []);
  });

  test('diff shows edits and new files; reset undoes them', async () => {
    await ws.writeFile('src/cart.ts', (await ws.readFile('src/cart.ts')).replace('item.price + item.qty', 'item.price * item.qty'));
    await ws.writeFile('src/new.ts', 'export const x = 1;\n');
    writeFileSync(path.join(ws.root, 'junit.xml'), '<testsuites/>'); // ignored by the repository
    const diff = await ws.diff();
    assert.match(diff, /^-    sum \+= item\.price \+ item\.qty;$/m);
    assert.match(diff, /^\+    sum \+= item\.price \* item\.qty;$/m);
    assert.match(diff, /new file mode[\s\S]*src\/new\.ts/);
    assert.doesNotMatch(diff, /junit\.xml/);
    assert.deepEqual(await ws.changedFiles(), ['src/cart.ts', 'src/new.ts']);
    await ws.reset();
    assert.equal(await ws.diff(), '');
    assert.equal(existsSync(path.join(ws.root, 'src/new.ts')), false);
  });

  test('pristineTree is the head tree only from a reset until an edit, a patch, a command or a checkout', async () => {
    const { execFileSync } = await import('node:child_process');
    const headTree = execFileSync('git', ['rev-parse', `${ws.headRev}^{tree}`], { cwd: ws.root, encoding: 'utf8' }).trim();
    const { runWorkspaceCommand } = await import('@/agent/testing/test-runner');
    const fresh = await Workspace.create({ source: repo.dir, headRev: 'HEAD' });
    assert.equal(await fresh.pristineTree(), null, 'a new checkout is not assumed pristine');
    await fresh.dispose();
    await ws.reset();
    assert.equal(await ws.pristineTree(), headTree);
    await ws.writeFile('src/new.ts', 'export {};\n');
    assert.equal(await ws.pristineTree(), null);
    await ws.reset();
    await ws.deleteFile('README.md');
    assert.equal(await ws.pristineTree(), null);
    await ws.reset();
    await runWorkspaceCommand({ workspace: ws, settings: repo.settings, command: 'true', timeoutSeconds: 10, network: true });
    assert.equal(await ws.pristineTree(), null, 'a command may have written anything');
    await ws.reset();
    await ws.checkoutRevision(repo.base);
    assert.equal(await ws.pristineTree(), null);
    await ws.checkoutRevision(ws.headRev);
    await ws.reset();
    await ws.applyPatch('--- /dev/null\n+++ b/src/patched.ts\n@@ -0,0 +1 @@\n+export {};\n', []);
    assert.equal(await ws.pristineTree(), null, 'a patch changed the files');
    await ws.reset();
    ws.markChanged();
    assert.equal(await ws.pristineTree(), null);
    await ws.reset();
  });

  test('the source repository is never touched', () => {
    assert.match(readFileSync(path.join(repo.dir, 'src/cart.ts'), 'utf8'), /item\.price \+ item\.qty/);
  });

  test('dispose removes the run folder', async () => {
    const other = await Workspace.create({ source: repo.dir, headRev: repo.base });
    assert.match(await other.readFile('src/cart.ts'), /item\.price \* item\.qty/);
    await other.dispose();
    assert.equal(existsSync(other.runDir), false);
  });

  test('an unknown revision fails and leaves nothing behind', async () => {
    await assert.rejects(Workspace.create({ source: repo.dir, headRev: 'deadbeef' }));
  });
});
