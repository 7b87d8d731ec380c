// `npm run bench:oracle`: the perfect-model ceiling. Each case is a real
// git repository whose right fix is known; the oracle double
// (oracle-model.ts) proposes exactly that fix through the product's tools,
// and the whole pipeline judges it (oracle.ts). Every right fix that does not
// reach a reviewer is a loss of the product's, printed with the phase and the
// reason. Two corpora:
//   mutants  seeded mutants of flowfix's own modules (bench/mutants: frame.ts,
//            mutate.ts, its screening); the right fix is the original code
//   agent    the bugs of bench/agent/corpus; the right fix is the change's
//            own edits in the faulty lines undone (what it added is kept),
//            or, where that is not the fix (a stale expectation, missing
//            logic), the fix written down in corpus-fixes.ts
//
//   npm run bench:oracle -- [--sample N] [--seed N] [--jobs N] [--filter SUBSTRING] [--corpus mutants|agent|all] [--json PATH]
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseUnifiedDiff } from '../../agent/edits/diff';
import { isTestPath } from '../../agent/testing/test-files';
import { workspaceGit } from '../../agent/workspace/git';
import { FilterPolicySchema } from '../../common/settings';
import { BUGS, buildBugRepo, headFiles, projectOf, settingsFor as corpusSettings } from '../agent/corpus/index';
import type { CorpusBug } from '../agent/corpus/types';
import { buildMutantRepo, modulesUnderTest, ROOT, writeFrame, type ModuleUnderTest } from '../mutants/frame';
import { applyMutant, ownMutants, seededRandom, shuffled, strykerMutants, type Mutant } from '../mutants/mutate';
import { failingFiles, hashOf, MAX_SUITE_MS, runSuite, settingsFor as mutantSettings, truthOf, type Cache, type ScreenResult } from '../mutants/run';
import { pct, quantile } from '../stats';
import { CORPUS_FIXES } from './corpus-fixes';
import { runOracleCase, fixDiffFromFiles, type OracleOutcome } from './oracle';

const OUT = path.join(ROOT, 'bench', 'out');
/** mutants of one module screened before the module is passed over: one killed mutant per module is kept */
const MAX_TRIES_PER_MODULE = 6;

export interface OracleCaseOutcome extends OracleOutcome {
  corpus: 'mutants' | 'agent';
  /** the mutant's operator, or the bug's kind */
  kind: string;
}

// ───── the mutants ─────

interface MutantCase {
  mod: ModuleUnderTest;
  mutant: Mutant;
  screen: ScreenResult;
  /** the module's place in the seeded order */
  at: number;
}

/**
 * Killed mutants, one per module, modules in the seed's order: each module's
 * suite is screened green on the original (bench/mutants' rule and cache
 * format), then its mutants in a seeded order until one fails a test. Only the
 * modules visited are screened, so a small sample costs minutes, not the
 * whole bench's base screening; the cache is the oracle's own (bench:mutants
 * may be writing its own at the same time), started from bench:mutants' when
 * there is one.
 */
