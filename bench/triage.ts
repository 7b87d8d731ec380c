import os from 'node:os';
import pg from 'pg';
import { openDb, type DbHandle } from '../lib/db';
import { applyMigrations } from '../scripts/db/migrate';
import { createScratchDatabase } from '../lib/scratch-database';
import { listChanges } from '../lib/changes/list-changes';
import { DEFAULT_PAGE_SIZE, type ChangeListFilters } from '../common/change-query';
import { seedTriageData, SEED_REPOSITORY_NAMES } from './triage-seed';
import { timeAsync } from './stats';
import type { BenchFigure, BenchModule, BenchOptions, BenchResult } from './types';

// The triage list at scale: a scratch database on the PostgreSQL server with
// the real migrations, a million changes and their failures, then the list's
// queries timed through listChanges itself (Prisma, the adapter, the pool),
// i.e. what GET /api/changes spends in the database layer.

const TARGET_P95_MS = 100;
const DEEP_PAGES = 200;
const SEEDED_TABLES = ['Change', 'ChangeRevision', 'Failure'];

export interface Deferred {
  indexes: string[];
  foreignKeys: Array<{ table: string; name: string; definition: string }>;
}

/**
 * Loading a million rows into indexed, foreign-keyed tables is several times
 * slower than building the indexes once afterwards. The definitions are read
 * back from the migrated database, so what gets rebuilt is exactly what the
 * migrations created.
 */
export async function dropSecondaryStructures(client: pg.Client, tables: readonly string[] = SEEDED_TABLES): Promise<Deferred> {
  const fks = await client.query<{ table: string; name: string; definition: string }>(
    `SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
     FROM pg_constraint c
     WHERE c.contype = 'f' AND c.conrelid::regclass::text = ANY($1)`,
    [tables.map((t) => `"${t}"`)],
  );
  const idx = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition
     FROM pg_indexes i
     WHERE i.schemaname = current_schema() AND i.tablename = ANY($1)
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
    [tables],
  );
  for (const fk of fks.rows) await client.query(`ALTER TABLE ${fk.table} DROP CONSTRAINT "${fk.name}"`);
  for (const index of idx.rows) await client.query(`DROP INDEX "${index.name}"`);
  return { indexes: idx.rows.map((r) => r.definition), foreignKeys: fks.rows };
}

// index builds are single-threaded (GIN always is): one connection per core
const INDEX_BUILDERS = Math.max(1, Math.min(4, os.cpus().length));

export async function restoreSecondaryStructures({ client, url, deferred }: { client: pg.Client; url: string; deferred: Deferred }): Promise<void> {
  const queue = [...deferred.indexes];
  const builder = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query("SET maintenance_work_mem = '256MB'");
      for (let next = queue.shift(); next; next = queue.shift()) await c.query(next);
    } finally {
      await c.end();
    }
  };
  await Promise.all(Array.from({ length: INDEX_BUILDERS }, builder));
  for (const fk of deferred.foreignKeys) {
    await client.query(`ALTER TABLE ${fk.table} ADD CONSTRAINT "${fk.name}" ${fk.definition}`);
  }
}

async function cursorAfterPages({
  handle,
  filters,
  pages,
}: {
  handle: DbHandle;
  filters: ChangeListFilters;
  pages: number;
}): Promise<{ cursor: string; reached: number }> {
  let cursor: string | undefined;
  let reached = 0;
  for (let i = 0; i < pages; i += 1) {
    const page = await listChanges({ filters, cursor, db: handle.db });
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
    reached += 1;
  }
  if (!cursor) throw new Error('the data set is too small for a deep page');
  return { cursor, reached };
}

