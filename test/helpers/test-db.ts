import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../../lib/generated/prisma/client';
import { createPGlite, openDb, setDbHandle, type DbHandle } from '../../lib/db';
import { applyMigrations } from '../../scripts/db/migrate';
import { stopRunQueue } from '../../lib/queue';
import { createScratchDatabase, type ScratchDatabase } from '../../lib/scratch-database';

// A fresh, migrated database per call, installed as the process handle so
// code under test that calls getDb() uses it. FLOWFIX_TEST_DB picks the
// backend: pglite (default, in memory) or postgres (a new database on the
// local server, dropped by drop()). These are test-only variables, so they are
// read here rather than in lib/env.ts.

export type TestDbKind = 'pglite' | 'postgres';
export type TestDb = DbHandle & { drop(): Promise<void> };

const TestEnvSchema = z.object({
  FLOWFIX_TEST_DB: z.enum(['pglite', 'postgres']).default('pglite'),
  // the server (and its maintenance database) where test databases are created
  FLOWFIX_TEST_PG_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//)
    .default('postgresql://postgres@127.0.0.1:5432/postgres'),
});

function testEnv(): z.infer<typeof TestEnvSchema> {
  const parsed = TestEnvSchema.safeParse(process.env);
  if (!parsed.success) {
    throw new Error(`Invalid test environment: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** The server URL tests create their databases on. */
export function testServerUrl(): string {
  return testEnv().FLOWFIX_TEST_PG_URL;
}

/** Creates an empty database flowfix_test_<random> and returns its URL and a dropper. */
export function createEmptyPostgresDatabase(): Promise<ScratchDatabase> {
  return createScratchDatabase({ serverUrl: testServerUrl(), prefix: 'flowfix_test' });
}

// The test database this helper last installed as the process handle.
let installed: DbHandle | undefined;

function install(testDb: DbHandle): void {
  installed = testDb;
  setDbHandle(testDb);
}

function uninstall(testDb: DbHandle): void {
  // only if no later test database replaced it as the process handle
  if (installed !== testDb) return;
  installed = undefined;
  setDbHandle(undefined);
}

// Starting PGlite costs ~1.5 s and migrating it ~8 s of CPU (20 s on a busy
// machine); loading a data dir dumped from an already migrated instance takes
// ~0.7 s. So the first database of a process is migrated for real and
// dumped, and later ones start from that dump (it includes the
// _prisma_migrations rows). The dump is also kept on disk, named by the
// migrations' and PGlite's contents, so the other test processes of a run
// (one per file) load it instead of migrating again; a changed migration
// names a new dump.
let migratedDump: Promise<File | Blob> | undefined;

const DUMP_DIR = path.resolve('node_modules', '.cache', 'flowfix-test');

/** Where the migrated PGlite dump of these migrations is kept (its name: their contents and PGlite's version). */
export function migratedDumpPath(migrations: string = path.resolve('prisma', 'migrations')): string {
  const hash = createHash('sha256');
  for (const entry of readdirSync(migrations, { recursive: true }).map(String).sort()) {
    const file = path.join(migrations, entry);
    if (!statSync(file).isFile()) continue;
    hash.update(entry).update('\0').update(readFileSync(file)).update('\0');
  }
  hash.update(readFileSync(path.resolve('node_modules', '@electric-sql', 'pglite', 'package.json')));
  return path.join(DUMP_DIR, `pglite-migrated-${hash.digest('hex').slice(0, 16)}.tar`);
}

async function dumpFromDisk(file: string): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(file)]);
  } catch {
    return undefined;
  }
}

async function keepOnDisk(file: string, dump: Blob): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  // written whole, then renamed: a process that reads it never sees half a dump
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
  await rename(partial, file);
}

async function openMigratedPglite(): Promise<DbHandle> {
  const onDisk = migratedDump ? undefined : migratedDumpPath();
  if (onDisk && !migratedDump) {
    const found = await dumpFromDisk(onDisk);
    if (found) migratedDump = Promise.resolve(found);
  }
  if (migratedDump) {
    const loadDataDir = await migratedDump;
    const pglite = createPGlite(undefined, { loadDataDir });
    const db = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    return {
      db,
      target: { kind: 'pglite', location: 'memory' },
      pglite,
      close: async () => {
        await db.$disconnect();
        await pglite.close();
      },
    };
  }
  const handle = openDb({ kind: 'pglite', location: 'memory' });
  try {
    await applyMigrations({ handle });
  } catch (error) {
    await handle.close();
    throw error;
  }
  const dump = (handle.pglite as PGlite).dumpDataDir('none');
  migratedDump = dump;
  try {
    await dump;
  } catch (error) {
    migratedDump = undefined;
    await handle.close();
    throw error;
  }
  // a cache only: a run that cannot write it migrates in each process, as before
  if (onDisk) await keepOnDisk(onDisk, await dump).catch(() => {});
  return handle;
}

async function createPgliteTestDb(): Promise<TestDb> {
  const handle = await openMigratedPglite();
  let dropped = false;
  const testDb: TestDb = {
    ...handle,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      // ingestion queues runs: a queue left on this database would outlive it
      await stopRunQueue({ handle: testDb });
      uninstall(testDb);
      await handle.close();
    },
  };
  return testDb;
}

async function createPostgresTestDb(): Promise<TestDb> {
  const database = await createEmptyPostgresDatabase();
  const handle = openDb({ kind: 'postgres', location: database.url });
  try {
    await applyMigrations({ handle });
  } catch (error) {
    await handle.close();
    await database.drop();
    throw error;
  }
  let dropped = false;
  const testDb: TestDb = {
    ...handle,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      // ingestion queues runs: a queue left on this database would outlive it (and block its DROP)
      await stopRunQueue({ handle: testDb });
      uninstall(testDb);
      await handle.close();
      await database.drop();
    },
  };
  return testDb;
}

/**
 * A fresh database with every committed migration applied, also installed as
 * the process handle (setDbHandle). Call drop() when done (e.g. in after()).
 * `kind` overrides FLOWFIX_TEST_DB.
 */
export async function createTestDb({ kind }: { kind?: TestDbKind } = {}): Promise<TestDb> {
  const chosen = kind ?? testEnv().FLOWFIX_TEST_DB;
  const testDb = chosen === 'postgres' ? await createPostgresTestDb() : await createPgliteTestDb();
  install(testDb);
  return testDb;
}