async function sampleMutants(input: { seed: number; sample: number; jobs: number; workDir: string; filter?: string }): Promise<MutantCase[]> {
  const cachePath = path.join(OUT, `oracle-mutants-screen-seed${input.seed}.json`);
  const theirs = path.join(OUT, `mutants-screen-seed${input.seed}.json`);
  const from = existsSync(cachePath) ? cachePath : existsSync(theirs) ? theirs : null;
  const cache: Cache = from ? (JSON.parse(await readFile(from, 'utf8')) as Cache) : { version: 1, base: {}, screened: {} };
  const saveCache = () => writeFile(cachePath, JSON.stringify(cache));
  const modules = shuffled(
    modulesUnderTest().filter((m) => !input.filter || m.file.includes(input.filter)),
    seededRandom(input.seed),
  );
  const kept: MutantCase[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: input.jobs }, async (_, worker) => {
      while (kept.length < input.sample && next < modules.length) {
        const at = next++;
        const mod = modules[at];
        const dir = path.join(input.workDir, 'frames', String(worker), mod.file.replace(/\W+/g, '-'));
        await mkdir(dir, { recursive: true });
        await writeFrame(dir, mod);
        const hash = hashOf(mod.files.map((f) => readFileSync(path.join(ROOT, f), 'utf8')).join('\0'));
        let base = cache.base[mod.file];
        if (!base || base.hash !== hash) {
          base = { ...(await runSuite(dir, mod.tests)), hash };
          cache.base[mod.file] = base;
          await saveCache();
        }
        if (base.killed || base.note || base.tests === 0 || base.ms > MAX_SUITE_MS) continue;
        const text = readFileSync(path.join(ROOT, mod.file), 'utf8');
        const all = [...(await strykerMutants([{ file: mod.file, text }])), ...ownMutants(mod.file, text)].filter(
          (m) => truthOf(mod.file, text, m.line) !== null,
        );
        all.sort((a, b) => a.id.localeCompare(b.id));
        // a stream per module: the order does not depend on which worker got there first
        const mutants = shuffled(all, seededRandom((input.seed ^ Number.parseInt(hash, 16)) >>> 0)).slice(0, MAX_TRIES_PER_MODULE);
        for (const mutant of mutants) {
          const key = `${mod.file}#${mutant.id}#${hash}`;
          let res = cache.screened[key];
          if (!res) {
            await writeFile(path.join(dir, mod.file), applyMutant(text, mutant));
            try {
              const suite = await runSuite(dir, mod.tests);
              res = {
                killed: suite.killed,
                failing: suite.failing,
                failingFiles: suite.killed ? await failingFiles(dir, mod.tests) : [],
                ms: suite.ms,
                ...(suite.note ? { note: suite.note } : {}),
              };
            } finally {
              await writeFile(path.join(dir, mod.file), text);
            }
            cache.screened[key] = res;
            await saveCache();
          }
          if (res.killed && res.failingFiles.length > 0) {
            kept.push({ mod, mutant, screen: res, at });
            process.stderr.write(`screened: ${kept.length}/${input.sample} ${mod.file} ${mutant.operator} l${mutant.line}\n`);
            break;
          }
        }
      }
    }),
  );
  // the first `sample` modules in the seeded order, whatever order the workers finished in
  return kept.sort((a, b) => a.at - b.at).slice(0, input.sample);
}

