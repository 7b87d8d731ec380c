import { meterCommand } from '../gates/gates';
import { commandOutcome, didNotRun, failedResults, runTests } from '../testing/test-runner';
import type { TestRun } from '../types';
import { RunExit, type RedState, type SetupState } from './state';
import { notReproducedDetail } from '../gates/target-outcome';

// RED: the failure must reproduce on the head before anything is edited,
// else the run abstains (`not_reproduced`). Then the same targets on the base
// revision: a target failing there too was not broken by the change, so it is
// left out of the targets and of the regression comparison (recorded, and
// logged) and the run repairs the rest; with none left it ends
// `not_caused_by_change`. With the filter pre.notCausedByChange off, nothing is
// left out: the run repairs them all.

export async function red(state: SetupState): Promise<RedState> {
  const { input, settings, signal, meter, gates, evidence, workspace: ws } = state;
  await state.enterPhase('red');
  if ((input.targetTests ?? []).length === 0) {
    // no targets named: the failing tests of a full run are the targets
    const full = await runTests({ workspace: ws, settings, signal, deadline: state.deadline, kind: 'regression', targets: [] });
    meterCommand(meter, full.command);
    meter.regressionRuns++;
    state.throwIfCancelled();
    if (full.command.timedOut)
      throw new RunExit('time_limit', `the test suite timed out on the head revision: ${full.reportError ?? ''}; ${commandOutcome(full.command)}`);
    if (full.reportError) throw new RunExit('setup_failed', `no readable test report: ${full.reportError}; ${commandOutcome(full.command)}`);
    if (full.warnings?.length) await state.log(`test report: ${full.warnings.slice(0, 5).join('; ')}`, { warnings: full.warnings.slice(0, 50) });
    const failing = failedResults(full);
    await state.log(`no targets given: ${failing.length} failing test(s) in a full run`, { tests: failing.map((r) => r.id).slice(0, 50) });
    // an empty report (a runner too old for this Node that printed nothing, a TAP stream with no test) passes nothing
    if (full.results.length === 0) throw new RunExit('setup_failed', `the test command reported no tests; ${commandOutcome(full.command)}`);
    if (failing.length === 0) {
      throw new RunExit(
        'not_reproduced',
        full.incomplete
          ? `no test fails on the head revision, but the report does not account for every test: ${full.incomplete}; ${commandOutcome(full.command)}`
          : 'every test passes on the head revision',
      );
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
    throw new RunExit('not_reproduced', notReproducedDetail(redGate.run));
  }
  // Only the targets that really failed are repaired; ids are normalised to the report's.
  const reproduced = failedResults(redGate.run).filter((r) => !didNotRun(r));
  const targets = reproduced.map((r) => ({ id: r.id, name: r.name, ...(r.file ? { file: r.file } : {}) }));
  gates.setTargets(targets);
  evidence.targets = targets.map((t) => t.id);
  let redRun: TestRun = { ...redGate.run, results: reproduced };

  let base: Awaited<ReturnType<typeof gates.runTargets>> | undefined;
  if (input.checkBase !== false) {
    await ws.checkoutRevision(state.baseCommit);
    try {
      // tests that import the build judge the base on its own build, never on the head's output left behind
      const built = settings.build ? await gates.build() : undefined;
      state.throwIfCancelled();
      if (built && built.exitCode !== 0) {
        await state.log(
          `the base revision does not build, so the targets were not run there: every target is held against the change (${commandOutcome(built, 300)})`,
          {
            exitCode: built.exitCode,
          },
        );
      } else {
        base = await gates.runTargets('base', 'fail');
        state.throwIfCancelled();
        evidence.base = base.verdict;
      }
    } finally {
      await ws.checkoutRevision(ws.headRev);
      if (settings.build) await gates.build();
    }
  }
  if (base) {
    const baseRun = base.run;
    // one result per target, in the targets' order; a target the base does not have (a new test) did not fail there
    const atBase = targets.filter((_, i) => {
      const r = baseRun.results[i];
      return !!r && (r.status === 'failed' || r.status === 'error') && !didNotRun(r);
    });
    if (atBase.length > 0 && !state.filterPolicy.pre.notCausedByChange) {
      evidence.notCausedByChange = true;
      await state.log(
        `${atBase.length} of ${targets.length} target test(s) fail on the base revision too (not caused by the change); repaired anyway (the filter is off)`,
        {
          tests: atBase.map((t) => t.id).slice(0, 50),
        },
      );
    } else if (atBase.length > 0) {
      // a test failing before the change is not the change's fault: the run repairs the others
      const message = (id: string) => baseRun.results[targets.findIndex((t) => t.id === id)]?.message?.split('\n')[0]?.slice(0, 200);
      const dropped = atBase.map((t) => ({ id: t.id, reason: `fails on the base revision too${message(t.id) ? `: ${message(t.id)}` : ''}` }));
      evidence.droppedTargets = dropped;
      const ids = dropped.map((d) => d.id);
      if (atBase.length === targets.length) {
        evidence.notCausedByChange = true;
        await state.log(`the target tests fail on the base revision too: the failure was not caused by the change`, { dropped });
        throw new RunExit('not_caused_by_change', `every target test fails on the base revision too: ${ids.slice(0, 10).join(', ')}`);
      }
      const kept = targets.filter((t) => !ids.includes(t.id));
      await state.log(
        `left out ${dropped.length} target test(s) that fail on the base revision too (not caused by the change): ${ids.slice(0, 10).join(', ')}; repairing the other ${kept.length}`,
        { dropped: dropped.slice(0, 50) },
      );
      gates.setTargets(kept);
      gates.setFailingAtBase(ids);
      evidence.targets = kept.map((t) => t.id);
      redRun = { ...redRun, results: reproduced.filter((r) => !ids.includes(r.id)) };
    }
  }
  return Object.assign(state, { redRun });
}
