import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getDb } from '../../../lib/db';
import { readMigrations } from '../../../scripts/db/migrate';
import { createTestDb, migratedDumpPath, type TestDbKind } from '../../helpers/test-db';

// createTestDb() must hand out fresh, fully migrated databases on both
// backends and install each as the process handle.

for (const kind of ['pglite', 'postgres'] as TestDbKind[]) {
  test(`createTestDb({ kind: '${kind}' }) gives a fresh migrated database installed as the process handle`, async () => {
    const migrations = readMigrations().map((m) => m.name);
    // twice: the second PGlite comes from the dump of the first, and must not share its data
    for (let round = 0; round < 2; round++) {
      const testDb = await createTestDb({ kind });
      try {
        assert.equal(getDb(), testDb.db);
        assert.equal(testDb.target.kind, kind);
        const applied = await testDb.db.$queryRawUnsafe<{ migration_name: string }[]>(
          'SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name',
        );
        assert.deepEqual(
          applied.map((r) => r.migration_name),
          migrations,
        );
        assert.equal(await getDb().user.count(), 0);
        await getDb().user.create({ data: { email: `round${round}@example.test`, name: 'Test', roles: ['ADMIN'] } });
        assert.equal(await testDb.db.user.count(), 1);
      } finally {
        await testDb.drop();
      }
    }
  });
}

test('drop() of a postgres test database removes the database', async () => {
  const testDb = await createTestDb({ kind: 'postgres' });
  const url = new URL(testDb.target.location);
  const name = url.pathname.slice(1);
  assert.match(name, /^flowfix_test_[0-9a-f]+$/);
  await testDb.drop();
  const probe = await createTestDb({ kind: 'postgres' });
  try {
    const rows = await probe.db.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM pg_database WHERE datname = $1', name);
    assert.equal(rows[0]?.n, 0);
  } finally {
    await probe.drop();
  }
});

test('the migrated PGlite dump other test processes load is named by the migrations: a changed or added migration names another', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'flowfix-migrations-'));
  try {
    cpSync(path.resolve('prisma', 'migrations'), dir, { recursive: true });
    const same = migratedDumpPath(dir);
    assert.equal(same, migratedDumpPath());
    const last = readMigrations().at(-1)!.name;
    writeFileSync(path.join(dir, last, 'migration.sql'), '-- edited\n', { flag: 'a' });
    const edited = migratedDumpPath(dir);
    assert.notEqual(edited, same);
    cpSync(path.join(dir, last), path.join(dir, '29991231000000_later'), { recursive: true });
    assert.notEqual(migratedDumpPath(dir), edited);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
