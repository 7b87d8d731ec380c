import os from 'node:os';
import pg from 'pg';
import { openDb, setDbHandle, type DbHandle } from '../lib/db';
import { applyMigrations } from '../scripts/db/migrate';
import { createScratchDatabase } from '../lib/scratch-database';
import type { SessionUser } from '../lib/auth/session';
import { createQueue } from '../lib/grading/queues';
import { getItemView } from '../lib/grading/item-view';
import { nextItem } from '../lib/grading/next-item';
import { queueAgreement } from '../lib/grading/queue-stats';
import { CreateQueueSchema } from '../lib/grading/schemas';
import { dropSecondaryStructures, restoreSecondaryStructures } from './triage';
import { timeAsync } from './stats';
import type { BenchFigure, BenchModule, BenchOptions, BenchResult } from './types';

// Grading at scale on PostgreSQL: a million fixes (changes, revisions, runs),
// 300,000 grades from 50 graders on the newest 100,000 of them (four in five
// settled), then, through lib/grading itself: "next item" and the grading
// page's data on a 10,000-item queue, building a sampled 1,000-item queue
// from every fix, and the agreement statistics of a 10,000-item queue.

const GRADERS = 50;
const GRADED_FIXES = 100_000;
const QUEUE_ITEMS = 10_000;
const TABLES = ['Change', 'ChangeRevision', 'Run', 'Fix', 'Grade', 'Consensus'];

async function seed(client: pg.Client, fixes: number): Promise<void> {
  await client.query(`
    INSERT INTO "User" (id, email, name, roles)
    SELECT 'g' || i, 'grader' || i || '@bench.test', 'Grader ' || lpad(i::text, 2, '0'), ARRAY['GRADER']::"Role"[]
    FROM generate_series(0, ${GRADERS - 1}) i;
    INSERT INTO "User" (id, email, name, roles) VALUES ('manager', 'manager@bench.test', 'Manager', ARRAY['MANAGER']::"Role"[]);
    INSERT INTO "Repository" (id, name, "gitUrl", "updatedAt")
    SELECT 'r' || i, 'repo-' || i, '/nonexistent/repo-' || i, now() FROM generate_series(0, 19) i;`);
  await client.query(`
    INSERT INTO "Change" (id, "repositoryId", "externalId", title, description, author, branch, "baseRev", "headRev", status, "updatedAt", "createdAt", "lastFailureAt")
    SELECT 'c' || i, 'r' || (i % 20), 'PR-' || i, 'Fix the thing ' || i, 'Make it work', 'dev' || (i % 500), 'b' || i,
      repeat('a', 40), repeat('b', 40), 'FIX_READY', now(), now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval
    FROM generate_series(1, ${fixes}) i`);
  await client.query(`
    INSERT INTO "ChangeRevision" (id, "changeId", number, "baseRev", "headRev", branch)
    SELECT 'v' || i, 'c' || i, 1, repeat('a', 40), repeat('b', 40), 'b' || i FROM generate_series(1, ${fixes}) i`);
  await client.query(`
    INSERT INTO "Run" (id, "changeId", "revisionId", policy, model, status)
    SELECT 'u' || i, 'c' || i, 'v' || i, (ARRAY['offline', 'llm', 'tiered'])[1 + i % 3], CASE WHEN i % 3 = 0 THEN NULL ELSE 'model-' || (i % 4) END, 'FIXED'
    FROM generate_series(1, ${fixes}) i`);
  await client.query(`
    INSERT INTO "Fix" (id, "runId", "changeId", "revisionId", diff, files, status, "createdAt", "updatedAt")
    SELECT 'f' || i, 'u' || i, 'c' || i, 'v' || i,
      E'diff --git a/x.ts b/x.ts\\n--- a/x.ts\\n+++ b/x.ts\\n@@ -1 +1 @@\\n-a\\n+b\\n', ARRAY['x.ts'],
      (ARRAY['READY', 'APPLIED', 'REJECTED', 'DROPPED', 'STALE'])[1 + i % 5]::"FixStatus", now() - (i || ' seconds')::interval, now()
    FROM generate_series(1, ${fixes}) i`);
  // three graders per graded fix; one in four disagrees once
  await client.query(`
    INSERT INTO "Grade" (id, "fixId", "graderId", label, rationale, "updatedAt")
    SELECT 'gr' || i || '_' || k, 'f' || i, 'g' || ((i * 7 + k * 17) % ${GRADERS}),
      CASE WHEN k = 2 AND i % 4 = 0 THEN 'INCORRECT' WHEN i % 5 = 0 THEN 'OVERFITTING' ELSE 'CORRECT' END::"GradeLabel", 'why', now()
    FROM generate_series(1, ${GRADED_FIXES}) i, generate_series(0, 2) k`);
  await client.query(`
    INSERT INTO "Consensus" (id, "fixId", label, "settledById", automatic)
    SELECT 'cs' || i, 'f' || i, CASE WHEN i % 5 = 0 THEN 'OVERFITTING' ELSE 'CORRECT' END::"GradeLabel", 'manager', i % 4 <> 0
    FROM generate_series(1, ${GRADED_FIXES}) i WHERE i % 5 <> 1`);
}

