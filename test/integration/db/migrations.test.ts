import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, type DbHandle } from '../../../lib/db';
import { DEFAULT_MIGRATIONS_DIR, applyMigrations, checksumOf, getMigrationStatus, readMigrations, type AppliedMigrationRow } from '../../../scripts/db/migrate';
import { diagnoseMigrationHistory, diffDatabaseToSchema, engineDatabaseFor, readMigrationList, readSchemaFile } from '../../../scripts/db/schema-engine';
import { createEmptyPostgresDatabase } from '../../helpers/test-db';

// Runs against BOTH backends in one run, whatever FLOWFIX_TEST_DB says: the
// committed migrations must produce exactly prisma/schema.prisma on PGlite
// and on a PostgreSQL server alike.

const SCHEMA_PATH = path.resolve('prisma', 'schema.prisma');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface EmptyDb {
  handle: DbHandle;
  drop(): Promise<void>;
}

async function emptyPglite(): Promise<EmptyDb> {
  const handle = openDb({ kind: 'pglite', location: 'memory' });
  return { handle, drop: () => handle.close() };
}

async function emptyPostgres(): Promise<EmptyDb> {
  const database = await createEmptyPostgresDatabase();
  const handle = openDb({ kind: 'postgres', location: database.url });
  return {
    handle,
    drop: async () => {
      await handle.close();
      await database.drop();
    },
  };
}

async function migrationRows(handle: DbHandle): Promise<AppliedMigrationRow[]> {
  return (await getMigrationStatus({ handle })).rows;
}

