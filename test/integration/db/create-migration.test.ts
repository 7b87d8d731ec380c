import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openDb } from '../../../lib/db';
import { DEFAULT_MIGRATIONS_DIR, applyMigrations, readMigrations } from '../../../scripts/db/migrate';
import { diffDatabaseToSchema, engineDatabaseFor, readSchemaFile } from '../../../scripts/db/schema-engine';

// The workflow in prisma/README.md: edit schema.prisma, run
// `npm run db:migrate:create -- <name>`, commit the new folder. Exercised on
// copies of the schema and the migrations so the repository is untouched.

const run = promisify(execFile);

async function createMigration({ name, schema, migrations }: { name: string; schema: string; migrations: string }) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/db.ts', 'create', name, '--schema', schema, '--migrations', migrations], {
    cwd: process.cwd(),
  });
  return stdout;
}

test('db:migrate:create writes the next migration for each schema change, and nothing when there is none', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-create-'));
  const schema = path.join(tmp, 'schema.prisma');
  const migrations = path.join(tmp, 'migrations');
  try {
    fs.cpSync(DEFAULT_MIGRATIONS_DIR, migrations, { recursive: true });
    const original = fs.readFileSync(path.resolve('prisma', 'schema.prisma'), 'utf8');
    const widget = (kinds: string) => `${original}
enum WidgetKind {
${kinds}
}

model Widget {
  id   String     @id
  name String
  kind WidgetKind @default(SMALL)
  @@index([name])
}
`;
    fs.writeFileSync(schema, widget('  SMALL\n  LARGE'));
    const before = readMigrations({ dir: migrations }).map((m) => m.name);

    const stdout = await createMigration({ name: 'Add widget!', schema, migrations });
    const after = readMigrations({ dir: migrations });
    assert.deepEqual(
      after.slice(0, -1).map((m) => m.name),
      before,
    );
    const created = after.at(-1) ?? assert.fail('no migration created');
    assert.match(created.name, /^\d{14}_add_widget$/);
    assert.ok(created.name > (before.at(-1) ?? ''), 'the new migration sorts last');
    assert.match(stdout, new RegExp(`Created .*${created.name}/migration\\.sql`));
    assert.match(created.sql, /CREATE TYPE "WidgetKind" AS ENUM \('SMALL', 'LARGE'\)/);
    assert.match(created.sql, /CREATE TABLE "Widget"/);
    assert.match(created.sql, /CREATE INDEX "Widget_name_idx"/);
    assert.doesNotMatch(created.sql, /CREATE TABLE "User"/, 'only the change, not the whole schema');

    const again = await createMigration({ name: 'again', schema, migrations });
    assert.match(again, /No changes/);
    assert.equal(readMigrations({ dir: migrations }).length, after.length);

    // dropping an enum value: Prisma writes that step inside its own BEGIN/COMMIT
    fs.writeFileSync(schema, widget('  SMALL'));
    await createMigration({ name: 'drop large widgets', schema, migrations });
    const dropped = readMigrations({ dir: migrations }).at(-1) ?? assert.fail('no migration created');
    assert.match(dropped.name, /^\d{14}_drop_large_widgets$/);
    assert.ok(dropped.name > created.name);
    assert.match(dropped.sql, /^BEGIN;$[\s\S]*CREATE TYPE "WidgetKind_new" AS ENUM \('SMALL'\)[\s\S]*^COMMIT;$/m);

    // the folder now migrates a fresh database to exactly the edited schema
    const handle = openDb({ kind: 'pglite', location: 'memory' });
    try {
      await applyMigrations({ handle, dir: migrations });
      const diff = await diffDatabaseToSchema({
        database: engineDatabaseFor({ target: handle.target, pglite: handle.pglite }),
        schema: readSchemaFile({ schemaPath: schema }),
      });
      assert.equal(diff.empty, true, diff.script);
    } finally {
      await handle.close();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
