import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import type { RepositorySettings } from '@/common/settings';
import { createTsRepo, type TestRepo } from '../../helpers/agent-repos';

// A real git repository (test/helpers/agent-repos.ts: a TypeScript project
// whose head commit breaks one test) registered as a flowfix Repository with
// one failing change, ready for runs.

export const TARGET = 'test::cart > total multiplies price by quantity';

export interface RunWorld {
  repo: TestRepo;
  repositoryId: string;
  changeId: string;
  revisionId: string;
}

export async function seedWorld({
  db,
  name = `shop-${Math.random().toString(36).slice(2, 8)}`,
  settings,
  modelSettings = {},
}: {
  db: PrismaClient;
  name?: string;
  settings?: (repo: TestRepo) => Partial<RepositorySettings>;
  modelSettings?: Record<string, unknown>;
}): Promise<RunWorld> {
  const repo = createTsRepo();
  const repository = await db.repository.create({
    data: {
      name,
      gitUrl: repo.dir,
      language: 'typescript',
      // no build command (tsc): it adds seconds per gate and these tests are about runs, not builds
      settings: { ...repo.settings, build: undefined, ...(settings ? settings(repo) : {}) },
      modelSettings: modelSettings as Prisma.InputJsonValue,
    },
  });
  const change = await db.change.create({
    data: {
      repositoryId: repository.id,
      externalId: 'PR-7',
      title: 'rework total',
      description: 'one pass',
      author: 'dev',
      branch: 'feature/total',
      baseRev: repo.base,
      headRev: repo.head,
      failingTestCount: 1,
      filesChanged: 2,
    },
  });
  const revision = await db.changeRevision.create({
    data: { changeId: change.id, number: 1, baseRev: repo.base, headRev: repo.head, branch: 'feature/total' },
  });
  await db.failure.create({
    data: { changeId: change.id, revisionId: revision.id, testId: TARGET, testName: 'total multiplies price by quantity', message: '11 !== 17' },
  });
  return { repo, repositoryId: repository.id, changeId: change.id, revisionId: revision.id };
}

/** Polls until `fn` returns a value (not undefined/false) or the deadline passes. */
export async function waitFor<T>(fn: () => Promise<T | undefined | false | null>, { timeoutMs = 60_000, what = 'condition', everyMs = 100 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const TERMINAL = ['FIXED', 'NO_FIX', 'FAILED', 'CANCELLED'];

/** Every stored event of a run, with the checks every run must pass: seq 0..n-1, one final event, last. */
export async function checkedEvents(db: PrismaClient, runId: string) {
  const events = await db.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
  events.forEach((e, i) => {
    if (e.seq !== i) throw new Error(`run ${runId}: seq ${e.seq} at position ${i} (gap or duplicate)`);
  });
  const finals = events.filter((e) => e.type === 'final');
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  if (run.nextEventSeq !== events.length) throw new Error(`run ${runId}: nextEventSeq ${run.nextEventSeq} but ${events.length} events`);
  if (TERMINAL.includes(run.status)) {
    if (finals.length !== 1) throw new Error(`run ${runId}: ${finals.length} final events`);
    if (events.at(-1)?.type !== 'final') throw new Error(`run ${runId}: the final event is not last`);
  } else if (finals.length !== 0) {
    throw new Error(`run ${runId} is ${run.status} but has a final event`);
  }
  return events;
}

// ───── real worker processes ─────

export type WorkerProcess = import('node:child_process').ChildProcess & { readonly log: string };

/** `agent/worker/main.ts` (what `npm run worker` starts) against `databaseUrl`, stdout+stderr kept in `.log`; `env` adds variables. */
export async function spawnWorkerProcess({
  databaseUrl,
  args = [],
  env = {},
}: {
  databaseUrl: string;
  args?: string[];
  env?: Record<string, string>;
}): Promise<WorkerProcess> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', 'agent/worker/main.ts', ...args], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', DATABASE_URL: databaseUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  return Object.defineProperty(child, 'log', { get: () => log }) as WorkerProcess;
}

export function processExited(child: import('node:child_process').ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
