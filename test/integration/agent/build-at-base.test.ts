import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { repairCommand } from '@/agent/cli/repair';
import { makeRepo } from '../../helpers/agent-repos';

// A library whose tests import what its build writes (package.json `main`
// names dist/, which only `npm run build` makes). The change breaks the
// source; the base revision is judged on its own build, never on the head's
// dist/ left behind, so the failure is the change's, and it is repaired.

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

const BUILD = "const fs = require('node:fs');\nfs.mkdirSync('dist', { recursive: true });\nfs.copyFileSync('src/index.js', 'dist/index.js');\n";
const TEST =
  "const { test } = require('node:test');\nconst assert = require('node:assert/strict');\nconst { add } = require('..');\n\ntest('adds two numbers', () => {\n  assert.equal(add(1, 2), 3);\n});\n";

async function repair(dir: string, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await repairCommand(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  return { code, out: out.join(''), err: err.join('') };
}

describe('tests that import the build', () => {
  test('the base revision is built before its tests run: the failure is the change’s, and it is repaired', { timeout: 300_000 }, async () => {
    const repo = makeRepo('flowfix-buildbase-');
    cleanups.push(repo.cleanup);
    repo.write(
      'package.json',
      `${JSON.stringify({ name: 'adder', version: '1.0.0', private: true, main: 'dist/index.js', scripts: { build: 'node build.js', test: 'node --test test/' } }, null, 2)}\n`,
    );
    repo.write('.gitignore', 'dist/\nnode_modules/\n');
    repo.write('build.js', BUILD);
    repo.write('src/index.js', 'exports.add = function add(a, b) {\n  return a + b;\n};\n');
    repo.write('test/add.test.js', TEST);
    const base = repo.commit('base');
    // the change adds a function and, by mistake, breaks the one beside it
    repo.write('src/index.js', 'exports.add = function add(a, b) {\n  return a - b;\n};\n\nexports.twice = function twice(a) {\n  return a * 2;\n};\n');
    const head = repo.commit('add twice()');
    const res = await repair(repo.dir, ['--base', base, '--head', head, '--json']);
    assert.match(res.err, /build: .*npm run build/, res.err.slice(-3000));
    const result = JSON.parse(res.out) as { exitReason: string; diff: string; evidence: { notCausedByChange: boolean } };
    assert.equal(result.exitReason, 'fixed', res.err.slice(-4000));
    assert.equal(result.evidence.notCausedByChange, false);
    assert.match(result.diff, /^\+\s+return a \+ b;/m);
  });
});
