import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, setDbHandle, type DbHandle } from '../lib/db';
import { applyMigrations } from '../scripts/db/migrate';
import { createScratchDatabase } from '../lib/scratch-database';
import { stopRunQueue } from '../lib/queue';
import { RepositorySettingsSchema } from '../common/settings';
import { requestRun } from '../lib/runs/service';
import { summarise } from './stats';
import type { BenchFigure, BenchModule, BenchOptions, BenchResult } from './types';

// Queue throughput: N runs queued on a scratch PostgreSQL database, then
// drained by 1, 2 and 4 worker processes (`agent/worker/main.ts`, one run at
// a time each). Every run is a real repair with the offline policy on a tiny
// real git repository whose test command is one short node process, so the
// figure is about the queue, the claims and the pipeline's fixed costs rather
// than a project's test suite. Checks printed with the figures: every run
// claimed exactly once (from the workers' own claim logs), one attempt each,
// at most one fix, and gap-free event sequences.

const DEFAULT_RUNS = 200;
const WORKER_COUNTS = [1, 2, 4];
const TARGET = 'test/cart.test.js::total multiplies price by quantity';

const SRC = 'export function total(items) {\n  let sum = 0;\n  for (const item of items) {\n    sum += item.price * item.qty;\n  }\n  return sum;\n}\n';
const RUNNER = `import { writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { total } from '../src/cart.js';
// a tiny test runner: one process, a JUnit report
const tests = {
  'total multiplies price by quantity': () => assert.equal(total([{ price: 5, qty: 3 }, { price: 1, qty: 2 }]), 17),
  'empty cart': () => assert.equal(total([]), 0),
};
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
let xml = '';
let failed = 0;
for (const [name, fn] of Object.entries(tests)) {
  try { fn(); xml += '<testcase classname="test/cart.test.js" name="' + esc(name) + '"/>'; }
  catch (e) { failed++; xml += '<testcase classname="test/cart.test.js" name="' + esc(name) + '"><failure message="' + esc(e.message) + '">' + esc(e.stack) + '</failure></testcase>'; }
}
writeFileSync('junit.xml', '<?xml version="1.0"?><testsuites><testsuite name="cart" tests="2" failures="' + failed + '">' + xml + '</testsuite></testsuites>');
process.exit(failed ? 1 : 0);
`;

/** A JavaScript repository whose head commit turns `*` into `+` in total(). */
function buildTinyRepo(): { dir: string; base: string; head: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'flowfix-bench-runs-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' } as unknown as NodeJS.ProcessEnv,
    }).trim();
  const write = (rel: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  };
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'bench@example.com');
  git('config', 'user.name', 'Bench');
  write('package.json', '{ "name": "cart", "private": true, "type": "module" }\n');
  write('.gitignore', 'junit.xml\n');
  write('src/cart.js', SRC);
  write('test/run.js', RUNNER);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const base = git('rev-parse', 'HEAD');
  write('src/cart.js', SRC.replace('item.price * item.qty', 'item.price + item.qty'));
  write('README.md', 'Totals in one pass.\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'change');
  return { dir, base, head: git('rev-parse', 'HEAD') };
}

/** Changes with one failing revision each; returns their ids (runs are requested once the workers are up). */
async function seedChanges({ handle, repo, runs }: { handle: DbHandle; repo: ReturnType<typeof buildTinyRepo>; runs: number }): Promise<string[]> {
  const db = handle.db;
  const settings = RepositorySettingsSchema.parse({ language: 'javascript', test: 'node test/run.js', junitReport: 'junit.xml' });
  const repository = await db.repository.create({ data: { name: 'cart', gitUrl: repo.dir, language: 'javascript', settings } });
  const ids: string[] = [];
  for (let i = 0; i < runs; i++) {
    const change = await db.change.create({
      data: {
        repositoryId: repository.id,
        externalId: `PR-${i}`,
        title: `change ${i}`,
        author: 'dev',
        branch: `b${i}`,
        baseRev: repo.base,
        headRev: repo.head,
        failingTestCount: 1,
      },
    });
    const revision = await db.changeRevision.create({ data: { changeId: change.id, number: 1, baseRev: repo.base, headRev: repo.head, branch: `b${i}` } });
    await db.failure.create({ data: { changeId: change.id, revisionId: revision.id, testId: TARGET, testName: 'total multiplies price by quantity' } });
    ids.push(change.id);
  }
  return ids;
}

