import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { repairCommand } from '@/agent/cli/repair';
import { makeRepo } from '../../helpers/agent-repos';

// A Python project as people lay them out: the package under src/, its
// requirements in a file, pytest configured in pyproject.toml. `flowfix
// repair` with no settings makes the run a virtualenv from what the project
// declares (the tests import the package only because src/ is on that
// virtualenv's path) and repairs the bug; a requirement nobody can install
// ends the run at setup with pip's own reason.

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((c) => c()));

const PYPROJECT = ['[project]', 'name = "totals"', 'version = "1.0.0"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]', ''].join('\n');
const TOTALS = 'def total(items):\n    s = 0\n    for item in items:\n        s += item["price"] + item["qty"]\n    return s\n';
const BASE_TEST = 'from totals import total\n\n\ndef test_empty():\n    assert total([]) == 0\n';
const HEAD_TEST = `${BASE_TEST}\n\ndef test_price_times_quantity():\n    assert total([{"price": 5, "qty": 3}]) == 15\n`;

function pythonRepo(requirements: string) {
  const repo = makeRepo('flowfix-pyvenv-');
  cleanups.push(repo.cleanup);
  repo.write('pyproject.toml', PYPROJECT);
  repo.write('requirements-dev.txt', requirements);
  repo.write('src/totals/__init__.py', TOTALS);
  repo.write('tests/test_totals.py', BASE_TEST);
  const base = repo.commit('base');
  repo.write('tests/test_totals.py', HEAD_TEST);
  const head = repo.commit('test: price times quantity');
  return { ...repo, base, head };
}

async function repair(dir: string, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await repairCommand(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  return { code, out: out.join(''), err: err.join('') };
}

describe('a Python project set up in a virtualenv of its own', { concurrency: 2 }, () => {
  test('its requirements installed and src/ importable in the run’s virtualenv, then repaired', { timeout: 300_000 }, async () => {
    const repo = pythonRepo('pytest\n');
    const res = await repair(repo.dir, ['--base', repo.base, '--head', repo.head, '--json']);
    assert.match(
      res.err,
      /detected pytest \(pytest configuration; a virtualenv \(\.flowfix-venv\) from requirements-dev\.txt, src\/ importable\)/,
      res.err.slice(-3000),
    );
    assert.equal(res.code, 0, res.out.slice(-2000) + res.err.slice(-3000));
    const result = JSON.parse(res.out) as { exitReason: string; diff: string };
    assert.equal(result.exitReason, 'fixed');
    assert.match(result.diff, /^\+.*item\["price"\] \* item\["qty"\]/m);
    // the virtualenv is the run's, never part of the fix
    assert.doesNotMatch(result.diff, /flowfix-venv/);
  });

  test('a requirement that cannot be installed: the run stops at setup with pip’s reason, no test run', { timeout: 300_000 }, async () => {
    const repo = pythonRepo('pytest\nflowfix-no-such-package-anywhere==9.9.9\n');
    const res = await repair(repo.dir, ['--base', repo.base, '--head', repo.head, '--json']);
    assert.notEqual(res.code, 0);
    const result = JSON.parse(res.out) as { exitReason: string; exitDetail?: string };
    assert.equal(result.exitReason, 'setup_failed', res.out.slice(-2000));
    assert.match(result.exitDetail ?? '', /No matching distribution found for flowfix-no-such-package-anywhere/, result.exitDetail);
  });
});
