// `npm run bench:agent`: the whole repair pipeline with the offline policy
// over the bug corpus (bench/agent/corpus). Prints the resolve rate, the
// scaffold's top-1/3/5 localisation (file and function), time per phase,
// regression runs the GREEN gate avoided, and orchestration overhead (a run's
// wall time minus time in build/test commands and model calls; target: at
// most 5% of the run or 1.5 s, whichever is larger).
//
//   npm run bench:agent -- [--filter SUBSTRING] [--max-candidates N] [--check] [--json PATH]
//                          [--no-coverage] [--localise-only]
//
// --no-coverage localises without per-test coverage (agent/coverage);
// --localise-only stops each run after localisation (no candidates, no base
// run): the localisation figures in a fraction of the time.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createOfflinePolicy } from '../../agent/policies/offline';
import { runRepair } from '../../agent/pipeline';
import { runTests } from '../../agent/testing/test-runner';
import { Workspace } from '../../agent/workspace/workspace';
import type { RepairResult } from '../../agent/pipeline';
import type { AgentEvent, Phase, Policy, Suspect } from '../../agent/types';
import { ModelSettingsSchema } from '../../common/settings';
import { checkBug } from './check-corpus';
import { measureSandboxCost } from './sandbox-cost';
import { BUGS, buildBugRepo, projectOf, settingsFor } from './corpus/index';
import type { CorpusBug } from './corpus/types';
import { pct, quantile } from '../stats';

const PHASES: Phase[] = ['setup', 'red', 'localise', 'patch', 'verify', 'summary'];
const OVERHEAD_SHARE = 0.05;
const OVERHEAD_FLOOR_MS = 1500;

export interface BugOutcome {
  id: string;
  language: string;
  kind: string;
  offlineFixable: boolean;
  status: RepairResult['status'];
  exitReason: string;
  exitDetail?: string;
  diff: string;
  suspects: Array<Pick<Suspect, 'file' | 'symbol' | 'score'>>;
  localisation: { fileTop1: boolean; fileTop3: boolean; fnTop1: boolean; fnTop3: boolean; fileTop5: boolean; fnTop5: boolean };
  /** where the real fault's function ranked among the suspects and the runners-up (1-based), null when it is not among them */
  faultRank: number | null;
  /** whether per-test coverage was collected for localisation */
  coverage: boolean;
  /** for a fix: whether it fails the bug's held-out tests (overfits), null when the bug has none */
  overfits: boolean | null;
  phaseMs: Partial<Record<Phase, number>>;
  wallMs: number;
  commandMs: number;
  modelMs: number;
  overheadMs: number;
  /** where the overhead went: compile-gate checks (minus build commands), localisation, the rest (git, reports, policy) */
  overheadParts: { compileChecksMs: number; localiseMs: number; otherMs: number };
  overheadOk: boolean;
  candidatesTried: number;
  greenRejections: number;
  regressionRuns: number;
}

export function symbolMatches(suspect: Suspect, truth: CorpusBug['truth']): boolean {
  return (
    suspect.file === truth.file &&
    (suspect.symbol === truth.symbol || suspect.symbol.endsWith(`.${truth.symbol}`) || suspect.symbol.endsWith(` > ${truth.symbol}`))
  );
}

function faultRank(suspects: Suspect[], truth: CorpusBug['truth']): number | null {
  const i = suspects.findIndex((s) => symbolMatches(s, truth));
  return i < 0 ? null : i + 1;
}

function localisation(suspects: Suspect[], truth: CorpusBug['truth']): BugOutcome['localisation'] {
  const top = (k: number) => suspects.slice(0, k);
  return {
    fileTop1: suspects[0]?.file === truth.file,
    fileTop3: top(3).some((s) => s.file === truth.file),
    fileTop5: top(5).some((s) => s.file === truth.file),
    fnTop1: !!suspects[0] && symbolMatches(suspects[0], truth),
    fnTop3: top(3).some((s) => symbolMatches(s, truth)),
    fnTop5: top(5).some((s) => symbolMatches(s, truth)),
  };
}

/** For --localise-only: hands nothing back, so the run ends right after localisation. */
const LOOK_ONLY: Policy = {
  name: 'offline',
  run: async () => ({
    status: 'gave_up',
    exitReason: 'no_candidate',
    detail: 'localisation only',
    usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, toolCalls: 0 },
  }),
};

