import os from 'node:os';
import pg from 'pg';
import { openDb, setDbHandle, type DbHandle } from '../lib/db';
import { applyMigrations } from '../scripts/db/migrate';
import { createScratchDatabase } from '../lib/scratch-database';
import { insightsSection } from '../lib/insights';
import { rebuildInsightsRollups, refreshInsightsRollups, verifyInsightsRollups } from '../lib/insights/rollup';
import { INSIGHTS_SECTIONS, InsightsQuerySchema, type InsightsSection } from '../common/insights-query';
import { seedTriageData, SEED_REPOSITORY_NAMES } from './triage-seed';
import { seedInsightsData } from './insights-seed';
import { dropSecondaryStructures, restoreSecondaryStructures } from './triage';
import { timeAsync } from './stats';
import type { BenchFigure, BenchModule, BenchOptions, BenchResult } from './types';

// Insights at scale: a scratch database on the PostgreSQL server with the real
// migrations, the triage seed's changes (180 days) plus runs, fixes,
// decisions, grades and consensus, written set-based past the writers, so the
// rollups are then built from them by rebuildInsightsRollups() (what `npm run
// db:migrate` does for an existing database) and a few days are verified
// against the raw rows. Then every section of Insights is timed through
// insightsSection() itself — what GET /api/insights/[section] spends in the
// database — for a 90-day window and for all time, with and without filters,
// and what keeping the rollups costs a writer (one refresh of a busy slice).
// --scale sets the number of changes; the rest keeps the issue's proportions
// (1.5 runs, 0.8 fixes, 2 decisions, 0.3 grades per change).

const TARGET_90D_MS = 300;
const TARGET_ALL_MS = 1000;
const SEEDED_TABLES = ['Change', 'ChangeRevision', 'Failure', 'Run', 'Fix', 'Decision', 'Grade', 'Consensus'];
const ROLLUP_TABLES = ['InsightsCohortDay', 'InsightsRunDay', 'InsightsPrecisionDay'];
const MAX_SAMPLES = 20;
const MAX_WARMUP = 2;

