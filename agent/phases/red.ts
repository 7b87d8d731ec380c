import { commandOutcome, didNotRun, failedResults, runTests } from '../test-runner';
import type { TestRun } from '../types';
import { RunExit, type RedState, type SetupState } from './state';

// RED: the failure must reproduce on the head before anything is edited,
// else the run abstains (`not_reproduced`). Then the same targets on the base
// revision: failing there too means the change did not cause the failure.

export async function red(state: SetupState): Promise<RedState> {
  const { input, settings, signal, meter, gates, evidence, workspace: ws } = state;
  await state.enterPhase('red');
  if ((input.targetTests ?? []).length === 0) {
    // no targets named: the failing tests of a full run are the targets
    const full = await runTests({ workspace: ws, settings, signal, deadline: state.deadline, kind: 'regression', targets: [] });
    meter.commandMs += full.command.durationMs;
    meter.regressionRuns++;
    state.throwIfCancelled();
    if (full.command.timedOut) throw new RunExit('time_limit', `the test suite timed out on the head revision: ${full.reportError ?? ''}; ${commandOutcome(full.command)}`);
    if (full.reportError) throw new RunExit('setup_failed', `no readable test report: ${full.reportError}; ${commandOutcome(full.command)}`);
    if (full.warnings?.length) await state.log(`test report: ${full.warnings.slice(0, 5).join('; ')}`, { warnings: full.warnings.slice(0, 50) });
    const failing = failedResults(full);
    await state.log(`no targets given: ${failing.length} failing test(s) in a full run`, { tests: failing.map((r) => r.id).slice(0, 50) });
    // an empty report (a runner too old for this Node that printed nothing, a TAP stream with no test) passes nothing
    if (full.results.length === 0) throw new RunExit('setup_failed', `the test command reported no tests; ${commandOutcome(full.command)}`);
    if (failing.length === 0) {
      throw new RunExit('not_reproduced', full.incomplete ? `no test fails on the head revision, but the report does not account for every test: ${full.incomplete}; ${commandOutcome(full.command)}` : 'every test passes on the head revision');
    }
    gates.setTargets(failing.map((r) => ({ id: r.id, name: r.name, ...(r.file ? { file: r.file } : {}) })));
  }
  const redGate = await gates.runTargets('red', 'fail');
  evidence.red = redGate.verdict;
  state.throwIfCancelled();
  const redCommand = redGate.run.command;
  // a target run that never ends reproduces nothing, and is named for what it is
  if (redCommand.timedOut) {
    throw new RunExit(
      'time_limit',
      `the target tests timed out on the head revision (testSeconds ${settings.timeLimits.testSeconds}): ${commandOutcome(redCommand)}`,
    );
  }
  // a test run the sandbox stopped reproduces nothing
  if (redCommand.limit) {
    throw new RunExit('setup_failed', `the test command was stopped by the sandbox (${redCommand.limit}): ${commandOutcome(redCommand)}`);
  }
  if (!redGate.verdict.passed) {
    if (redGate.run.reportError && redGate.run.results.every(didNotRun)) {
      throw new RunExit('setup_failed', `no readable test report: ${redGate.run.reportError}; ${commandOutcome(redCommand)}`);
    }
    throw new RunExit('not_reproduced', 'the target tests pass on the head revision: the failure did not reproduce (flaky?)');
  }
  // Only the targets that really failed are repaired; ids are normalised to the report's.
  const reproduced = failedResults(redGate.run).filter((r) => !didNotRun(r));
  const targets = reproduced.map((r) => ({ id: r.id, name: r.name, ...(r.file ? { file: r.file } : {}) }));
  gates.setTargets(targets);
  evidence.targets = targets.map((t) => t.id);
  const redRun: TestRun = { ...redGate.run, results: reproduced };

  if (input.checkBase !== false) {
    await ws.checkoutRevision(state.baseCommit);
    try {
      const base = await gates.runTargets('base', 'fail');
      state.throwIfCancelled();
      evidence.base = base.verdict;
      evidence.notCausedByChange = base.verdict.passed;
    } finally {
      await ws.checkoutRevision(ws.headRev);
    }
    if (evidence.notCausedByChange) {
      await state.log('the target tests fail on the base revision too: the failure was not caused by the change');
      if (state.filterPolicy.pre.notCausedByChange) {
        throw new RunExit('not_caused_by_change', 'the target tests fail on the base revision too');
      }
    }
  }
  return Object.assign(state, { redRun });
}