export interface BugRunOptions {
  maxCandidates: number;
  workDir?: string;
  /** per-test coverage for localisation (default on, as in the settings) */
  coverage?: boolean;
  localiseOnly?: boolean;
}

/**
 * Does a fix fail the tests the repository does not have? The head with the
 * fix applied and the held-out test files added, the whole suite run as the
 * regression gate runs it.
 */
async function overfits(bug: CorpusBug, repoDir: string, head: string, diff: string, workDir?: string): Promise<boolean | null> {
  if (!bug.heldOut?.length || !diff) return null;
  const settings = settingsFor(projectOf(bug));
  const ws = await Workspace.create({ source: repoDir, headRev: head, ...(workDir ? { parentDir: workDir } : {}), excludes: [settings.junitReport] });
  try {
    await ws.applyPatch(diff, ['--whitespace=nowarn']);
    for (const f of bug.heldOut) await ws.writeFile(f.file, f.content);
    const run = await runTests({ workspace: ws, settings, kind: 'regression', targets: [] });
    return !!run.reportError || run.results.length === 0 || run.results.some((r) => r.status === 'failed' || r.status === 'error');
  } finally {
    await ws.dispose();
  }
}

export async function runBug(bug: CorpusBug, opts: BugRunOptions): Promise<BugOutcome> {
  const repo = await buildBugRepo({ bug, parentDir: opts.workDir });
  const events: AgentEvent[] = [];
  try {
    const modelSettings = ModelSettingsSchema.parse({ policy: 'offline', offline: { maxCandidates: opts.maxCandidates } });
    const result = await runRepair({
      repoPath: repo.dir,
      baseRev: repo.base,
      headRev: repo.head,
      targetTests: bug.failingTests,
      settings: { ...settingsFor(projectOf(bug)), coverage: opts.coverage ?? true },
      modelSettings,
      policy: opts.localiseOnly ? LOOK_ONLY : createOfflinePolicy({ maxCandidates: opts.maxCandidates }),
      ...(opts.localiseOnly ? { checkBase: false } : {}),
      sink: { emit: async (e) => void events.push(e) },
      change: { title: bug.title, description: bug.description, author: 'corpus' },
      workDir: opts.workDir,
    });
    const candidates = events.filter((e) => e.type === 'candidate');
    // the top-K the policy got, then the runners-up the scaffold reported (top-5)
    const runnersUp = (events.find((e) => e.type === 'suspects')?.payload.runnersUp as Suspect[] | undefined) ?? [];
    const ranked = [...result.suspects, ...runnersUp];
    const coverage = events.some((e) => e.type === 'log' && String(e.payload.text).startsWith('coverage: '));
    // Each candidate that compiled but failed its target tests is a full
    // regression run the test-driven gate did not have to pay for.
    const greenRejections = events.filter((e) => e.type === 'gate' && e.payload.gate === 'green' && e.payload.passed === false).length;
    const { wallMs, commandMs, modelMs, overheadMs, regressionRuns } = result.timings;
    // The corpus has no build command, so a compile verdict's time is all
    // flowfix's own: applying the edit and the syntax check.
    const compileChecksMs = events.filter((e) => e.type === 'gate' && e.payload.gate === 'compile').reduce((n, e) => n + Number(e.payload.durationMs ?? 0), 0);
    const localiseMs = result.phaseTimings.localise ?? 0;
    return {
      id: bug.id,
      language: projectOf(bug).language,
      kind: bug.kind,
      offlineFixable: bug.offlineFixable,
      status: result.status,
      exitReason: result.exitReason,
      ...(result.exitDetail ? { exitDetail: result.exitDetail } : {}),
      diff: result.diff,
      suspects: ranked.map((s) => ({ file: s.file, symbol: s.symbol, score: s.score })),
      localisation: localisation(ranked, bug.truth),
      faultRank: faultRank(ranked, bug.truth),
      coverage,
      overfits: result.status === 'fixed' ? await overfits(bug, repo.dir, repo.head, result.diff, opts.workDir) : null,
      phaseMs: result.phaseTimings,
      wallMs,
      commandMs,
      modelMs,
      overheadMs,
      overheadParts: { compileChecksMs, localiseMs, otherMs: Math.max(0, overheadMs - compileChecksMs - localiseMs) },
      overheadOk: overheadMs <= Math.max(OVERHEAD_SHARE * wallMs, OVERHEAD_FLOOR_MS),
      candidatesTried: candidates.length,
      greenRejections,
      regressionRuns,
    };
  } finally {
    await rm(repo.dir, { recursive: true, force: true });
  }
}

function fmtMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

export function report(outcomes: BugOutcome[]): string {
  const lines: string[] = [];
  const fixed = outcomes.filter((o) => o.status === 'fixed');
  const fixable = outcomes.filter((o) => o.offlineFixable);
  const unfixable = outcomes.filter((o) => !o.offlineFixable);
  const nonStale = outcomes.filter((o) => o.kind !== 'stale-expectation');
  lines.push(
    `flowfix agent bench: ${outcomes.length} bugs (${outcomes.filter((o) => o.language === 'typescript').length} TypeScript, ${outcomes.filter((o) => o.language === 'python').length} Python), offline policy`,
  );
  lines.push('');
  lines.push(`resolve rate (all bugs)                ${pct(fixed.length, outcomes.length)}`);
  lines.push(`resolve rate (template-expressible)    ${pct(fixable.filter((o) => o.status === 'fixed').length, fixable.length)}`);
  lines.push(
    `fixes on bugs beyond the templates     ${pct(unfixable.filter((o) => o.status === 'fixed').length, unfixable.length)} (should be 0: a fix here overfits)`,
  );
  const checked = fixed.filter((o) => o.overfits !== null);
  lines.push(
    `fixes that fail held-out tests         ${pct(checked.filter((o) => o.overfits).length, checked.length)} (overfitting, among the fixes of bugs that have held-out tests)`,
  );
  lines.push('');
  const withCoverage = outcomes.filter((o) => o.coverage).length;
  lines.push(`localisation (scaffold, top-K=3; top-5 with the runners-up), coverage collected in ${withCoverage}/${outcomes.length} runs`);
  lines.push(`${''.padEnd(40)} file${''.padEnd(20)}function`);
  const loc = (set: BugOutcome[], label: string) => {
    const n = set.length;
    for (const k of [1, 3, 5] as const) {
      const file = set.filter((o) => o.localisation[`fileTop${k}`]).length;
      const fn = set.filter((o) => o.localisation[`fnTop${k}`]).length;
      lines.push(`  top-${k} ${label.padEnd(32)} ${pct(file, n).padEnd(24)}${pct(fn, n)}`);
    }
  };
  loc(outcomes, 'all bugs');
  loc(nonStale, 'fault in the code (not stale test)');
  const ranks = [1, 2, 3, 4, 5].map((r) => `#${r} ${outcomes.filter((o) => o.faultRank === r).length}`).join(', ');
  lines.push(`  where the real fault's function ranked: ${ranks}, not among the suspects ${outcomes.filter((o) => o.faultRank === null).length}`);
  lines.push('');
  lines.push('time per phase (mean / p50 / max over runs)');
  for (const phase of PHASES) {
    const values = outcomes.map((o) => o.phaseMs[phase] ?? 0);
    const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    lines.push(`  ${phase.padEnd(9)} ${fmtMs(mean).padStart(9)} ${fmtMs(quantile(values, 0.5)).padStart(9)} ${fmtMs(Math.max(0, ...values)).padStart(9)}`);
  }
  const walls = outcomes.map((o) => o.wallMs);
  lines.push(
    `  ${'run'.padEnd(9)} ${fmtMs(walls.reduce((a, b) => a + b, 0) / Math.max(1, walls.length)).padStart(9)} ${fmtMs(quantile(walls, 0.5)).padStart(9)} ${fmtMs(Math.max(0, ...walls)).padStart(9)}`,
  );
  lines.push('');
  const rejections = outcomes.reduce((n, o) => n + o.greenRejections, 0);
  const regressionRuns = outcomes.reduce((n, o) => n + o.regressionRuns, 0);
  lines.push(`candidates validated                   ${outcomes.reduce((n, o) => n + o.candidatesTried, 0)}`);
  lines.push(`regression runs avoided by GREEN       ${rejections} (regression suites actually run: ${regressionRuns})`);
  lines.push('');
  const overheads = outcomes.map((o) => o.overheadMs);
  const shares = outcomes.map((o) => (o.wallMs ? o.overheadMs / o.wallMs : 0));
  lines.push(
    `orchestration overhead per run         mean ${fmtMs(overheads.reduce((a, b) => a + b, 0) / Math.max(1, overheads.length))}, p50 ${fmtMs(quantile(overheads, 0.5))}, p95 ${fmtMs(quantile(overheads, 0.95))}, max ${fmtMs(Math.max(0, ...overheads))}`,
  );
  lines.push(`  share of wall time                   p50 ${(100 * quantile(shares, 0.5)).toFixed(1)}%, p95 ${(100 * quantile(shares, 0.95)).toFixed(1)}%`);
  lines.push(`  within target (≤ max(5%, 1.5 s))     ${pct(outcomes.filter((o) => o.overheadOk).length, outcomes.length)}`);
  const part = (k: keyof BugOutcome['overheadParts']) => fmtMs(outcomes.reduce((n, o) => n + o.overheadParts[k], 0) / Math.max(1, outcomes.length));
  lines.push(
    `  mean split                           compile-gate checks ${part('compileChecksMs')}, localise ${part('localiseMs')}, other (git checkouts/resets, reports, policy) ${part('otherMs')}`,
  );
  const perCandidate =
    outcomes.reduce((n, o) => n + o.overheadMs, 0) /
    Math.max(
      1,
      outcomes.reduce((n, o) => n + o.candidatesTried + 1, 0),
    );
  lines.push(`  per validated candidate              ${fmtMs(perCandidate)}`);
  lines.push('');
  lines.push('per bug');
  for (const o of outcomes) {
    const l = o.localisation;
    const locText = `${o.faultRank ? `fn#${o.faultRank}` : l.fileTop3 ? 'file' : 'miss'}`;
    const expectation = o.offlineFixable ? '' : ' (beyond templates)';
    lines.push(
      `  ${o.status === 'fixed' ? (o.overfits ? 'OVERFIT' : 'FIXED  ') : 'no fix '} ${o.id.padEnd(40)} ${o.kind.padEnd(18)} loc ${locText.padEnd(5)} ${String(o.candidatesTried).padStart(3)} cand ${fmtMs(o.wallMs).padStart(8)} overhead ${fmtMs(o.overheadMs).padStart(7)}  ${o.status === 'fixed' ? '' : o.exitReason}${expectation}`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      filter: { type: 'string' },
      'max-candidates': { type: 'string', default: '30' },
      check: { type: 'boolean', default: false },
      json: { type: 'string' },
      'no-coverage': { type: 'boolean', default: false },
      'localise-only': { type: 'boolean', default: false },
    },
  });
  const bugs = BUGS.filter((b) => !values.filter || b.id.includes(values.filter));
  const maxCandidates = Number(values['max-candidates']);
  if (values.check) {
    let bad = 0;
    for (const bug of bugs) {
      const problems = await checkBug(bug);
      if (problems.length) {
        bad += 1;
        process.stderr.write(`corpus: ${bug.id}: ${problems.join('; ')}\n`);
      }
    }
    if (bad) {
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`corpus: ${bugs.length} bugs behave as described\n`);
  }
  const outcomes: BugOutcome[] = [];
  for (const bug of bugs) {
    const outcome = await runBug(bug, { maxCandidates, coverage: !values['no-coverage'], localiseOnly: values['localise-only'] });
    outcomes.push(outcome);
    process.stderr.write(`${outcome.status === 'fixed' ? 'fixed ' : 'no fix'} ${bug.id} (${fmtMs(outcome.wallMs)})\n`);
  }
  process.stdout.write(`${report(outcomes)}\n`);
  const cost = await measureSandboxCost();
  process.stdout.write(
    `\nsandbox cost per command               p50 ${cost.p50.toFixed(1)} ms, p95 ${cost.p95.toFixed(1)} ms (\`true\` behind the gate: sandboxed p50 ${cost.sandboxedP50.toFixed(1)} ms, plain ${cost.plainP50.toFixed(1)} ms)\n`,
  );
  const out = values.json ?? path.join('bench', 'out', `agent-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(
    out,
    JSON.stringify(
      { when: new Date().toISOString(), maxCandidates, coverage: !values['no-coverage'], localiseOnly: values['localise-only'], outcomes },
      null,
      2,
    ),
  );
  process.stdout.write(`\nraw results: ${out}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
