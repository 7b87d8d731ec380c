import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { provenChecks, readFixEvidence } from '@/lib/fixes/evidence';
import { toReviewQueueItem } from '@/lib/fixes/views';
import { renderComment } from '@/lib/code-review/review-view';
import { formatFix } from '@/cli/fix';
import { proofSeed, repeatOf, shuffleArgsOf } from '@/agent/gates/proof';
import { gateOutcome } from '@/agent/report/sinks';
import { proofLabel } from '@/common/run-events';
import { RepositorySettingsSchema } from '@/common/settings';

// A fix whose target also passes without it is "unproven (flaky target)" on
// every surface that shows the fix, with the evidence, and never a green row
// or a counted check.

const target = 'test/lottery.test.ts::lucky draw';
const gate = (name: string, passed: boolean) => ({
  gate: name,
  passed,
  durationMs: 100,
  detail: `${name} detail`,
  counts: { run: 1, passed: passed ? 1 : 0, failed: passed ? 0 : 1, skipped: 0 },
});
const UNPROVEN = {
  status: 'unproven',
  reason: 'flaky_target',
  order: 'repeated',
  seeds: [16838, 24757],
  withFix: { runs: 6, passed: 6 },
  withoutFix: { runs: 3, failed: 1 },
  flakyTargets: [target],
  detail: `unproven (flaky target): ${target} passed without the fix in 2 of 3 runs (repeated); passing with the fix proves nothing`,
};
const evidenceWith = (proof: unknown) => ({
  targets: [target],
  red: gate('red', true),
  green: gate('green', true),
  regression: gate('regression', true),
  final: gate('final', true),
  proof,
});

describe('the fix evidence read back', () => {
  test('an unproven proof marks the passes with the fix as proving nothing, with its evidence', () => {
    const view = readFixEvidence(evidenceWith(UNPROVEN));
    assert.equal(view.proof?.status, 'unproven');
    assert.equal(view.proof?.label, 'unproven (flaky target)');
    assert.match(view.proof?.detail ?? '', /passed without the fix in 2 of 3 runs/);
    assert.deepEqual(view.proof?.withoutFix, { runs: 3, failed: 1 });
    assert.deepEqual(view.proof?.flakyTargets, [target]);
    const unproven = Object.fromEntries(view.gates.map((g) => [g.gate, g.unproven]));
    assert.deepEqual(unproven, { red: false, green: true, regression: false, final: true });
    assert.deepEqual(provenChecks(view), { passed: 2, unproven: 2, total: 4 });
  });

  test('a proven fix, and evidence with no proof (older rows, the history), count every pass', () => {
    const proven = readFixEvidence(
      evidenceWith({ ...UNPROVEN, status: 'proven', reason: undefined, flakyTargets: undefined, detail: 'the targets passed 6 of 6 runs' }),
    );
    assert.equal(proven.proof?.label, 'proven');
    assert.deepEqual(provenChecks(proven), { passed: 4, unproven: 0, total: 4 });
    const none = readFixEvidence(evidenceWith(undefined));
    assert.equal(none.proof, null);
    assert.equal(
      none.gates.some((g) => g.unproven),
      false,
    );
    // a malformed proof is dropped, the gates stay
    const odd = readFixEvidence(evidenceWith({ status: 'maybe' }));
    assert.equal(odd.proof, null);
    assert.equal(odd.gates.length, 4);
  });
});

