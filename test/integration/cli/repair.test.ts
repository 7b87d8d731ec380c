import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTsRepo, type TestRepo } from '../../helpers/agent-repos';

// `flowfix repair` end to end: the real bin/flowfix.mjs in a child process
// whose working directory is neither flowfix's checkout nor the repository.
// What the sandbox needs from flowfix's own install (the egress relay, its
// node_modules with tsx and tsc) is found from the install, not the cwd.

const BIN = path.resolve('bin/flowfix.mjs');

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

function flowfix(args: string[], cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

test('flowfix repair run from another folder, with the network on, repairs the repository', { timeout: 300_000 }, async () => {
  const repo: TestRepo = createTsRepo();
  cleanups.push(repo.cleanup);
  const elsewhere = mkdtempSync(path.join(tmpdir(), 'flowfix-elsewhere-'));
  cleanups.push(() => rmSync(elsewhere, { recursive: true, force: true }));

  const res = await flowfix(
    [
      'repair',
      '--repo',
      repo.dir,
      '--base',
      repo.base,
      '--head',
      repo.head,
      '--test',
      'total multiplies price by quantity',
      '--test-command',
      repo.settings.test!,
      '--build-command',
      repo.settings.build!,
      '--junit',
      'junit.xml',
      '--language',
      'typescript',
      // test commands then run behind the egress relay
      '--network',
      '--no-regression',
      '--json',
    ],
    elsewhere,
  );
  assert.doesNotMatch(res.stdout + res.stderr, /Can't find source path/);
  assert.equal(res.code, 0, `${res.stdout.slice(-3000)}\n${res.stderr.slice(-3000)}`);
  const result = JSON.parse(res.stdout) as { exitReason: string; diff: string };
  assert.equal(result.exitReason, 'fixed');
  assert.match(result.diff, /\+\s+sum \+= item\.price \* item\.qty;/);
});
