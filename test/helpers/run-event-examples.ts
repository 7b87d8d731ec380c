import type { RunEventPayload, RunEventType } from '../../common/run-events';

// One realistic payload of every run-event type, as its writer sends it. The
// mapped type makes a type added to the contract fail to compile here until
// it has an example, and every test that walks RUN_EVENT_TYPES then carries
// the new type from the writer to the run page.

export const RUN_EVENT_EXAMPLES: { [K in RunEventType]: RunEventPayload<K> } = {
  phase: { phase: 'localise', status: 'finished', durationMs: 1234 },
  thought: { text: 'the stale expectation is the likeliest cause', candidates: 3, byTemplate: { 'stale-expectation': 3 } },
  tool_call: { id: 'call_1', name: 'read_file', arguments: '{"path":"src/fees.py"}', index: 1 },
  observation: { id: 'call_1', name: 'read_file', ok: true, text: 'def overdraft_fee():\n    return 30', durationMs: 12 },
  gate: {
    gate: 'regression',
    passed: true,
    durationMs: 880,
    detail: '16 of 16 tests pass',
    tests: [],
    counts: { run: 16, passed: 16, failed: 0, skipped: 0 },
  },
  proof: {
    status: 'unproven',
    reason: 'flaky_target',
    order: 'repeated',
    seeds: [16838, 24757],
    withFix: { runs: 6, passed: 6 },
    withoutFix: { runs: 3, failed: 1 },
    flakyTargets: ['tests.test_fees::test_overdraft'],
    detail: 'unproven (flaky target): tests.test_fees::test_overdraft passed without the fix in 2 of 3 runs (repeated); passing with the fix proves nothing',
  },
  suspects: {
    suspects: [
      { file: 'src/fees.py', symbol: 'overdraft_fee', kind: 'function', startLine: 10, endLine: 12, score: 0.91, reasons: ['stack frame src/fees.py:11'] },
    ],
  },
  evidence: {
    summary: '1 failing test(s), 1 frame(s), 1 expected/actual pair(s)',
    failingTests: [{ id: 'tests.test_fees::test_overdraft', name: 'test_overdraft', message: 'assert 30 == 35' }],
    expectedActual: [{ testId: 'tests.test_fees::test_overdraft', expected: '35', actual: '30', operator: '==' }],
    frames: [{ file: 'src/fees.py', line: 11, fn: 'overdraft_fee' }],
    symbols: ['overdraft_fee'],
  },
  candidate: {
    rank: 1,
    template: 'stale-expectation',
    file: 'tests/test_fees.py',
    line: 8,
    symbol: 'test_overdraft',
    description: 'update the expected value to 35',
    score: 0.8,
    onEditedLine: true,
    edits: 1,
    outcome: 'green',
  },
  usage: { call: 1, model: 'gpt-4.1', promptTokens: 1200, completionTokens: 80, costUsd: 0.003, durationMs: 900 },
  log: { text: 'policy offline', policy: 'offline', tier: 1 },
  status: { status: 'running', attempt: 1, maxAttempts: 3 },
  final: { status: 'fixed', runStatus: 'FIXED', exitReason: 'fixed', files: ['tests/test_fees.py'], fixId: 'fix_1' },
};