describe('the surfaces', () => {
  const row = (evidence: unknown) =>
    ({
      id: 'fix1',
      changeId: 'c1',
      evidence,
      summaryHtml: '<p>guard</p>',
      diff: '',
      files: ['src/cart.ts'],
      createdAt: new Date('2026-12-01T00:00:00Z'),
      change: { title: 'lottery', externalId: '42', author: 'dev', authorKind: 'HUMAN', branch: 'b', origin: 'CI', repository: { name: 'shop' } },
    }) as unknown as Parameters<typeof toReviewQueueItem>[0];

  test('the review queue card counts no unproven pass and carries the label and evidence', () => {
    const item = toReviewQueueItem(row(evidenceWith(UNPROVEN)));
    assert.equal(item.gatesPassed, 2);
    assert.equal(item.gatesTotal, 4);
    assert.equal(item.proof?.label, 'unproven (flaky target)');
    assert.match(item.proof?.detail ?? '', /2 of 3 runs/);
    const plain = toReviewQueueItem(row(evidenceWith(undefined)));
    assert.equal(plain.gatesPassed, 4);
    assert.equal(plain.proof, null);
  });

  test('the pull request comment says "Unproven (flaky target)" with the evidence, and nothing when proven', () => {
    const input = {
      changeId: 'c1',
      detailsUrl: 'http://x/changes/c1',
      fix: { id: 'fix1', status: 'READY' as const, diff: 'diff', summary: 'guard', appliedCommit: null },
      suggestionsPosted: false,
    };
    const text = renderComment({ ...input, unproven: { label: 'unproven (flaky target)', detail: UNPROVEN.detail } });
    assert.match(text, /\*\*Unproven \(flaky target\)\*\*: unproven \(flaky target\): .* passed without the fix in 2 of 3 runs/);
    assert.ok(text.indexOf('Unproven') < text.indexOf('**Root cause**'), 'said before the root cause');
    assert.doesNotMatch(renderComment(input), /nproven/);
  });

  test('`flowfix fix show` prints the proof and no plain "passed" for an unproven gate', () => {
    const evidence = readFixEvidence(evidenceWith(UNPROVEN));
    const text = formatFix({
      id: 'fix1',
      status: 'READY',
      runId: 'r1',
      summary: 'guard',
      appliedCommit: null,
      files: ['src/cart.ts'],
      diff: 'diff',
      evidence,
      change: { externalId: '42', title: 'lottery', repository: 'shop', branch: 'b', headRev: 'a'.repeat(40) },
    } as unknown as Parameters<typeof formatFix>[0]);
    assert.match(text, /GREEN\s+passed \(proves nothing\)/);
    assert.match(text, /FINAL\s+passed \(proves nothing\)/);
    assert.match(text, /Proof: UNPROVEN \(FLAKY TARGET\)\n\s+unproven \(flaky target\): .*2 of 3 runs/);
  });
});

describe('the repeats', () => {
  test("the runner's shuffle with the seed where flowfix knows it, plain repeats otherwise, the repository's own flags first", () => {
    assert.equal(shuffleArgsOf({ test: 'npx vitest run', proof: { runs: 3 } }), '--sequence.shuffle --sequence.seed={seed}');
    // jest refused --randomize before 29.2: only detection, which reads the version, asks for it (settings.proof.shuffleArgs)
    assert.equal(shuffleArgsOf({ test: 'npx jest --ci', proof: { runs: 3 } }), null);
    assert.equal(shuffleArgsOf({ test: 'npx jest --ci', proof: { runs: 3, shuffleArgs: '--randomize --seed={seed}' } }), '--randomize --seed={seed}');
    assert.equal(shuffleArgsOf({ test: 'node --test', proof: { runs: 3 } }), null);
    // flags appended to a chain would reach its last command only
    assert.equal(shuffleArgsOf({ test: 'npm run build && npx vitest run', proof: { runs: 3 } }), null);
    assert.equal(
      shuffleArgsOf({ test: 'pytest', proof: { runs: 3, shuffleArgs: '-p random_order --random-order-seed={seed}' } }),
      '-p random_order --random-order-seed={seed}',
    );
  });

  test('the first run is plain; each later one has its own deterministic seed, in the env and the shuffle', () => {
    const settings = { test: 'npx vitest run', proof: { runs: 3 } };
    assert.deepEqual(repeatOf(settings, 1, 3), { index: 1, of: 3 });
    const second = repeatOf(settings, 2, 3);
    assert.equal(second.seed, proofSeed(2));
    assert.equal(second.env?.FLOWFIX_TEST_SEED, String(proofSeed(2)));
    assert.equal(second.extraArgs, `--sequence.shuffle --sequence.seed=${proofSeed(2)}`);
    assert.notEqual(repeatOf(settings, 3, 3).seed, second.seed);
    assert.equal(repeatOf({ test: 'node --test', proof: { runs: 3 } }, 2, 3).extraArgs, undefined);
  });

  test('proof.runs: 3 by default, 1 to 10, anything else refused with the setting named', () => {
    assert.deepEqual(RepositorySettingsSchema.parse({}).proof, { runs: 3 });
    assert.equal(RepositorySettingsSchema.parse({ proof: { runs: 1 } }).proof.runs, 1);
    const bad = RepositorySettingsSchema.safeParse({ proof: { runs: 11 } });
    assert.equal(bad.success, false);
    assert.deepEqual(bad.error?.issues[0]?.path, ['proof', 'runs']);
  });

  test('labels and the base check of a test the change adds', () => {
    assert.equal(proofLabel({ status: 'unproven', reason: 'flaky_target' }), 'unproven (flaky target)');
    assert.equal(proofLabel({ status: 'proven' }), 'proven');
    assert.equal(proofLabel(null), null);
    assert.match(gateOutcome('base', false, { notRun: 1, tests: [{}] }), /not at the base revision/);
    assert.match(gateOutcome('base', false, {}), /the change broke them/);
  });
});
