// flowfix database CLI, offline (the Prisma CLI's `migrate` needs a native
// engine that cannot be downloaded here). Run with tsx:
//
//   npx tsx scripts/db.ts migrate              apply committed migrations to DATABASE_URL
//   npx tsx scripts/db.ts create <name>        new migration from schema.prisma changes
//   npx tsx scripts/db.ts status               applied / pending / edited migrations
//   npx tsx scripts/db.ts check-drift          migrations ≟ schema.prisma ≟ database
//
// Options: --schema <file> (prisma/schema.prisma), --migrations <dir>
// (prisma/migrations). See prisma/README.md for the workflow.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { getEnv } from '../lib/env';
import { openDb, resolveDbTarget, type DbHandle } from '../lib/db';
import { applyMigrations, getMigrationStatus } from './db/migrate';
import { ensureInsightsRollups } from '../lib/insights/rollup';
import { MIGRATION_LOCK, diffDatabaseToSchema, diffMigrationsToSchema, engineDatabaseFor, readMigrationList, readSchemaFile } from './db/schema-engine';

interface Paths {
  schemaPath: string;
  migrationsDir: string;
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function describeTarget(handle: DbHandle): string {
  const { kind, location } = handle.target;
  // never print a password from a connection string
  return kind === 'postgres' ? `postgres ${location.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}` : `pglite ${location}`;
}

function openConfiguredDb(): DbHandle {
  const env = getEnv();
  return openDb(resolveDbTarget(env.DATABASE_URL, env.FLOWFIX_DATA_DIR));
}

async function withConfiguredDb<T>(fn: (handle: DbHandle) => Promise<T>): Promise<T> {
  const handle = openConfiguredDb();
  try {
    return await fn(handle);
  } finally {
    await handle.close();
  }
}

/** Prisma's CLI slugifies the name the same way: lower-case words joined by `_`. */
function migrationSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 200);
}

async function commandMigrate({ migrationsDir }: Paths): Promise<number> {
  return withConfiguredDb(async (handle) => {
    const { applied } = await applyMigrations({ handle, dir: migrationsDir });
    out(`Database: ${describeTarget(handle)}`);
    if (applied.length === 0) out('No pending migrations to apply.');
    else for (const name of applied) out(`Applied ${name}`);
    // a database whose Insights rollups were never built, or built by another
    // definition, gets them from its raw rows now (lib/insights/rollup.ts)
    const [{ present }] = await handle.db.$queryRawUnsafe<Array<{ present: boolean }>>(`SELECT to_regclass('"InsightsRunDay"') IS NOT NULL AS present`);
    if (present) {
      let last = 0;
      const { rebuilt, days } = await ensureInsightsRollups({
        db: handle.db,
        // a server rebuilds a day per core; PGlite one at a time
        concurrency: handle.target.kind === 'postgres' ? 2 : 1,
        onProgress: (p) => {
          if (Date.now() - last < 5_000) return;
          last = Date.now();
          out(`Insights rollups: ${p.kind} days ${p.done}/${p.of}`);
        },
      });
      if (rebuilt) out(`Built the Insights rollups (${days} days).`);
    }
    return 0;
  });
}

