import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Workspace } from '@/agent/workspace/workspace';
import { runTests } from '@/agent/testing/test-runner';
import { makeRepo, tsSettings, type TestRepo } from '../../helpers/agent-repos';

// A test command that prints its report instead of writing the file the
// settings name (a hand-written `tap` or `jest --json` with no redirect and no
// --outputFile): the report is read from the command's output, and the run
// says so; output with no report in it is still "no report".

const repos: Array<Pick<TestRepo, 'cleanup'>> = [];
after(() => repos.forEach((r) => r.cleanup()));

const TAP = ['TAP version 13', '# adds', 'ok 1 - adds', '# subtracts', 'not ok 2 - subtracts', '  ---', '  message: expected 1, got 3', '  ...', '1..2'];
const JEST = {
  numFailedTestSuites: 1,
  testResults: [
    {
      name: '<root>/test/sum.test.js',
      status: 'failed',
      assertionResults: [
        { ancestorTitles: ['sum'], title: 'adds', status: 'passed', failureMessages: [] },
        { ancestorTitles: ['sum'], title: 'subtracts', status: 'failed', failureMessages: ['expected 1, got 3'] },
      ],
    },
  ],
};

async function workspaceWith(printer: string) {
  const repo = makeRepo('flowfix-stdoutreport-');
  repos.push(repo);
  repo.write('print.js', printer);
  repo.commit('base');
  return Workspace.create({ source: repo.dir, headRev: 'HEAD' });
}

test('TAP printed to stdout with no report file: read from the output, and said', async () => {
  const ws = await workspaceWith(`console.error('starting the suite');\nconsole.log(${JSON.stringify(TAP.join('\n'))});\nprocess.exit(1);\n`);
  try {
    const run = await runTests({
      workspace: ws,
      settings: tsSettings({ test: 'node print.js', junitReport: 'flowfix-report.tap' }),
      kind: 'regression',
      targets: [],
    });
    assert.equal(run.reportError, undefined, `${run.reportError}\n${run.command.output}`);
    assert.deepEqual(
      run.results.map((r) => [r.name, r.status]),
      [
        ['adds', 'passed'],
        ['subtracts', 'failed'],
      ],
    );
    assert.ok(
      run.warnings?.some((w) => /no file at flowfix-report\.tap: the report was read from the command's output/.test(w)),
      JSON.stringify(run.warnings),
    );
  } finally {
    await ws.dispose();
  }
});

test("jest's JSON printed to stdout with no --outputFile: read from the output", async () => {
  const ws = await workspaceWith(
    `console.error('PASS? no');\nconsole.log(JSON.stringify(${JSON.stringify(JEST)}).replace('<root>', process.cwd()));\nprocess.exit(1);\n`,
  );
  try {
    const run = await runTests({
      workspace: ws,
      settings: tsSettings({ test: 'node print.js', junitReport: 'flowfix-report.json' }),
      kind: 'regression',
      targets: [],
    });
    assert.equal(run.reportError, undefined, `${run.reportError}\n${run.command.output}`);
    assert.deepEqual(
      run.results.map((r) => [r.id, r.status]),
      [
        ['test/sum.test.js::sum adds', 'passed'],
        ['test/sum.test.js::sum subtracts', 'failed'],
      ],
    );
  } finally {
    await ws.dispose();
  }
});

test('output with no report in it is still no report', async () => {
  const ws = await workspaceWith(`console.log('ok so far, but nothing here is TAP: not ok');\nprocess.exit(1);\n`);
  try {
    const run = await runTests({
      workspace: ws,
      settings: tsSettings({ test: 'node print.js', junitReport: 'flowfix-report.tap' }),
      kind: 'regression',
      targets: [],
    });
    assert.match(run.reportError ?? '', /wrote no report at flowfix-report\.tap/);
    assert.equal(run.results.length, 0);
  } finally {
    await ws.dispose();
  }
});
