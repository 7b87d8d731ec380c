import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { repairCommand } from '@/agent/cli/repair';
import { createMochaRepo } from '../../helpers/agent-repos';

// `flowfix repair` as a new user runs it: no settings, no test command. The
// runner is detected from package.json at --base (through `npm run X`), its
// dependencies installed from the registry (npm ci with a lock file, npm
// install without), and mocha's own reporter and --bail left out so the
// JUnit reporter writes the report and every test runs.

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

async function repair(dir: string, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await repairCommand(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  return { code, out: out.join(''), err: err.join('') };
}

describe('runner detection on real repositories', () => {
  test('mocha behind `npm run unit`, no lock file: installed, run without its reporter and --bail, repaired', { timeout: 600_000 }, async () => {
    const repo = createMochaRepo();
    cleanups.push(repo.cleanup);
    const res = await repair(repo.dir, ['--base', repo.base, '--head', repo.head, '--json']);
    assert.match(res.err, /detected mocha/);
    assert.match(res.err, /; install: npm install --no-audit --no-fund --no-package-lock$/m);
    const command = /test command: (.*?); install:/.exec(res.err)?.[1] ?? '';
    assert.match(command, /mocha --reporter xunit --reporter-options output=\S+\.xml/);
    assert.match(command, /--timeout 10000 test\//);
    assert.doesNotMatch(command, /dot|--bail/);
    assert.equal(res.code, 0, res.out.slice(-3000) + res.err.slice(-3000));
    const result = JSON.parse(res.out) as {
      exitReason: string;
      diff: string;
      evidence: { targets: string[]; regression?: { counts?: { run: number; passed: number } } };
    };
    assert.equal(result.exitReason, 'fixed');
    assert.match(result.diff, /^\+.*item\.price \* item\.qty/m);
    assert.equal(result.evidence.targets.length, 1);
    assert.match(result.evidence.targets[0], /multiplies price by quantity$/);
    // the whole suite ran (both tests): --bail did not stop it at the first
    assert.deepEqual(result.evidence.regression?.counts, { run: 2, passed: 2, failed: 0, skipped: 0 });
  });

  test('with a package-lock.json the install is npm ci, and the run goes on to a fix', { timeout: 600_000 }, async () => {
    const repo = createMochaRepo({ lock: true });
    cleanups.push(repo.cleanup);
    const res = await repair(repo.dir, ['--base', repo.base, '--head', repo.head, '--no-base-check', '--no-regression', '--json']);
    assert.match(res.err, /; install: npm ci --no-audit --no-fund$/m);
    assert.equal(res.code, 0, res.out.slice(-3000) + res.err.slice(-3000));
    assert.equal((JSON.parse(res.out) as { exitReason: string }).exitReason, 'fixed');
  });
});
