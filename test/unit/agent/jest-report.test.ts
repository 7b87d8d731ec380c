import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseJestJson, SUITE_FAILED } from '@/agent/testing/jest-report';

// jest's --json report, in the shape jest 27–30 write it (trimmed to the fields read)
const report = {
  numTotalTests: 3,
  success: false,
  wasInterrupted: false,
  testResults: [
    {
      name: '/run/repo/__tests__/sum.test.js',
      status: 'failed',
      message: '',
      assertionResults: [
        {
          ancestorTitles: ['sum'],
          title: 'adds',
          fullName: 'sum adds',
          status: 'failed',
          failureMessages: [
            'Error: \u001b[2mexpect(\u001b[22mreceived).toBe(expected)\n\nExpected: 3\nReceived: -1\n    at Object.<anonymous> (/run/repo/__tests__/sum.test.js:2:50)',
          ],
          duration: 8,
          location: null,
        },
        { ancestorTitles: ['sum'], title: 'zero', fullName: 'sum zero', status: 'passed', failureMessages: [], duration: 1 },
        { ancestorTitles: [], title: 'later', status: 'todo', failureMessages: [] },
      ],
    },
    {
      name: '/run/repo/__tests__/broken.test.js',
      status: 'failed',
      message: "  ● Test suite failed to run\n\n    Cannot find module './nope' from '__tests__/broken.test.js'\n",
      assertionResults: [],
    },
  ],
};

describe('parseJestJson', () => {
  test('one result per test, ids "<file>::<full name>" relative to the run folder, failures with their message', () => {
    const { results, incomplete } = parseJestJson(JSON.stringify(report), '/run/repo');
    assert.equal(incomplete, undefined);
    assert.deepEqual(
      results.map((r) => [r.id, r.status, r.file]),
      [
        ['__tests__/sum.test.js::sum adds', 'failed', '__tests__/sum.test.js'],
        ['__tests__/sum.test.js::sum zero', 'passed', '__tests__/sum.test.js'],
        ['__tests__/sum.test.js::later', 'skipped', '__tests__/sum.test.js'],
        [`__tests__/broken.test.js::${SUITE_FAILED}`, 'error', '__tests__/broken.test.js'],
      ],
    );
    assert.equal(results[0].message, 'Error: expect(received).toBe(expected)');
    assert.match(results[0].details ?? '', /Received: -1/);
    assert.doesNotMatch(results[0].details ?? '', /\u001b/);
    assert.equal(results[3].message, "Cannot find module './nope' from '__tests__/broken.test.js'");
  });

  test("an interrupted run is incomplete; a file that is not jest's report is refused with a reason", () => {
    assert.equal(parseJestJson(JSON.stringify({ ...report, wasInterrupted: true })).incomplete, 'jest was interrupted before every test ran');
    assert.throws(() => parseJestJson('{"testResults": 3}'), /not jest's JSON report: testResults/);
    assert.throws(() => parseJestJson('<xml/>'), /not jest's JSON report/);
  });
});