async function tableExists(handle: DbHandle, table: string): Promise<boolean> {
  const rows = await handle.db.$queryRawUnsafe<{ exists: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS "exists"`, `"${table}"`);
  return rows[0]?.exists === true;
}

/** A copy of the committed migrations in a temporary folder, to tamper with. */
function copyMigrations(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-migrations-'));
  fs.cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

const committed = readMigrations();

test('there is at least one committed migration and a PostgreSQL lockfile', () => {
  assert.ok(committed.length >= 1);
  const lock = fs.readFileSync(path.join(DEFAULT_MIGRATIONS_DIR, 'migration_lock.toml'), 'utf8');
  assert.match(lock, /^provider = "postgresql"$/m);
});

for (const [kind, openEmpty] of [
  ['pglite', emptyPglite],
  ['postgres', emptyPostgres],
] as const) {
  describe(`migrations on ${kind}`, () => {
    let empty: EmptyDb;
    let firstRun: { applied: string[] };

    before(async () => {
      empty = await openEmpty();
      firstRun = await applyMigrations({ handle: empty.handle });
    });
    after(async () => {
      await empty.drop();
    });

    test('applies every committed migration, in order', () => {
      assert.deepEqual(
        firstRun.applied,
        committed.map((m) => m.name),
      );
    });

    test('the migrated database is exactly schema.prisma (no drift)', async () => {
      const diff = await diffDatabaseToSchema({
        database: engineDatabaseFor({ target: empty.handle.target, pglite: empty.handle.pglite }),
        schema: readSchemaFile({ schemaPath: SCHEMA_PATH }),
      });
      assert.equal(diff.script.trim(), '-- This is an empty migration.');
      assert.equal(diff.empty, true);
    });

    test('records _prisma_migrations rows the way Prisma does', async () => {
      const rows = await migrationRows(empty.handle);
      assert.deepEqual(
        rows.map((r) => r.migration_name),
        committed.map((m) => m.name),
      );
      for (const [i, row] of rows.entries()) {
        const file = fs.readFileSync(path.join(DEFAULT_MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
        assert.equal(row.checksum, checksumOf(file));
        assert.equal(row.checksum, committed[i]?.checksum);
        assert.match(row.id, UUID);
        assert.equal(row.applied_steps_count, 1);
        assert.equal(row.logs, null);
        assert.equal(row.rolled_back_at, null);
        assert.ok(row.finished_at instanceof Date && row.finished_at >= row.started_at);
      }
    });

    test("Prisma's schema engine agrees the history is up to date (what `migrate status` reports)", async () => {
      const diagnosis = await diagnoseMigrationHistory({
        database: engineDatabaseFor({ target: empty.handle.target, pglite: empty.handle.pglite }),
        schema: readSchemaFile({ schemaPath: SCHEMA_PATH }),
        migrationsList: readMigrationList({ dir: DEFAULT_MIGRATIONS_DIR }),
      });
      assert.deepEqual(diagnosis, {
        editedMigrationNames: [],
        failedMigrationNames: [],
        hasMigrationsTable: true,
        history: null,
      });
    });

    test('re-applying is a no-op', async () => {
      const before = await migrationRows(empty.handle);
      const again = await applyMigrations({ handle: empty.handle });
      assert.deepEqual(again.applied, []);
      assert.deepEqual(await migrationRows(empty.handle), before);
    });

    test('refuses when an applied migration file was changed', async () => {
      const dir = copyMigrations();
      try {
        const first = committed[0]?.name ?? assert.fail('no migration');
        fs.appendFileSync(path.join(dir, first, 'migration.sql'), '\n-- edited after it was applied\n');
        await assert.rejects(applyMigrations({ handle: empty.handle, dir }), (error: Error) => {
          assert.match(error.message, /checksum mismatch/);
          assert.ok(error.message.includes(first), error.message);
          return true;
        });
        const status = await getMigrationStatus({ handle: empty.handle, dir });
        assert.deepEqual(status.edited, [first]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    test('a failing migration is rolled back whole and stays pending', async () => {
      const dir = copyMigrations();
      const name = '99991231235959_broken';
      try {
        fs.mkdirSync(path.join(dir, name));
        fs.writeFileSync(
          path.join(dir, name, 'migration.sql'),
          // BEGIN/COMMIT as Prisma writes them around enum changes: they must not
          // end the runner's transaction before the failing statement
          'BEGIN;\nCREATE TABLE "HalfDone" ("id" TEXT PRIMARY KEY);\nCOMMIT;\n\nALTER TABLE "NoSuchTable" ADD COLUMN "x" TEXT;\n',
        );
        await assert.rejects(applyMigrations({ handle: empty.handle, dir }), (error: Error) => {
          assert.ok(error.message.includes(name), error.message);
          return true;
        });
        assert.equal(await tableExists(empty.handle, 'HalfDone'), false);
        const status = await getMigrationStatus({ handle: empty.handle, dir });
        assert.deepEqual(status.pending, [name]);
        assert.deepEqual(status.failed, []);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    // last: it changes the database by hand
    test('the drift check does see a database that differs from schema.prisma', async () => {
      await empty.handle.db.$executeRawUnsafe('ALTER TABLE "User" ADD COLUMN "handAdded" TEXT');
      const diff = await diffDatabaseToSchema({
        database: engineDatabaseFor({ target: empty.handle.target, pglite: empty.handle.pglite }),
        schema: readSchemaFile({ schemaPath: SCHEMA_PATH }),
      });
      assert.equal(diff.empty, false);
      assert.match(diff.script, /DROP COLUMN "handAdded"/);
    });
  });
}

describe('concurrent runs', () => {
  test('two concurrent applyMigrations on one PostgreSQL database apply once', async () => {
    const database = await createEmptyPostgresDatabase();
    // two handles = two processes' worth of connections
    const a = openDb({ kind: 'postgres', location: database.url });
    const b = openDb({ kind: 'postgres', location: database.url });
    try {
      // allSettled: with one failure, still wait for the other before dropping
      const settled = await Promise.allSettled([applyMigrations({ handle: a }), applyMigrations({ handle: b })]);
      const results = settled.map((r) => (r.status === 'fulfilled' ? r.value.applied : assert.fail(String(r.reason)))).sort((x, y) => y.length - x.length);
      const names = committed.map((m) => m.name);
      assert.deepEqual(results, [names, []]);
      const rows = await migrationRows(a);
      assert.deepEqual(
        rows.map((r) => r.migration_name),
        names,
      );
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });

  test('two concurrent applyMigrations on one PGlite apply once', async () => {
    const { handle, drop } = await emptyPglite();
    try {
      const settled = await Promise.allSettled([applyMigrations({ handle }), applyMigrations({ handle })]);
      const results = settled.map((r) => (r.status === 'fulfilled' ? r.value.applied : assert.fail(String(r.reason)))).sort((x, y) => y.length - x.length);
      assert.deepEqual(results, [committed.map((m) => m.name), []]);
      assert.equal((await migrationRows(handle)).length, committed.length);
    } finally {
      await drop();
    }
  });
});