async function run(options: BenchOptions): Promise<BenchResult> {
  const changes = options.scale ?? 1_000_000;
  const { log } = options;
  const { url, name, drop: dropDatabase } = await createScratchDatabase({ serverUrl: options.serverUrl, prefix: 'flowfix_bench' });
  const unregister = options.keep ? () => undefined : options.onInterrupt(dropDatabase);
  let handle: DbHandle | undefined;
  const client = new pg.Client({ connectionString: url });
  try {
    handle = openDb({ kind: 'postgres', location: url });
    await client.connect();
    log(`insights: database ${name}; applying migrations`);
    await applyMigrations({ handle });
    const seedStart = performance.now();
    await client.query("SET synchronous_commit = off; SET maintenance_work_mem = '256MB'; SET work_mem = '64MB'");
    const deferred = await dropSecondaryStructures(client, SEEDED_TABLES);
    log(`insights: seeding ${changes.toLocaleString('en-US')} changes and their runs, fixes, decisions and grades`);
    const triage = await seedTriageData({ client, changes });
    const seeded = await seedInsightsData({
      client,
      runs: Math.round(changes * 1.5),
      decisions: changes * 2,
      gradedFixes: Math.round(changes * 0.1),
    });
    const seededAt = performance.now();
    log(`insights: seeded in ${((seededAt - seedStart) / 1000).toFixed(1)} s: ${JSON.stringify(seeded)}; building indexes`);
    await restoreSecondaryStructures({ client, url, deferred });
    await client.query(`VACUUM ANALYZE ${SEEDED_TABLES.map((t) => `"${t}"`).join(', ')}, "Repository", "User"`);
    const readyAt = performance.now();
    log(`insights: indexes + analyze in ${((readyAt - seededAt) / 1000).toFixed(1)} s; building the rollups`);

    // precision() reads the process handle
    setDbHandle(handle);
    const db = handle.db;
    let lastLog = 0;
    await rebuildInsightsRollups({
      db,
      concurrency: 2,
      onProgress: (p) => {
        if (Date.now() - lastLog < 30_000) return;
        lastLog = Date.now();
        log(`insights: rollups ${p.kind} ${p.done}/${p.of} days`);
      },
    });
    await client.query(`VACUUM ANALYZE ${ROLLUP_TABLES.map((t) => `"${t}"`).join(', ')}`);
    const rolledAt = performance.now();
    const rollupSize = (
      await client.query<{ rows: string; bytes: string }>(
        `SELECT (SELECT count(*) FROM "InsightsCohortDay") + (SELECT count(*) FROM "InsightsRunDay") + (SELECT count(*) FROM "InsightsPrecisionDay") AS rows,
                ${ROLLUP_TABLES.map((t) => `pg_total_relation_size('"${t}"')`).join(' + ')} AS bytes`,
      )
    ).rows[0]!;
    log(
      `insights: rollups built in ${((rolledAt - readyAt) / 1000).toFixed(1)} s: ${rollupSize.rows} rows, ${(Number(rollupSize.bytes) / 2 ** 20).toFixed(0)} MB`,
    );
    // the last three days, recomputed from the raw rows, must equal what was built
    const today = new Date().toISOString().slice(0, 10);
    const threeDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const verified = await verifyInsightsRollups({ db, from: threeDaysAgo, to: today });
    if (verified.differences.length) throw new Error(`rollups differ from the raw rows: ${JSON.stringify(verified.differences.slice(0, 5))}`);
    log(`insights: verified ${verified.days} day(s) against the raw rows in ${((performance.now() - rolledAt) / 1000).toFixed(1)} s`);
    const now = new Date();
    const repo = SEED_REPOSITORY_NAMES[0]!;
    const slices: Array<{ label: string; query: Record<string, string>; target: number }> = [
      { label: '90 days', query: { period: '90d' }, target: TARGET_90D_MS },
      { label: `90 days, repository ${repo}`, query: { period: '90d', repo }, target: TARGET_90D_MS },
      { label: '90 days, policy llm, people only', query: { period: '90d', policy: 'llm', author: 'human' }, target: TARGET_90D_MS },
      { label: 'all time', query: { period: 'all' }, target: TARGET_ALL_MS },
      { label: `all time, repository ${repo}, daily`, query: { period: 'all', repo, bucket: 'day' }, target: TARGET_ALL_MS },
      { label: 'all time, policy llm, people only', query: { period: 'all', policy: 'llm', author: 'human' }, target: TARGET_ALL_MS },
    ];
    const figures: BenchFigure[] = [];
    const samples = Math.min(options.samples, MAX_SAMPLES);
    const warmup = Math.min(options.warmup, MAX_WARMUP);
    for (const section of INSIGHTS_SECTIONS as readonly InsightsSection[]) {
      for (const slice of slices) {
        const query = InsightsQuerySchema.parse(slice.query);
        const s = await timeAsync({ fn: () => insightsSection({ section, query, now, db }), warmup, samples });
        const label = `${section}: ${slice.label}`;
        log(`insights: ${label}: p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`);
        figures.push({ name: label, ...s, targetP95: slice.target });
      }
    }
    // what the writers pay: refreshing the busiest slice of yesterday (every write to a change does one)
    const busiest = (
      await client.query<{ id: string }>(
        `SELECT c.id FROM "Change" c WHERE c."createdAt" >= date_trunc('day', now()) - interval '1 day' AND c."createdAt" < date_trunc('day', now())
         GROUP BY c.id, c."repositoryId", c."authorKind"
         ORDER BY count(*) OVER (PARTITION BY c."repositoryId", c."authorKind") DESC, c.id LIMIT 1`,
      )
    ).rows[0];
    if (busiest) {
      const slice = (
        await client.query<{ changes: string; runs: string }>(
          `SELECT count(DISTINCT c.id) AS changes, count(r.id) AS runs FROM "Change" c LEFT JOIN "Run" r ON r."changeId" = c.id
           WHERE (c."repositoryId", c."authorKind", c."createdAt"::date) = (SELECT "repositoryId", "authorKind", "createdAt"::date FROM "Change" WHERE id = $1)`,
          [busiest.id],
        )
      ).rows[0]!;
      const s = await timeAsync({ fn: () => db.$transaction((tx) => refreshInsightsRollups({ tx, changeIds: [busiest.id] })), warmup, samples });
      const label = `writer: refresh of the busiest slice of yesterday (${slice.changes} changes, ${slice.runs} runs)`;
      log(`insights: ${label}: p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`);
      figures.push({ name: label, ...s });
    }
    const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    return {
      bench: 'insights',
      setup:
        `${triage.changes.toLocaleString('en-US')} changes, ${seeded.runs.toLocaleString('en-US')} runs, ${seeded.fixes.toLocaleString('en-US')} fixes, ` +
        `${seeded.decisions.toLocaleString('en-US')} decisions, ${seeded.grades.toLocaleString('en-US')} grades (${seeded.consensus.toLocaleString('en-US')} settled); ` +
        `PostgreSQL ${version}; ${os.cpus().length} cores; ${samples} samples after ${warmup} warm-up runs`,
      figures,
      notes: [
        `seed ${((seededAt - seedStart) / 1000).toFixed(1)} s, indexes + VACUUM ANALYZE ${((readyAt - seededAt) / 1000).toFixed(1)} s`,
        `rollups built from the raw rows (rebuildInsightsRollups) in ${((rolledAt - readyAt) / 1000).toFixed(1)} s: ${Number(rollupSize.rows).toLocaleString('en-US')} rows, ${(Number(rollupSize.bytes) / 2 ** 20).toFixed(0)} MB; the last ${verified.days} day(s) verified equal to a recomputation`,
        'times are insightsSection() calls through Prisma and @prisma/adapter-pg on the local server: the database work of GET /api/insights/[section]',
      ],
    };
  } finally {
    setDbHandle(undefined);
    await handle?.close().catch(() => undefined);
    await client.end().catch(() => undefined);
    unregister();
    if (options.keep) log(`insights: kept ${url}`);
    else {
      await dropDatabase();
      log(`insights: dropped ${name}`);
    }
  }
}

export const insightsBench: BenchModule = {
  name: 'insights',
  description: 'Insights sections (insightsSection) on 1,000,000 changes, 1.5M runs, 800k fixes, 2M decisions, 300k grades in PostgreSQL',
  run,
};