function spawnWorker(url: string): { child: ChildProcess; lines: () => Array<Record<string, unknown>> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'agent/worker/main.ts', '--concurrency', '1', '--poll-ms', '100', '--grace-ms', '5000'], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  return {
    child,
    lines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

interface Drain {
  workers: number;
  runs: number;
  runsPerMinute: number;
  wallMs: number;
  runMs: number[];
  statuses: Record<string, number>;
  duplicateClaims: number;
  unclaimed: number;
  extraAttempts: number;
  badSequences: number;
  runsWithTwoFixes: number;
}

async function drainWith({
  workers,
  runs,
  opts,
  repo,
}: {
  workers: number;
  runs: number;
  opts: BenchOptions;
  repo: ReturnType<typeof buildTinyRepo>;
}): Promise<Drain> {
  const scratch = await createScratchDatabase({ serverUrl: opts.serverUrl, prefix: 'flowfix_bench_runs' });
  const { name, url: dbUrl } = scratch;
  const drop = async () => {
    if (!opts.keep) await scratch.drop();
  };
  const unregister = opts.onInterrupt(drop);
  const handle = openDb({ kind: 'postgres', location: dbUrl });
  const procs: Array<ReturnType<typeof spawnWorker>> = [];
  try {
    await applyMigrations({ handle });
    setDbHandle(handle);
    opts.log(`runs-throughput: ${workers} worker(s): queueing ${runs} runs in ${name}`);
    const changeIds = await seedChanges({ handle, repo, runs });
    for (let i = 0; i < workers; i++) procs.push(spawnWorker(dbUrl));
    // every worker up (tsx compiled, queue connected) before the first run is queued
    const upBy = Date.now() + 120_000;
    while (!procs.every((p) => p.lines().some((l) => l.event === 'worker_started'))) {
      if (Date.now() > upBy) throw new Error('the workers did not start within 2 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const ids: string[] = [];
    for (const changeId of changeIds) ids.push((await requestRun({ changeId, trigger: 'AUTO', policy: 'offline' })).runId);
    const deadline = Date.now() + 60 * 60_000;
    for (;;) {
      const left = await handle.db.run.count({ where: { status: { in: ['QUEUED', 'RUNNING'] } } });
      if (left === 0) break;
      if (Date.now() > deadline) throw new Error(`${left} runs still unfinished after an hour`);
      if (procs.every((p) => p.child.exitCode !== null))
        throw new Error(`every worker exited:\n${procs.map((p) => JSON.stringify(p.lines().slice(-5))).join('\n')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    await Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((resolve) => {
            p.child.once('exit', () => resolve());
            p.child.kill('SIGTERM');
          }),
      ),
    );

    const claims = new Map<string, number>();
    for (const p of procs) for (const l of p.lines()) if (l.event === 'claim') claims.set(String(l.runId), (claims.get(String(l.runId)) ?? 0) + 1);
    const rows = await handle.db.run.findMany({ select: { id: true, status: true, attempt: true, startedAt: true, finishedAt: true } });
    const statuses: Record<string, number> = {};
    for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const started = Math.min(...rows.map((r) => r.startedAt!.getTime()));
    const finished = Math.max(...rows.map((r) => r.finishedAt!.getTime()));
    const bad = await handle.db.$queryRaw<Array<{ n: bigint }>>`
      SELECT count(*) AS n FROM "Run" r
      WHERE r."nextEventSeq" <> (SELECT count(*) FROM "RunEvent" e WHERE e."runId" = r.id)
         OR r."nextEventSeq" - 1 <> COALESCE((SELECT max(seq) FROM "RunEvent" e WHERE e."runId" = r.id), -1)`;
    const twoFixes = await handle.db.$queryRaw<Array<{ n: bigint }>>`
      SELECT count(*) AS n FROM (SELECT "runId" FROM "Fix" GROUP BY "runId" HAVING count(*) > 1) x`;
    const wallMs = finished - started;
    return {
      workers,
      runs: ids.length,
      wallMs,
      runsPerMinute: (ids.length / wallMs) * 60_000,
      runMs: rows.map((r) => r.finishedAt!.getTime() - r.startedAt!.getTime()),
      statuses,
      duplicateClaims: [...claims.values()].filter((n) => n > 1).length,
      unclaimed: ids.filter((id) => !claims.has(id)).length,
      extraAttempts: rows.filter((r) => r.attempt !== 1).length,
      badSequences: Number(bad[0].n),
      runsWithTwoFixes: Number(twoFixes[0].n),
    };
  } finally {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await stopRunQueue();
    setDbHandle(undefined);
    await handle.close();
    await drop();
    unregister();
  }
}

export const runsThroughputBench: BenchModule = {
  name: 'runs',
  description: `queue throughput: ${DEFAULT_RUNS} queued offline repairs of a tiny repository drained by 1, 2, 4 worker processes (--scale = number of runs)`,
  async run(opts: BenchOptions): Promise<BenchResult> {
    const runs = opts.scale ?? DEFAULT_RUNS;
    const repo = buildTinyRepo();
    const drains: Drain[] = [];
    try {
      for (const workers of WORKER_COUNTS) {
        const d = await drainWith({ workers, runs, opts, repo });
        opts.log(`runs-throughput: ${workers} worker(s): ${d.runsPerMinute.toFixed(1)} runs/min, duplicate claims ${d.duplicateClaims}`);
        drains.push(d);
      }
    } finally {
      rmSync(repo.dir, { recursive: true, force: true });
    }
    const figures: BenchFigure[] = drains.map((d) => ({ name: `${d.workers} worker(s): one run, claim to finish`, ...summarise(d.runMs) }));
    const base = drains[0].runsPerMinute;
    const notes = drains.map((d) => {
      const ok = d.duplicateClaims === 0 && d.unclaimed === 0 && d.extraAttempts === 0 && d.badSequences === 0 && d.runsWithTwoFixes === 0;
      return (
        `${d.workers} worker(s): **${d.runsPerMinute.toFixed(1)} runs/min** (${(d.runsPerMinute / base).toFixed(2)}×), ${d.runs} runs in ${(d.wallMs / 1000).toFixed(1)} s, ` +
        `outcomes ${JSON.stringify(d.statuses)}; check ${ok ? 'passed' : 'FAILED'}: duplicate claims ${d.duplicateClaims}, never claimed ${d.unclaimed}, ` +
        `runs with attempt ≠ 1 ${d.extraAttempts}, event sequences with gaps/duplicates ${d.badSequences}, runs with two fixes ${d.runsWithTwoFixes}`
      );
    });
    notes.push(`${os.cpus().length} cores shared by the workers, their test commands and PostgreSQL: beyond the core count, workers mostly wait for CPU.`);
    const failedCheck = drains.some((d) => d.duplicateClaims + d.unclaimed + d.extraAttempts + d.badSequences + d.runsWithTwoFixes > 0);
    if (failedCheck) throw new Error(`runs-throughput: integrity check failed:\n${notes.join('\n')}`);
    return {
      bench: 'Run queue throughput (PostgreSQL, pg-boss, worker processes)',
      setup: `${runs} queued runs per configuration, offline policy, a tiny JavaScript repository (one-process test command); workers started before the runs are queued; wall time from the first claim to the last finish`,
      figures,
      notes,
    };
  },
};
