import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runSuite } from '../../../bench/mutants/run';

// The screening runs a framed module's unit tests thousands of times, on
// mutants that can break a test's own clean-up: whatever a suite leaves
// running must not outlive it.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function running(arg: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').includes(arg);
      } catch {
        return false; // exited while we looked
      }
    })
    .map(Number);
}

describe('bench mutants: one screening run of a suite', () => {
  it('a suite that leaves a process running: it is killed with the suite, and the suite still counts as green', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-screen-'));
    dirs.push(dir);
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    const arg = `1234.${process.pid}`;
    writeFileSync(
      path.join(dir, 'left.test.mjs'),
      `import { spawn } from 'node:child_process';
import test from 'node:test';
test('starts a process and forgets it', () => {
  spawn('sleep', [${JSON.stringify(arg)}], { stdio: 'ignore' }).unref();
});
`,
    );
    const res = await runSuite(dir, ['left.test.mjs']);
    assert.equal(res.tests, 1);
    assert.equal(res.killed, false);
    let left = running(arg);
    for (let i = 0; i < 40 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      left = running(arg);
    }
    for (const pid of left) process.kill(pid, 'SIGKILL');
    assert.deepEqual(left, [], 'the process the suite left is still running');
  });
});
