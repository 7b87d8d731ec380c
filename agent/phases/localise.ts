import { extractEvidence } from '../evidence';
import { judgeDeliberate } from '../policies/offline/stale';
import { detectTestFiles, isTestPath } from '../test-files';
import { git } from '../git';
import type { LocaliseFn } from '../pipeline';
import type { Evidence, Suspect } from '../types';
import type { LocalisedState, RedState } from './state';
import { evidenceEvent, runEvent } from '../../common/run-events';

// Localise: the RED run read as evidence (failing tests, messages,
// expected/actual, stack frames mapped to workspace files), then the top-K
// suspects. A scaffold that fails does not end the run: the stack frames are
// ranked instead.

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
    ...frames.map((f) => ({ file: f.file, symbol: f.fn ?? `${f.file}:${f.line}`, startLine: Math.max(1, f.line - 10), endLine: f.line + 10, reason: `stack frame ${f.file}:${f.line}` })),
    ...editedSpans
      .filter((e) => !isTest(e.file))
      .map((e) => ({ file: e.file, symbol: `${e.file}:${e.startLine}-${e.endLine}`, startLine: Math.max(1, e.startLine - 2), endLine: e.endLine + 2, reason: `edited by the change (${e.file}:${e.startLine}-${e.endLine})` })),
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

export async function localise(state: RedState): Promise<LocalisedState> {
  const { input, sink, signal, evidence, workspace: ws } = state;
  await state.enterPhase('localise');
  const tracked = (await git(ws.root, ['ls-files', '-z'])).stdout.split('\0').filter(Boolean);
  const byConfig = detectTestFiles({ root: ws.root, patterns: state.settings.testPathPatterns });
  const failure = extractEvidence({ run: state.redRun, root: ws.root, files: tracked, targets: evidence.targets, isTestFile: byConfig.is });
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
  try {
    state.suspects = await (input.localise ?? defaultLocalise)({
      root: ws.root,
      evidence: failure,
      editedSpans: state.change.editedSpans,
      k,
      signal,
      isTestFile: testFiles.is,
      keepFailingTests,
    });
  } catch (err) {
    await state.log(`the retrieval scaffold failed (${(err as Error).message}); ranking stack frames instead`);
    state.suspects = fallbackSuspects(failure, k, testFiles.is, state.change.editedSpans);
  }
  await sink.emit(runEvent('suspects', { suspects: state.suspects }, 'localise'));
  return Object.assign(state, { failure, testFiles, testEditsAllowed: keepFailingTests });
}
