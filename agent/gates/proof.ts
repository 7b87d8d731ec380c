import type { RepositorySettings } from '../../common/settings';
import { runEvent, type Proof } from '../../common/run-events';
import type { GateRepeat, Gates } from './gates';
import type { GateName, TestRun } from '../types';
import { VITEST_SHUFFLE } from '../testing/runners';

// A fix is proven only when its target tests answer to it and to nothing
// else: they pass every repeat with the fix (GREEN and the final rerun, each
// `proof.runs` times) and fail every repeat without it (RED and its repeats
// on the head). A randomized target that passed GREEN by chance fails a
// repeat (the run ends without a fix); one that passes without the fix too
// makes the fix "unproven (flaky target)": it is kept, with that evidence, and
// never shown as green. Repeats differ by seed where the runner shuffles.

/**
 * The runner's own shuffle, `{seed}` for the seed; null: plain repeats.
 * Detection sets it from the declared version (agent/testing/runners.ts);
 * for a command written by hand only vitest's is assumed: jest refused
 * `--randomize` before 29.2, and every repeat of an older jest would fail.
 */
export function shuffleArgsOf(settings: Pick<RepositorySettings, 'test' | 'proof'>): string | null {
  if (settings.proof.shuffleArgs) return settings.proof.shuffleArgs;
  const test = settings.test ?? '';
  // only a single command: flags appended after `a && b` would reach b
  if (/&&|\|\||;|\|/.test(test)) return null;
  if (/(^|[\s/])vitest(\s|$)/.test(test)) return VITEST_SHUFFLE;
  return null;
}

/** Deterministic seeds (a rerun of the run repeats them): one per repeat index. */
export function proofSeed(index: number): number {
  return 1000 + index * 7919;
}

/**
 * Repeat `index` of `of`: the first is the plain run; later ones carry a seed,
 * in FLOWFIX_TEST_SEED always and in the runner's shuffle arguments when known.
 */
export function repeatOf(settings: Pick<RepositorySettings, 'test' | 'proof'>, index: number, of: number): GateRepeat {
  if (index === 1) return { index, of };
  const seed = proofSeed(index);
  const args = shuffleArgsOf(settings);
  return { index, of, seed, env: { FLOWFIX_TEST_SEED: String(seed) }, ...(args ? { extraArgs: args.replaceAll('{seed}', String(seed)) } : {}) };
}

/**
 * Runs a pass-expecting target gate repeats 2..of (the caller ran the first).
 * Returns the first failing repeat's run and its detail, or null when every one passed.
 */
export async function repeatUntilFailure(
  gates: Gates,
  settings: RepositorySettings,
  gate: GateName,
  throwIfCancelled: () => void,
): Promise<{ run: TestRun; detail: string; index: number } | null> {
  const of = settings.proof.runs;
  for (let index = 2; index <= of; index++) {
    const { verdict, run } = await gates.runTargets(gate, 'pass', repeatOf(settings, index, of));
    throwIfCancelled();
    if (!verdict.passed) return { run, detail: verdict.detail ?? '', index };
  }
  return null;
}

/**
 * The head without the fix, repeats 2..runs (RED was the first): which
 * targets ever passed there. The workspace must be at the clean head.
 */
export async function proveAgainstHead(input: {
  gates: Gates;
  settings: RepositorySettings;
  throwIfCancelled: () => void;
  /** passes of the targets with the fix so far (GREEN and the final rerun) */
  withFix: Proof['withFix'];
}): Promise<Proof> {
  const { gates, settings } = input;
  const of = settings.proof.runs;
  const flaky = new Set<string>();
  const seeds: number[] = [];
  let failed = 1; // RED: every target reproduced (only those are targets)
  for (let index = 2; index <= of; index++) {
    const repeat = repeatOf(settings, index, of);
    if (repeat.seed !== undefined) seeds.push(repeat.seed);
    const { run } = await gates.runTargets('red', 'fail', repeat);
    input.throwIfCancelled();
    const passedHere = run.results.filter((r) => r.status === 'passed').map((r) => r.id);
    for (const id of passedHere) flaky.add(id);
    if (passedHere.length === 0) failed++;
  }
  const order: Proof['order'] = shuffleArgsOf(settings) ? 'shuffled' : 'repeated';
  const withoutFix = { runs: of, failed };
  const how = order === 'shuffled' ? 'shuffled with seeds' : 'repeated';
  if (flaky.size > 0) {
    const names = [...flaky];
    return {
      status: 'unproven',
      reason: 'flaky_target',
      order,
      seeds,
      withFix: input.withFix,
      withoutFix,
      flakyTargets: names.slice(0, 50),
      detail: `unproven (flaky target): ${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''} passed without the fix in ${of - failed} of ${of} runs (${how}); passing with the fix proves nothing`,
    };
  }
  return {
    status: 'proven',
    order,
    seeds,
    withFix: input.withFix,
    withoutFix,
    detail: `the targets passed ${input.withFix.passed} of ${input.withFix.runs} runs with the fix and failed ${failed} of ${of} without it (${how})`,
  };
}

export const proofEvent = (proof: Proof) => runEvent('proof', { ...proof }, 'verify');
