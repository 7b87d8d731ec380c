import { collectCoverage, type Spectrum } from '../coverage/index';
import { extractEvidence } from '../testing/evidence';
import { candidateTimeoutSeconds, meterCommand } from '../gates/gates';
import { judgeDeliberate } from '../policies/offline/stale';
import { detectTestFiles, isTestPath } from '../testing/test-files';
import { workspaceGit } from '../workspace/git';
import type { LocaliseFn } from './contract';
import type { Evidence, Suspect } from '../types';
import type { LocalisedState, RedState } from './state';
import { evidenceEvent, runEvent } from '../../common/run-events';

// Localise: the RED run read as evidence (failing tests, messages,
// expected/actual, stack frames mapped to workspace files), per-test coverage
// of the target tests' command (agent/coverage; an aid: the run goes on
// without it), then the top-K suspects. A scaffold that fails does not end
// the run: the stack frames are ranked instead.

/** Suspects ranked after the top-K are reported too (not handed to the policy), up to this rank. */
export const REPORTED_RANKS = 5;

/**
 * The spectrum of one instrumented run of the target tests' command, within
 * a candidate's time limit; undefined (and a log line saying why) when coverage
 * is off or fails.
 */
async function coverageFor(state: RedState, isTestFile: (rel: string) => boolean): Promise<Spectrum | undefined> {
  const { settings, signal, meter, workspace: ws } = state;
  if (!settings.coverage) return undefined;
  const targets = state.redRun.results.map((r) => ({ id: r.id, name: r.name, ...(r.file ? { file: r.file } : {}) }));
  const timeoutSeconds = candidateTimeoutSeconds(state.redRun.command.durationMs, settings.timeLimits.testSeconds);
  const started = performance.now();
  try {
    const cov = await collectCoverage({ workspace: ws, settings, targets, timeoutSeconds, signal, deadline: state.deadline, isTestFile });
    for (const run of cov.runs) meterCommand(meter, run.command);
    await state.log(
      `coverage: ${cov.failing} failing and ${cov.passing} passing test(s) over ${cov.files} production file(s) in ${Math.round(performance.now() - started)} ms, ${cov.cut}`,
      {
        recorded: cov.recorded,
        failing: cov.failing,
        passing: cov.passing,
        files: cov.files,
        cut: cov.cut,
        durationMs: Math.round(performance.now() - started),
      },
    );
    return cov.spectrum;
  } catch (err) {
    state.throwIfCancelled();
    await state.log(`coverage unavailable, localising without it: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * Ranks stack frames when the scaffold cannot run: a window around each frame
 * outside the tests, then around the change's own edits outside the tests
 * (suspects are production code only).
 */
export function fallbackSuspects(
  evidence: Evidence,
  k: number,
  isTest: (file: string) => boolean = isTestPath,
  editedSpans: Array<{ file: string; startLine: number; endLine: number }> = [],
): Suspect[] {
  const frames = evidence.frames.filter((f) => !isTest(f.file));
  const windows = [
    ...frames.map((f) => ({
      file: f.file,
      symbol: f.fn ?? `${f.file}:${f.line}`,
      startLine: Math.max(1, f.line - 10),
      endLine: f.line + 10,
      reason: `stack frame ${f.file}:${f.line}`,
    })),
    ...editedSpans
      .filter((e) => !isTest(e.file))
      .map((e) => ({
        file: e.file,
        symbol: `${e.file}:${e.startLine}-${e.endLine}`,
        startLine: Math.max(1, e.startLine - 2),
        endLine: e.endLine + 2,
        reason: `edited by the change (${e.file}:${e.startLine}-${e.endLine})`,
      })),
  ];
  return windows.slice(0, k).map((w, i) => ({
    file: w.file,
    symbol: w.symbol,
    kind: 'window' as const,
    startLine: w.startLine,
    endLine: w.endLine,
    score: 1 / (i + 1),
    reasons: [w.reason],
  }));
}

async function defaultLocalise(input: Parameters<LocaliseFn>[0]): Promise<Suspect[]> {
  const { localise } = await import('../scaffold/index');
  return localise(input);
}

/**
 * A failing test its report names without a file (ava's and tape's TAP, a
 * crash before any frame): the test file whose text holds its name, when one
 * alone does. The scaffold then follows that file's imports to the code it
 * tests; without it there is nothing to start from.
 */
export async function fileByName(root: string, failure: Evidence, isTestFile: (rel: string) => boolean): Promise<void> {
  for (const t of failure.failingTests) {
    if (t.file) continue;
    // the test's own title: the last part of a nested name ("suite > test")
    const title = t.name.split(' > ').at(-1)?.trim() ?? '';
    if (title.length < 4) continue;
    const hits = await workspaceGit(root, ['grep', '-l', '-F', '-I', '--no-color', '-e', title], { okCodes: [1] }).then(
      (r) => r.stdout.split('\n').filter((f) => f && isTestFile(f)),
      () => [] as string[],
    );
    if (hits.length === 1) t.file = hits[0];
  }
}

export async function localise(state: RedState): Promise<LocalisedState> {
  const { input, sink, signal, evidence, workspace: ws } = state;
  await state.enterPhase('localise');
  const tracked = (await workspaceGit(ws.root, ['ls-files', '-z'])).stdout.split('\0').filter(Boolean);
  const byConfig = detectTestFiles({ root: ws.root, patterns: state.settings.testPathPatterns });
  const failure = extractEvidence({ run: state.redRun, root: ws.root, files: tracked, targets: evidence.targets, isTestFile: byConfig.is });
  await fileByName(ws.root, failure, byConfig.is);
  evidence.failure = failure;
  await sink.emit(evidenceEvent(failure));
  // tests and their helpers: the conventions, the runner's configuration, the failing tests' own files
  const testFiles = detectTestFiles({
    root: ws.root,
    patterns: state.settings.testPathPatterns,
    failingTestFiles: failure.failingTests.map((t) => t.file).filter((f): f is string => !!f),
  });
  if (testFiles.sources.length) await state.log(`test files from ${testFiles.sources.join(', ')}`, { patterns: testFiles.patterns.slice(0, 50) });
  // a failing test's own case is a suspect only when the change contradicts its expectation
  const keepFailingTests = judgeDeliberate({ change: state.change, evidence: failure }).level !== 'none';
  const k = state.modelSettings.suspects;
  const coverage = await coverageFor(state, testFiles.is);
  let runnersUp: Suspect[] = [];
  try {
    const ranked = await (input.localise ?? defaultLocalise)({
      root: ws.root,
      evidence: failure,
      editedSpans: state.change.editedSpans,
      k: Math.max(k, REPORTED_RANKS),
      signal,
      isTestFile: testFiles.is,
      keepFailingTests,
      ...(coverage ? { coverage } : {}),
    });
    state.suspects = ranked.slice(0, k);
    runnersUp = ranked.slice(k, REPORTED_RANKS);
  } catch (err) {
    await state.log(`the retrieval scaffold failed (${(err as Error).message}); ranking stack frames instead`);
    state.suspects = fallbackSuspects(failure, k, testFiles.is, state.change.editedSpans);
  }
  await sink.emit(runEvent('suspects', { suspects: state.suspects, ...(runnersUp.length ? { runnersUp } : {}) }, 'localise'));
  return Object.assign(state, { failure, testFiles, testEditsAllowed: keepFailingTests });
}
