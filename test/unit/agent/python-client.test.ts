import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { checkPythonSyntax, closePythonHelpers, PythonHelperError, pythonHelperPids, pythonRequest } from '@/agent/python/client';

const src = (file: string, text: string | Buffer) => ({ file, bytes: typeof text === 'string' ? Buffer.from(text) : text });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

after(() => closePythonHelpers());

describe('the pooled Python helper', () => {
  test('reports syntax errors with file and line, and passes good files', async () => {
    const errors = await checkPythonSyntax([
      src('good.py', 'def f(x):\n    return x + 1\n'),
      src('bad.py', 'def f(x):\n    return (x +\n\ny = 2\n'),
      src('indent.py', 'def f():\nreturn 1\n'),
      // only the compiler (not the parser) refuses this one, as py_compile would
      src('outside.py', 'x = 1\nreturn x\n'),
    ]);
    assert.deepEqual(
      errors.map((e) => [e.file, e.line]),
      [
        ['bad.py', 2],
        ['indent.py', 2],
        ['outside.py', 2],
      ],
    );
    assert.match(errors[0].message, /^SyntaxError: /);
    assert.match(errors[1].message, /^IndentationError: /);
    assert.match(errors[2].message, /'return' outside function/);
  });

  test('compiles the bytes as Python reads them: a coding declaration holds, NUL bytes and absurd nesting are errors, not crashes', async () => {
    const cafe = Buffer.concat([Buffer.from('name = "caf'), Buffer.from([0xe9]), Buffer.from('"\n')]);
    const errors = await checkPythonSyntax([
      src('latin.py', Buffer.concat([Buffer.from('# -*- coding: latin-1 -*-\n'), cafe])),
      src('undeclared.py', cafe),
      src('nul.py', Buffer.from('x = 1\0\n')),
      src('deep.py', `x = ${'('.repeat(300)}1${')'.repeat(300)}\n`),
    ]);
    assert.deepEqual(
      errors.map((e) => e.file),
      ['undeclared.py', 'nul.py', 'deep.py'],
    );
    assert.match(errors[0].message, /utf-8|decode/i);
    assert.match(errors[2].message, /nested|recursion/i);
  });

  test('one helper serves requests one after another; parallel requests get their own', async () => {
    closePythonHelpers();
    await checkPythonSyntax([src('a.py', 'a = 1\n')]);
    const [first] = pythonHelperPids();
    assert.ok(first);
    await checkPythonSyntax([src('b.py', 'b = 2\n')]);
    assert.deepEqual(pythonHelperPids(), [first]);

    const answers = await Promise.all([1, 2, 3].map((n) => checkPythonSyntax([src(`p${n}.py`, n === 2 ? 'def (\n' : `v = ${n}\n`)])));
    assert.deepEqual(
      answers.map((a) => a.map((e) => e.file)),
      [[], ['p2.py'], []],
    );
    // at most two stay idle; the third was stopped when it was given back
    assert.ok(pythonHelperPids().length <= 2);
  });

  test('a bad request is answered with the helper’s error, and the helper stays', async () => {
    await checkPythonSyntax([src('warm.py', 'w = 1\n')]);
    const before = pythonHelperPids();
    await assert.rejects(pythonRequest({ mode: 'no-such-mode' }), (err: unknown) => err instanceof PythonHelperError && /unknown mode/.test(err.message));
    assert.deepEqual(pythonHelperPids(), before);
  });

  test('a helper killed between requests is replaced, and the request it was given is retried on a fresh one', async () => {
    closePythonHelpers();
    await checkPythonSyntax([src('a.py', 'a = 1\n')]);
    const [pid] = pythonHelperPids();
    // the helper runs in the sandbox: kill the interpreter too, not only the process flowfix spawned
    killTree(pid);
    // no wait: the pool has not seen the exit yet and hands out the dead helper
    assert.deepEqual(await checkPythonSyntax([src('b.py', 'b = (\n')]).then((e) => e.map((x) => x.file)), ['b.py']);
    assert.notEqual(pythonHelperPids()[0], pid);
  });

  test('a request past its time limit kills its helper and says so; the next request works', async () => {
    closePythonHelpers();
    // no interpreter starts and answers within 1 ms
    await assert.rejects(pythonRequest({ mode: 'compile', sources: [] }, { timeoutMs: 1 }), /did not answer within 1 ms/);
    assert.deepEqual(pythonHelperPids(), []);
    assert.deepEqual(await checkPythonSyntax([src('ok.py', 'x = 1\n')]), []);
  });

  test('a helper killed in its first milliseconds, while the sandbox is still starting it, leaves nothing behind', async () => {
    // bubblewrap's first child waits for the parent's go-ahead; a kill of the
    // parent alone in that window left the child waiting forever, orphaned
    const script = path.resolve(import.meta.dirname, '../../../agent/python/helper.py');
    const orphans = () =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .filter((entry) => {
          try {
            const ppid = Number(
              readFileSync(`/proc/${entry}/stat`, 'utf8')
                .replace(/^.*\) /, '')
                .split(' ')[1],
            );
            return ppid === 1 && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(script);
          } catch {
            return false; // exited while we looked
          }
        })
        .map(Number);
    const before = new Set(orphans());
    // about one in three of these kills lands in that window
    for (let i = 0; i < 40; i++) {
      closePythonHelpers();
      await assert.rejects(pythonRequest({ mode: 'compile', sources: [] }, { timeoutMs: 1 + (i % 6) }), /did not answer within/);
    }
    closePythonHelpers();
    // what is torn down normally is gone well within this
    await new Promise((r) => setTimeout(r, 1500));
    const left = orphans().filter((p) => !before.has(p));
    for (const pid of left) process.kill(pid, 'SIGKILL');
    assert.deepEqual(left, [], 'a killed helper left processes behind');
  });

  test('an aborted request kills its helper and rejects with the abort reason', async () => {
    closePythonHelpers();
    const controller = new AbortController();
    const pending = checkPythonSyntax([src('x.py', 'x = 1\n')], { signal: controller.signal });
    const [pid] = pythonHelperPids();
    controller.abort(new Error('run cancelled'));
    await assert.rejects(pending, /run cancelled/);
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(pid), false);
    await assert.rejects(checkPythonSyntax([src('y.py', 'y = 1\n')], { signal: controller.signal }), /run cancelled/);
  });

  test('the helper never sees the server’s secrets', async () => {
    closePythonHelpers();
    const saved = process.env.FLOWFIX_MODEL_API_KEY;
    process.env.FLOWFIX_MODEL_API_KEY = 'sk-secret-from-the-server-env';
    try {
      await checkPythonSyntax([src('a.py', 'a = 1\n')]);
      const [pid] = pythonHelperPids();
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      assert.match(environ, /PATH=/);
      assert.doesNotMatch(environ, /sk-secret-from-the-server-env/);
      assert.doesNotMatch(environ, /FLOWFIX_MODEL_API_KEY|DATABASE_URL|NEXTAUTH_SECRET/);
    } finally {
      if (saved === undefined) delete process.env.FLOWFIX_MODEL_API_KEY;
      else process.env.FLOWFIX_MODEL_API_KEY = saved;
      closePythonHelpers();
    }
  });

  test('idle helpers do not keep a process alive', () => {
    const root = path.resolve(import.meta.dirname, '../../..');
    const script = `
      const { checkPythonSyntax, pythonHelperPids } = await import('./agent/python/client.ts');
      const errors = await checkPythonSyntax([{ file: 'a.py', bytes: Buffer.from('def (\\n') }]);
      console.log(JSON.stringify({ errors: errors.length, helpers: pythonHelperPids().length }));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.error, undefined, 'the process did not exit on its own');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout.trim()), { errors: 1, helpers: 1 });
  });

  test('a helper does not outlive a worker killed with SIGKILL', async () => {
    const { spawn } = await import('node:child_process');
    const root = path.resolve(import.meta.dirname, '../../..');
    const script = `
      const { checkPythonSyntax, pythonHelperPids } = await import('./agent/python/client.ts');
      await checkPythonSyntax([{ file: 'a.py', bytes: Buffer.from('a = 1\\n') }]);
      console.log(pythonHelperPids()[0]);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
    assert.ok(alive(pid));
    child.kill('SIGKILL');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(pid), false, 'the helper exits when its stdin closes');
  });
});

/** SIGKILLs a process and every descendant, deepest first (synchronously, before the event loop sees any exit). */
function killTree(root: number): void {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(
        readFileSync(`/proc/${entry}/stat`, 'utf8')
          .replace(/^.*\) /, '')
          .split(' ')[1],
      );
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while we looked
    }
  }
  const order: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) walk(child);
    order.push(pid);
  };
  walk(root);
  for (const pid of order) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
