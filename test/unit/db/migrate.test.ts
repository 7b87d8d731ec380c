import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checksumOf,
  compareMigrations,
  matchesChecksum,
  scriptForTransaction,
  type AppliedMigrationRow,
  type MigrationFile,
} from '../../../scripts/db/migrate';

function file(name: string, sql: string): MigrationFile {
  return { name, sql, checksum: checksumOf(sql) };
}

function row(name: string, checksum: string, over: Partial<AppliedMigrationRow> = {}): AppliedMigrationRow {
  return {
    id: '00000000-0000-4000-8000-000000000000',
    checksum,
    finished_at: new Date(2),
    migration_name: name,
    logs: null,
    rolled_back_at: null,
    started_at: new Date(1),
    applied_steps_count: 1,
    ...over,
  };
}

test('checksumOf is the sha256 hex Prisma records, of the bytes', () => {
  assert.equal(checksumOf('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(checksumOf(Buffer.from('é\n', 'utf8')), checksumOf('é\n'));
});

test('a checkout that only changed line endings still matches', () => {
  const lf = file('1_a', 'CREATE TABLE a ();\nCREATE TABLE b ();\n');
  const crlf = file('1_a', 'CREATE TABLE a ();\r\nCREATE TABLE b ();\r\n');
  assert.equal(matchesChecksum({ migration: crlf, checksum: lf.checksum }), true);
  assert.equal(matchesChecksum({ migration: lf, checksum: crlf.checksum }), true);
  assert.equal(matchesChecksum({ migration: lf, checksum: checksumOf('CREATE TABLE a ();\n') }), false);
});

test('compareMigrations sorts files into applied, pending, edited, failed and unknown', () => {
  const a = file('1_a', 'A');
  const b = file('2_b', 'B');
  const c = file('3_c', 'C');
  const d = file('4_d', 'D');
  const status = compareMigrations({
    files: [a, b, c, d],
    rows: [
      row('1_a', a.checksum),
      row('2_b', checksumOf('B before an edit')),
      row('3_c', c.checksum, { finished_at: null, applied_steps_count: 0 }),
      // rolled back rows are history only: 4_d is pending again
      row('4_d', d.checksum, { rolled_back_at: new Date(3) }),
      row('0_gone', checksumOf('gone')),
    ],
  });
  assert.deepEqual(status, {
    applied: ['1_a', '2_b'],
    pending: ['4_d'],
    edited: ['2_b'],
    failed: ['3_c'],
    unknown: ['0_gone'],
  });
});

test("scriptForTransaction drops Prisma's own BEGIN/COMMIT lines so the runner's transaction spans the script", () => {
  const sql = '-- AlterEnum\nBEGIN;\nCREATE TYPE "X_new" AS ENUM (\'A\');\nCOMMIT;\n\nCREATE TABLE t ();\n';
  assert.equal(scriptForTransaction(sql), '-- AlterEnum\n\nCREATE TYPE "X_new" AS ENUM (\'A\');\n\n\nCREATE TABLE t ();\n');
});

test('scriptForTransaction leaves scripts with dollar-quoted bodies as written', () => {
  const sql = 'CREATE PROCEDURE p() LANGUAGE plpgsql AS $$\nBEGIN\n  INSERT INTO t VALUES (1);\nCOMMIT;\nEND $$;\n';
  assert.equal(scriptForTransaction(sql), sql);
});