async function runMutantCase(c: MutantCase, workDir: string): Promise<OracleCaseOutcome> {
  const { mod, mutant, screen } = c;
  const original = readFileSync(path.join(ROOT, mod.file), 'utf8');
  const title = `Update ${path.basename(mod.file)}`;
  const repo = await buildMutantRepo({ parentDir: workDir, mod, mutated: applyMutant(original, mutant), title });
  try {
    // the right fix is the original: the head back to the base in the module
    const fixDiff = (await workspaceGit(repo.dir, ['diff', '--no-color', '--no-ext-diff', repo.head, repo.base, '--', mod.file])).stdout;
    const outcome = await runOracleCase({
      id: `${mod.file}#${mutant.id}`,
      repoPath: repo.dir,
      baseRev: repo.base,
      headRev: repo.head,
      // as bench:mutants: a test file that fails while loading is named by its screening folder's path, so the run takes the head's failing tests
      ...(screen.failing.some((id) => id.includes(tmpdir())) ? {} : { targetTests: screen.failing }),
      fixDiff,
      truth: { file: mod.file, symbol: truthOf(mod.file, original, mutant.line) as string },
      settings: mutantSettings(mod, screen.failingFiles),
      // every right fix of a one-edit mutant undoes the change's only edit: the revert filter would drop exactly it (bench:mutants does the same)
      filterPolicy: FilterPolicySchema.parse({ pre: {}, post: { revertsChange: false } }),
      checkBase: true,
      change: { title, description: '', author: 'bench' },
      workDir,
    });
    return { ...outcome, corpus: 'mutants', kind: mutant.operator };
  } finally {
    await rm(repo.dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

// ───── the agent corpus ─────

/** How alike two lines are: their common tokens (longest common subsequence) over the longer one's. */
function likeness(a: string, b: string): number {
  const ta = a.match(/\w+|[^\s\w]/g) ?? [];
  const tb = b.match(/\w+|[^\s\w]/g) ?? [];
  if (ta.length === 0 || tb.length === 0) return 0;
  let prev = new Array<number>(tb.length + 1).fill(0);
  for (const x of ta) {
    const row = [0];
    for (let j = 0; j < tb.length; j++) row.push(x === tb[j] ? prev[j] + 1 : Math.max(prev[j + 1], row[j]));
    prev = row;
  }
  return prev[tb.length] / Math.max(ta.length, tb.length);
}

/** A line the change rewrote is one it removed and added again alike; a line it added with no removed line like it is new. */
const REWRITE_LIKENESS = 0.5;

/**
 * The right text of each non-test file the change touched: the head, with
 * each line the change rewrote put back as it was and each line it removed
 * put back, while what it only added stays (a new helper, a guard, a new
 * parameter's use: the change's purpose), unless corpus-fixes.ts writes the
 * fix down.
 */
async function rightFiles(bug: CorpusBug, repoDir: string, base: string, head: string): Promise<Record<string, string>> {
  const heads = headFiles(bug);
  const written = CORPUS_FIXES[bug.id];
  if (written) {
    const out: Record<string, string> = {};
    for (const [file, find, replace] of written) {
      const text = out[file] ?? heads[file];
      if (text === undefined || text.split(find).length !== 2)
        throw new Error(`${bug.id}: the written fix's ${JSON.stringify(find.slice(0, 60))} does not occur once in ${file}`);
      out[file] = text.replace(find, () => replace);
    }
    return out;
  }
  const out: Record<string, string> = {};
  for (const change of bug.change) {
    if (isTestPath(change.file) || out[change.file] !== undefined) continue;
    const zero = (await workspaceGit(repoDir, ['diff', '--no-color', '--no-ext-diff', '-U0', base, head, '--', change.file])).stdout;
    const lines = heads[change.file].split('\n');
    const hunks = parseUnifiedDiff(zero)
      .flatMap((f) => f.hunks)
      .filter((h) => h.lines.some((l) => l.type === '-'));
    // from the bottom up, so the line numbers above stay right; a hunk with no new lines sits after line newStart
    for (const h of [...hunks].sort((a, b) => b.newStart - a.newStart)) {
      const removed = h.lines.filter((l) => l.type === '-').map((l) => l.text);
      const added = h.lines.filter((l) => l.type === '+').map((l) => l.text);
      const back = new Map<number, string>();
      const unpaired: string[] = [];
      for (const r of removed) {
        let best = -1;
        for (const [i, a] of added.entries())
          if (!back.has(i) && likeness(r, a) >= REWRITE_LIKENESS && (best < 0 || likeness(r, a) > likeness(r, added[best]))) best = i;
        if (best < 0) unpaired.push(r);
        else back.set(best, r);
      }
      const block = [...unpaired, ...added.map((a, i) => back.get(i) ?? a)];
      lines.splice(h.newLines === 0 ? h.newStart : h.newStart - 1, h.newLines, ...block);
    }
    const text = lines.join('\n');
    if (text !== heads[change.file]) out[change.file] = text;
  }
  return out;
}

async function runBugCase(bug: CorpusBug, workDir: string): Promise<OracleCaseOutcome> {
  const repo = await buildBugRepo({ bug, parentDir: workDir });
  try {
    const fixed = await rightFiles(bug, repo.dir, repo.base, repo.head);
    if (Object.keys(fixed).length === 0) throw new Error(`${bug.id}: no right fix: the change only adds, and corpus-fixes.ts has none`);
    const fixDiff = await fixDiffFromFiles(repo.dir, repo.head, fixed);
    const outcome = await runOracleCase({
      id: bug.id,
      repoPath: repo.dir,
      baseRev: repo.base,
      headRev: repo.head,
      targetTests: bug.failingTests,
      fixDiff,
      truth: bug.truth,
      // one proof run, as bench:mutants: the corpus is deterministic, and the repeats are for flaky targets
      settings: { ...corpusSettings(projectOf(bug)), proof: { runs: 1 } },
      change: { title: bug.title, description: bug.description, author: 'corpus' },
      workDir,
    });
    return { ...outcome, corpus: 'agent', kind: bug.kind };
  } finally {
    await rm(repo.dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

// ───── the report ─────

export function report(outcomes: OracleCaseOutcome[], meta: { seed: number; jobs: number; totalMs: number }): string {
  const lines: string[] = [];
  const reached = outcomes.filter((o) => o.reached);
  const by = (corpus: string) => outcomes.filter((o) => o.corpus === corpus);
  lines.push(
    `flowfix oracle bench (perfect-model ceiling): ${outcomes.length} cases (${by('mutants').length} mutants, seed ${meta.seed}; ${by('agent').length} bench/agent bugs), ${meta.jobs} at a time`,
  );
  lines.push('');
  lines.push(`reached a reviewer                     ${pct(reached.length, outcomes.length)}   target ≥ 97%`);
  for (const corpus of ['mutants', 'agent']) {
    const set = by(corpus);
    if (set.length) lines.push(`  ${corpus.padEnd(36)} ${pct(set.filter((o) => o.reached).length, set.length)}`);
  }
  lines.push(`  of which the diff is the oracle's    ${reached.filter((o) => o.sameDiff).length}/${reached.length}`);
  const withTruth = outcomes.filter((o) => o.truth);
  lines.push(`right function in the top-3 suspects   ${pct(withTruth.filter((o) => o.top3).length, withTruth.length)}`);
  for (const corpus of ['mutants', 'agent']) {
    const set = by(corpus).filter((o) => o.truth);
    if (set.length)
      lines.push(
        `  ${corpus.padEnd(36)} ${pct(set.filter((o) => o.top3).length, set.length)}; ranks #1 ${set.filter((o) => o.rank === 1).length}, #2 ${set.filter((o) => o.rank === 2).length}, #3 ${set.filter((o) => o.rank === 3).length}, lower ${set.filter((o) => (o.rank ?? 0) > 3).length}, absent ${set.filter((o) => o.rank === null).length}`,
      );
  }
  const walls = outcomes.map((o) => o.wallMs);
  lines.push(
    `time per run                           median ${(quantile(walls, 0.5) / 1000).toFixed(1)} s, p90 ${(quantile(walls, 0.9) / 1000).toFixed(1)} s, max ${(Math.max(0, ...walls) / 1000).toFixed(1)} s`,
  );
  const phases = ['setup', 'red', 'localise', 'patch', 'verify', 'summary'] as const;
  const timed = outcomes.filter((o) => o.phaseMs && Object.keys(o.phaseMs).length);
  if (timed.length)
    lines.push(
      `  by phase, mean s per run             ${phases.map((p) => `${p} ${(timed.reduce((n, o) => n + (o.phaseMs[p] ?? 0), 0) / timed.length / 1000).toFixed(1)}`).join(', ')}; in commands ${(timed.reduce((n, o) => n + o.commandMs, 0) / timed.length / 1000).toFixed(1)}`,
    );
  if (Number.isFinite(meta.totalMs)) lines.push(`whole bench                            ${(meta.totalMs / 60_000).toFixed(1)} min (mutant screening included)`);
  const lost = outcomes.filter((o) => !o.reached);
  lines.push('');
  lines.push(lost.length ? `losses (${lost.length}), each with the phase the run ended in and why:` : 'losses: none');
  for (const o of lost) lines.push(`  ${o.id}  [${o.phase ?? '-'}]  ${(o.reason ?? '').replace(/\s+/g, ' ').slice(0, 400)}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sample: { type: 'string', default: '40' },
      seed: { type: 'string', default: '1' },
      jobs: { type: 'string', default: '2' },
      filter: { type: 'string' },
      corpus: { type: 'string', default: 'all' },
      json: { type: 'string' },
      report: { type: 'string' },
    },
  });
  if (values.report) {
    const saved = JSON.parse(await readFile(values.report, 'utf8')) as { seed: number; jobs: number; totalMs?: number; outcomes: OracleCaseOutcome[] };
    process.stdout.write(`${report(saved.outcomes, { seed: saved.seed, jobs: saved.jobs, totalMs: saved.totalMs ?? NaN })}\n`);
    return;
  }
  const seed = Number(values.seed);
  const sample = Number(values.sample);
  const jobs = Number(values.jobs);
  for (const [name, n] of Object.entries({ seed, sample, jobs })) {
    if (!Number.isInteger(n) || n < (name === 'jobs' ? 1 : 0))
      throw new Error(`--${name} must be a whole number${name === 'jobs' ? ' ≥ 1' : ''}, got ${JSON.stringify(values[name as keyof typeof values])}`);
  }
  if (!['mutants', 'agent', 'all'].includes(values.corpus as string))
    throw new Error(`--corpus must be mutants, agent or all, got ${JSON.stringify(values.corpus)}`);
  const started = performance.now();
  await mkdir(OUT, { recursive: true });
  const workDir = await mkdtemp(path.join(tmpdir(), 'flowfix-oracle-'));
  try {
    type Job = { id: string; run: () => Promise<OracleCaseOutcome> };
    const todo: Job[] = [];
    if (values.corpus !== 'agent' && sample > 0) {
      for (const c of await sampleMutants({ seed, sample, jobs, workDir, filter: values.filter }))
        todo.push({ id: `${c.mod.file}#${c.mutant.id}`, run: () => runMutantCase(c, workDir) });
    }
    if (values.corpus !== 'mutants') {
      for (const bug of BUGS.filter((b) => !values.filter || b.id.includes(values.filter))) todo.push({ id: bug.id, run: () => runBugCase(bug, workDir) });
    }
    const outcomes: OracleCaseOutcome[] = [];
    const partialPath = path.join(OUT, `oracle-seed${seed}-${values.corpus}-partial.json`);
    let next = 0;
    await Promise.all(
      Array.from({ length: jobs }, async () => {
        while (next < todo.length) {
          const job = todo[next++];
          const o = await job.run().catch((err: unknown): OracleCaseOutcome => ({
            // the bench's own failure on one case is recorded as a loss, not the end of the run
            id: job.id,
            corpus: job.id.includes('#') ? 'mutants' : 'agent',
            kind: 'bench_error',
            reached: false,
            status: 'bench_error',
            exitReason: 'bench_error',
            phase: null,
            reason: `bench error: ${err instanceof Error ? err.message : String(err)}`,
            sameDiff: false,
            truth: null,
            rank: null,
            top3: false,
            suspects: [],
            modelCalls: 0,
            wallMs: 0,
            phaseMs: {},
            commandMs: 0,
            diff: '',
          }));
          outcomes.push(o);
          await writeFile(partialPath, JSON.stringify({ when: new Date().toISOString(), seed, jobs, partial: true, outcomes }, null, 2));
          process.stderr.write(
            `[${outcomes.length}/${todo.length}] ${o.reached ? 'reached' : 'LOST   '} ${o.id} top3 ${o.top3 ? 'yes' : 'no '} ${(o.wallMs / 1000).toFixed(1)} s${o.reached ? '' : `  [${o.phase}] ${(o.reason ?? '').slice(0, 200)}`}\n`,
          );
        }
      }),
    );
    const order = new Map(todo.map((j, i) => [j.id, i]));
    outcomes.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    const totalMs = performance.now() - started;
    process.stdout.write(`${report(outcomes, { seed, jobs, totalMs })}\n`);
    const out = values.json ?? path.join(OUT, `oracle-seed${seed}-${values.corpus}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await writeFile(out, JSON.stringify({ when: new Date().toISOString(), seed, sample, jobs, totalMs, outcomes }, null, 2));
    process.stdout.write(`\nraw results: ${out}\n`);
  } finally {
    await rm(workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/** `--show-fixes`: each bug's right fix as the oracle will propose it, without running anything else. */
async function showFixes(filter: string | undefined): Promise<void> {
  for (const bug of BUGS.filter((b) => !filter || b.id.includes(filter))) {
    const repo = await buildBugRepo({ bug });
    try {
      const fixed = await rightFiles(bug, repo.dir, repo.base, repo.head);
      const diff = Object.keys(fixed).length ? await fixDiffFromFiles(repo.dir, repo.head, fixed) : '(none)\n';
      process.stdout.write(`===== ${bug.id} (${bug.kind})${CORPUS_FIXES[bug.id] ? ' written' : ''}\n${diff}`);
    } finally {
      await rm(repo.dir, { recursive: true, force: true });
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--show-fixes')) await showFixes(process.argv[process.argv.indexOf('--show-fixes') + 1]);
  else await main();
}
