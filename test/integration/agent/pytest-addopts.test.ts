import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Workspace } from '@/agent/workspace/workspace';
import { runTests } from '@/agent/testing/test-runner';
import { pytestAddoptsRetry } from '@/agent/testing/runners';
import { makeRepo, pySettings, type TestRepo } from '../../helpers/agent-repos';

// A Python repository whose pytest configuration names a plugin option that is
// not installed here (`--cov` without pytest-cov): the real pytest exits 4
// ("unrecognized arguments") before running a test; the run retries once
// without the configuration's addopts and says so.

const repos: Array<Pick<TestRepo, 'cleanup'>> = [];
after(() => repos.forEach((r) => r.cleanup()));

test('pytest addopts naming a missing plugin (--cov): retried once with -o addopts=, the tests run and the log says why', async () => {
  const repo = makeRepo('flowfix-pyaddopts-');
  repos.push(repo);
  repo.write('.gitignore', 'junit.xml\n__pycache__/\n');
  repo.write('pytest.ini', '[pytest]\naddopts = --cov=pkg\n');
  repo.write('pkg/__init__.py', 'def double(x):\n    return x + x\n');
  repo.write('tests/__init__.py', '');
  repo.write(
    'tests/test_pkg.py',
    'from pkg import double\n\ndef test_double():\n    assert double(2) == 4\n\ndef test_double_fails():\n    assert double(3) == 7\n',
  );
  repo.commit('base');
  const ws = await Workspace.create({ source: repo.dir, headRev: 'HEAD' });
  try {
    const run = await runTests({ workspace: ws, settings: pySettings(), kind: 'regression', targets: [] });
    assert.equal(run.reportError, undefined, `${run.reportError}\n${run.command.output}`);
    assert.match(run.command.command, /-o addopts=$/);
    assert.match(
      run.command.output,
      /\[flowfix\] pytest exited 4 \(unrecognized arguments: --cov=pkg from addopts in pytest\.ini.*retried once with -o addopts=/,
    );
    const byName = Object.fromEntries(run.results.map((r) => [r.id.split('::').pop(), r.status]));
    assert.equal(byName.test_double, 'passed', JSON.stringify(run.results));
    assert.equal(byName.test_double_fails, 'failed', JSON.stringify(run.results));
  } finally {
    await ws.dispose();
  }
});

test('no retry for other exit-4 causes, a command that already clears addopts, or a non-pytest command', () => {
  const usage = { exitCode: 4, output: 'ERROR: usage: pytest [options]\npytest: error: unrecognized arguments: --cov=pkg\n  inifile: /x/repo/setup.cfg\n' };
  assert.equal(pytestAddoptsRetry('python3 -m pytest -q', usage)?.command, 'python3 -m pytest -q -o addopts=');
  assert.match(pytestAddoptsRetry('python3 -m pytest -q', usage)!.note, /from addopts in setup\.cfg/);
  assert.equal(pytestAddoptsRetry('python3 -m pytest -q -o addopts=', usage), undefined);
  assert.equal(pytestAddoptsRetry('python3 -m pytest -q', { exitCode: 4, output: 'ERROR: file or directory not found: tests' }), undefined);
  assert.equal(pytestAddoptsRetry('python3 -m pytest -q', { ...usage, exitCode: 1 }), undefined);
  assert.equal(pytestAddoptsRetry('npm test', usage), undefined);
});
