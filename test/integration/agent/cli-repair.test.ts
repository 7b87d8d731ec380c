import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repairCommand } from '@/agent/cli/repair';
import { createTsRepo, type TestRepo } from '../../helpers/agent-repos';

function capture(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), cwd }, out, err };
}

const repos: TestRepo[] = [];
after(() => repos.forEach((r) => r.cleanup()));

describe('flowfix repair', () => {
  test('--help prints the usage', async () => {
    const c = capture(process.cwd());
    assert.equal(await repairCommand(['--help'], c.io), 0);
    assert.match(c.out.join(''), /Usage: flowfix repair --base REV/);
  });

  test('a missing --base or a bad --policy is a usage error', async () => {
    const c = capture(process.cwd());
    assert.equal(await repairCommand(['--head', 'HEAD'], c.io), 2);
    assert.match(c.err.join(''), /--base is required/);
    assert.equal(await repairCommand(['--base', 'HEAD~1', '--policy', 'magic'], c.io), 2);
    assert.equal(await repairCommand(['--base', 'no-such-revision-anywhere'], c.io), 2);
    assert.match(c.err.join(''), /unknown revision no-such-revision-anywhere in /);
    assert.equal(await repairCommand(['--bogus'], c.io), 2);
  });

  test('repairs a local repository and prints trajectory, suspects, verdicts and diff', async () => {
    const repo = createTsRepo();
    repos.push(repo);
    // the repository's own settings, read from the base revision
    repo.git('checkout', '-q', repo.base);
    writeFileSync(path.join(repo.dir, '.flowfix.json'), JSON.stringify({ settings: { test: repo.settings.test, build: repo.settings.build } }));
    repo.git('add', '.flowfix.json');
    repo.git('commit', '-q', '-m', 'flowfix settings');
    // revisions by branch names that are not checked out: the run's clone has them only as origin/…
    repo.git('branch', 'flowfix-base');
    repo.git('cherry-pick', repo.head);
    repo.git('branch', 'flowfix-head');
    repo.git('checkout', '-q', '--detach');
    const c = capture(repo.dir);
    const code = await repairCommand(
      ['--base', 'flowfix-base', '--head', 'flowfix-head', '--test', 'total multiplies price by quantity', '--no-regression', '--no-base-check'],
      c.io,
    );
    const text = c.out.join('');
    assert.equal(code, 0, text + c.err.join(''));
    assert.match(text, /── RED started/);
    assert.match(text, /gate red\s+the target tests fail on the head ✓/);
    // each candidate line comes before its own gates
    assert.match(text, /candidate 1 [^\n]*\n\s+gate compile\s+PASS[^\n]*\n\s+gate green/);
    assert.match(text, /Suspects\n  1\. src\/cart\.ts:\d+-\d+ total/);
    assert.match(text, /Gate verdicts\n/);
    assert.match(text, /final\s+PASS/);
    assert.match(text, /^\+    sum \+= item\.price \* item\.qty;$/m);
    assert.match(text, /Result: fixed \(fixed\)/);
  });

  test('--json prints the result as JSON; no reproduction exits 1', async () => {
    const repo = createTsRepo();
    repos.push(repo);
    const c = capture(repo.dir);
    const code = await repairCommand(
      [
        '--base',
        repo.base,
        '--test',
        'empty cart totals zero',
        '--json',
        '--no-base-check',
        '--test-command',
        repo.settings.test!,
        '--build-command',
        repo.settings.build!,
      ],
      c.io,
    );
    assert.equal(code, 1);
    const result = JSON.parse(c.out.join(''));
    assert.equal(result.exitReason, 'not_reproduced');
  });

  test('SIGTERM to the CLI ends the run as cancelled, with the test command killed', async () => {
    const repo = createTsRepo();
    repos.push(repo);
    const bin = path.join(process.cwd(), 'bin/flowfix.mjs');
    const child = spawn(
      process.execPath,
      [
        bin,
        'repair',
        '--repo',
        repo.dir,
        '--base',
        repo.base,
        '--head',
        repo.head,
        '--test',
        'x::y',
        '--test-command',
        'sleep 120',
        '--language',
        'typescript',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let sent = false;
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (!sent && out.includes('RED started')) {
        sent = true;
        setTimeout(() => child.kill('SIGTERM'), 300);
      }
    });
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.match(out, /Result: cancelled \(cancelled\)/, out);
    assert.equal(code, 1);
    assert.ok(Date.now() - started < 60_000);
  });

  test('no settings at all: a JavaScript library on node:test is detected, run with its JUnit reporter, and repaired in its source', async () => {
    const repo = gitRepo({
      'package.json': JSON.stringify({ name: 'tiny-add', main: 'lib/index.js', scripts: { test: 'node --test' } }),
      'lib/index.js': "'use strict';\nmodule.exports = { add: require('./add') };\n",
      'lib/add.js': "'use strict';\nmodule.exports = function add(a, b) {\n  return a + b;\n};\n",
      'test/add.test.js':
        "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('..');\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n",
    });
    repo.write('lib/add.js', "'use strict';\n// one operation, no allocation\nmodule.exports = function add(a, b) {\n  return a - b;\n};\n");
    const head = repo.commit('faster add');
    const c = capture(repo.dir);
    const code = await repairCommand(['--base', repo.base, '--head', head, '--no-base-check'], c.io);
    const text = c.out.join('');
    // the run's setup says what it detected, in the trajectory
    assert.match(text, /detected node:test \(package\.json scripts\.test: node --test\); test command: .*--test-reporter=junit/);
    assert.equal(code, 0, text + c.err.join(''));
    assert.match(text, /Suspects\n  1\. lib\/add\.js:\d+-\d+ add/);
    assert.match(text, /^\+  return a \+ b;$/m);
  });

  test('no settings at all: a Python project on unittest is detected, its results read as TAP, and repaired', async () => {
    const repo = gitRepo({
      'setup.py': 'from setuptools import setup\nsetup(name="calc")\n',
      'calc/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/__init__.py': '',
      'tests/test_calc.py':
        'import unittest\nfrom calc import add\n\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n',
    });
    repo.write('calc/__init__.py', 'def add(a, b):\n    """The sum of a and b."""\n    return a - b\n');
    const head = repo.commit('faster add');
    const c = capture(repo.dir);
    const code = await repairCommand(['--base', repo.base, '--head', head, '--no-base-check'], c.io);
    const text = c.out.join('');
    assert.match(text, /detected unittest \(a Python project without pytest: unittest\)/);
    assert.equal(code, 0, text + c.err.join(''));
    assert.match(text, /tap::tests\.test_calc\.CalcTest\.test_add/);
    assert.match(text, /^\+    return a \+ b$/m);
  });
});

/** A git repository with one base commit of these files. */
function gitRepo(files: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-cli-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } as unknown as NodeJS.ProcessEnv }).trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'dev@example.com');
  git('config', 'user.name', 'Dev');
  const write = (rel: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  };
  const commit = (message: string) => {
    git('add', '--all');
    git('commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  const base = commit('base');
  const repo = { dir, base, write, commit, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  repos.push(repo as unknown as TestRepo);
  return repo;
}