/** A queue over explicit fixes, written directly (the queue's filter is not what is measured here). */
async function queueOver(client: pg.Client, { id, from, count }: { id: string; from: number; count: number }): Promise<void> {
  await client.query(`
    INSERT INTO "GradingQueue" (id, name, "createdById") VALUES ('${id}', '${id}', 'manager');
    INSERT INTO "GradingQueueGrader" ("queueId", "userId") SELECT '${id}', 'g' || i FROM generate_series(0, ${GRADERS - 1}) i;
    INSERT INTO "GradingItem" (id, "queueId", "fixId", position)
    SELECT '${id}_' || p, '${id}', 'f' || (${from} + p), p FROM generate_series(0, ${count - 1}) p;`);
}

async function run(options: BenchOptions): Promise<BenchResult> {
  const fixes = options.scale ?? 1_000_000;
  const { log } = options;
  const { url, name, drop } = await createScratchDatabase({ serverUrl: options.serverUrl, prefix: 'flowfix_bench' });
  const unregister = options.keep ? () => undefined : options.onInterrupt(drop);
  let handle: DbHandle | undefined;
  const client = new pg.Client({ connectionString: url });
  try {
    handle = openDb({ kind: 'postgres', location: url });
    setDbHandle(handle);
    await client.connect();
    log(`grading: database ${name}; applying migrations`);
    await applyMigrations({ handle });
    const t0 = performance.now();
    await client.query("SET synchronous_commit = off; SET maintenance_work_mem = '256MB'");
    const deferred = await dropSecondaryStructures(client, TABLES);
    log(`grading: seeding ${fixes.toLocaleString('en-US')} fixes, ${(GRADED_FIXES * 3).toLocaleString('en-US')} grades`);
    await seed(client, fixes);
    await restoreSecondaryStructures({ client, url, deferred });
    // half the queue graded already: the newest 5,000 graded fixes and 5,000 fresh ones
    await queueOver(client, { id: 'busy', from: GRADED_FIXES - QUEUE_ITEMS / 2 + 1, count: QUEUE_ITEMS });
    await queueOver(client, { id: 'graded', from: 1, count: QUEUE_ITEMS });
    await client.query('VACUUM ANALYZE');
    const seeded = (performance.now() - t0) / 1000;
    log(`grading: seeded and indexed in ${seeded.toFixed(1)} s`);

    const grader = (i: number) => ({ id: `g${i}`, email: `grader${i}@bench.test`, name: `Grader ${i}`, roles: ['GRADER'] }) as unknown as SessionUser;
    const manager = { id: 'manager', email: 'manager@bench.test', name: 'Manager', roles: ['MANAGER'] } as unknown as SessionUser;
    let turn = 0;
    const measure = async (label: string, target: number, fn: () => Promise<unknown>, samples = options.samples): Promise<BenchFigure> => {
      const s = await timeAsync({ fn, warmup: Math.min(options.warmup, samples), samples });
      log(`grading: ${label}: p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`);
      return { name: label, ...s, targetP95: target };
    };
    const held: Array<{ itemId: string; user: SessionUser }> = [];
    const figures: BenchFigure[] = [
      // each call a different grader, so most calls take a new reservation
      await measure('"next item" (50 graders in turn, 10,000-item queue half graded)', 50, async () => {
        const user = grader(turn++ % GRADERS);
        const next = await nextItem({ queueId: 'busy', user });
        if (next && held.length < 200) held.push({ itemId: next.itemId, user });
      }),
      await measure('grading page data (the item, blind)', 150, async () => {
        const h = held[turn++ % held.length]!;
        await getItemView({ queueId: 'busy', itemId: h.itemId, user: h.user });
      }),
      await measure(
        `sampled queue of 1,000 from ${fixes.toLocaleString('en-US')} fixes (createQueue)`,
        2000,
        () =>
          createQueue({
            actor: manager,
            input: CreateQueueSchema.parse({
              name: `sample ${turn++}`,
              graderIds: ['g0', 'g1', 'g2'],
              filter: { sample: 1000, seed: `bench-${turn}` },
            }),
          }),
        Math.min(options.samples, 20),
      ),
      await measure(
        'agreement statistics, 10,000-item queue (30,000 labels)',
        500,
        () => queueAgreement({ queueId: 'graded', user: manager }),
        Math.min(options.samples, 50),
      ),
    ];
    const server = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    return {
      bench: 'grading',
      setup:
        `${fixes.toLocaleString('en-US')} fixes, ${(GRADED_FIXES * 3).toLocaleString('en-US')} grades by ${GRADERS} graders on ${GRADED_FIXES.toLocaleString('en-US')} of them; ` +
        `PostgreSQL ${server}; ${os.cpus().length} cores; ${options.samples} samples (fewer for the slow ones)`,
      figures,
      notes: [
        `seed and indexes ${seeded.toFixed(1)} s`,
        'times are lib/grading calls through Prisma and @prisma/adapter-pg: the database work of the grading routes',
      ],
    };
  } finally {
    setDbHandle(undefined);
    await handle?.close().catch(() => undefined);
    await client.end().catch(() => undefined);
    unregister();
    if (options.keep) log(`grading: kept ${url}`);
    else {
      await drop();
      log(`grading: dropped ${name}`);
    }
  }
}

export const gradingBench: BenchModule = {
  name: 'grading',
  description: 'grading on 1,000,000 fixes / 300,000 grades in PostgreSQL: next item, the grading page, a sampled queue, agreement',
  run,
};