async function serverDescription(client: pg.Client): Promise<string> {
  const v = await client.query<{ server_version: string }>('SHOW server_version');
  return `PostgreSQL ${v.rows[0]!.server_version}`;
}

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
    log(`triage: database ${name}; applying migrations`);
    await applyMigrations({ handle });

    const seedStart = performance.now();
    await client.query("SET synchronous_commit = off; SET maintenance_work_mem = '256MB'");
    const deferred = await dropSecondaryStructures(client);
    log(`triage: seeding ${changes.toLocaleString('en-US')} changes (indexes and foreign keys deferred)`);
    const counts = await seedTriageData({ client, changes });
    const seededAt = performance.now();
    log(
      `triage: seeded in ${((seededAt - seedStart) / 1000).toFixed(1)} s; building ${deferred.indexes.length} indexes, ${deferred.foreignKeys.length} foreign keys`,
    );
    await restoreSecondaryStructures({ client, url, deferred });
    await client.query('VACUUM ANALYZE "Repository", "Change", "ChangeRevision", "Failure"');
    const readyAt = performance.now();
    log(`triage: indexes + analyze in ${((readyAt - seededAt) / 1000).toFixed(1)} s`);

    const db = handle;
    const all: ChangeListFilters = { history: 'include' };
    const measure = async (label: string, fn: () => Promise<unknown>): Promise<BenchFigure> => {
      const s = await timeAsync({ fn, warmup: options.warmup, samples: options.samples });
      log(`triage: ${label}: p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`);
      return { name: label, ...s, targetP95: TARGET_P95_MS };
    };
    const page = (filters: ChangeListFilters, cursor?: string) => () => listChanges({ filters, cursor, db: db.db, limit: DEFAULT_PAGE_SIZE });

    const repo = SEED_REPOSITORY_NAMES[4]!;
    const deep = await cursorAfterPages({ handle, filters: all, pages: DEEP_PAGES });
    const skipped: ChangeListFilters = { history: 'exclude', status: ['SKIPPED'] };
    const deepSkipped = await cursorAfterPages({ handle, filters: skipped, pages: DEEP_PAGES });

    const figures: BenchFigure[] = [
      await measure('first page (no filter, with bounded total)', page(all)),
      await measure(`filtered: status FIX_READY + repository ${repo}`, page({ history: 'include', status: ['FIX_READY'], repo })),
      await measure(
        'filtered: 3 statuses + people only + hide history',
        page({ history: 'exclude', kind: 'HUMAN', status: ['FIX_READY', 'NO_FIX', 'REJECTED'] }),
      ),
      await measure('text search, common title phrase "rate limiter"', page({ history: 'include', q: 'rate limiter' })),
      await measure('text search, author "hopper"', page({ history: 'include', q: 'hopper' })),
      await measure('text search, one id "PR-424242"', page({ history: 'include', q: 'PR-424242' })),
      await measure('text search, no match "zzzz-no-such-change"', page({ history: 'include', q: 'zzzz-no-such-change' })),
      await measure('text search + status RUNNING (rare combination)', page({ history: 'include', q: 'cache', status: ['RUNNING'] })),
      await measure(`deep page (after ${deep.reached} pages)`, page(all, deep.cursor)),
      await measure(`deep page, status SKIPPED (after ${deepSkipped.reached} pages)`, page(skipped, deepSkipped.cursor)),
    ];

    const server = await serverDescription(client);
    return {
      bench: 'triage',
      setup:
        `${counts.changes.toLocaleString('en-US')} changes, ${counts.failures.toLocaleString('en-US')} failures, ` +
        `${counts.repositories} repositories, ${counts.authors.toLocaleString('en-US')} authors; ${server}; ` +
        `${os.cpus().length} cores; ${options.samples} samples after ${options.warmup} warm-up runs; page size ${DEFAULT_PAGE_SIZE}`,
      figures,
      notes: [
        `seed ${((seededAt - seedStart) / 1000).toFixed(1)} s, indexes + VACUUM ANALYZE ${((readyAt - seededAt) / 1000).toFixed(1)} s`,
        'times are listChanges() calls through Prisma and @prisma/adapter-pg on the local server: the database work of GET /api/changes',
      ],
    };
  } finally {
    await handle?.close().catch(() => undefined);
    await client.end().catch(() => undefined);
    unregister();
    if (options.keep) log(`triage: kept ${url}`);
    else {
      await dropDatabase();
      log(`triage: dropped ${name}`);
    }
  }
}

export const triageBench: BenchModule = {
  name: 'triage',
  description: 'triage list (listChanges) on 1,000,000 changes in PostgreSQL: first, filtered, search and deep pages',
  run,
};