/** Prisma's folder prefix: the UTC time as YYYYMMDDHHMMSS. */
function migrationTimestamp(now: Date): string {
  return now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** A timestamp after every existing migration's, even with a clock behind. */
function nextMigrationName({ existing, slug, now }: { existing: string[]; slug: string; now: Date }): string {
  let stamp = migrationTimestamp(now);
  const last = existing
    .map((name) => name.slice(0, 14))
    .sort()
    .at(-1);
  if (last && stamp <= last) stamp = String(BigInt(last) + 1n);
  return `${stamp}_${slug}`;
}

async function commandCreate({ schemaPath, migrationsDir }: Paths, rawName: string | undefined): Promise<number> {
  const slug = migrationSlug(z.string({ error: 'usage: db.ts create <name>' }).min(1).parse(rawName));
  if (!slug) throw new Error(`"${rawName}" has no letters or digits to name a migration with`);
  const schema = readSchemaFile({ schemaPath });
  const migrationsList = readMigrationList({ dir: migrationsDir });
  // The engine replays the migrations into a throw-away in-memory shadow
  // PGlite and diffs that against schema.prisma; no live database is needed.
  // (engine.createMigration would do the same, but on this engine build it
  // cannot get a shadow database once a migration exists; its script for the
  // first migration was byte-identical to this diff.)
  const diff = await diffMigrationsToSchema({ migrationsList, schema });
  if (diff.empty) {
    out('No changes: the migrations already produce the schema. Nothing written.');
    return 0;
  }
  const name = nextMigrationName({
    existing: migrationsList.migrationDirectories.map((d) => d.path),
    slug,
    now: new Date(),
  });
  const file = path.join(migrationsDir, name, 'migration.sql');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, diff.script);
  const lockPath = path.join(migrationsDir, 'migration_lock.toml');
  if (!fs.existsSync(lockPath)) fs.writeFileSync(lockPath, MIGRATION_LOCK);
  out(`Created ${path.relative(process.cwd(), file)}`);
  return 0;
}

async function commandStatus({ migrationsDir }: Paths): Promise<number> {
  return withConfiguredDb(async (handle) => {
    const status = await getMigrationStatus({ handle, dir: migrationsDir });
    out(`Database: ${describeTarget(handle)}`);
    out(`Applied (${status.applied.length}): ${status.applied.join(', ') || '-'}`);
    out(`Pending (${status.pending.length}): ${status.pending.join(', ') || '-'}`);
    if (status.edited.length) out(`EDITED after being applied: ${status.edited.join(', ')}`);
    if (status.failed.length) out(`FAILED (unfinished): ${status.failed.join(', ')}`);
    if (status.unknown.length) out(`In the database but not in the folder: ${status.unknown.join(', ')}`);
    const healthy = status.edited.length + status.failed.length + status.unknown.length === 0;
    return healthy && status.pending.length === 0 ? 0 : 1;
  });
}

async function commandCheckDrift({ schemaPath, migrationsDir }: Paths): Promise<number> {
  const schema = readSchemaFile({ schemaPath });
  const migrationsList = readMigrationList({ dir: migrationsDir });
  let drift = false;

  const folderDiff = await diffMigrationsToSchema({ migrationsList, schema });
  if (folderDiff.empty) out('Migrations folder → schema.prisma: no difference.');
  else {
    drift = true;
    out('Migrations folder → schema.prisma: the schema has changes no migration makes. Run `npm run db:migrate:create -- <name>`:');
    out(folderDiff.script);
  }

  await withConfiguredDb(async (handle) => {
    const database = engineDatabaseFor({ target: handle.target, pglite: handle.pglite });
    const dbDiff = await diffDatabaseToSchema({ database, schema });
    if (dbDiff.empty) out(`Database (${describeTarget(handle)}) → schema.prisma: no difference.`);
    else {
      drift = true;
      out(`Database (${describeTarget(handle)}) → schema.prisma: the database differs (pending migrations, or changed by hand):`);
      out(dbDiff.script);
    }
  });
  return drift ? 1 : 0;
}

const COMMANDS = ['migrate', 'create', 'status', 'check-drift'] as const;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      schema: { type: 'string', default: 'prisma/schema.prisma' },
      migrations: { type: 'string', default: 'prisma/migrations' },
    },
  });
  const [command, ...rest] = positionals;
  const parsed = z.enum(COMMANDS).safeParse(command);
  if (!parsed.success) {
    process.stderr.write(`usage: db.ts <${COMMANDS.join('|')}> [name] [--schema file] [--migrations dir]\n`);
    return 2;
  }
  const paths: Paths = { schemaPath: path.resolve(values.schema), migrationsDir: path.resolve(values.migrations) };
  switch (parsed.data) {
    case 'migrate':
      return commandMigrate(paths);
    case 'create':
      return commandCreate(paths, rest.join(' ') || undefined);
    case 'status':
      return commandStatus(paths);
    case 'check-drift':
      return commandCheckDrift(paths);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
