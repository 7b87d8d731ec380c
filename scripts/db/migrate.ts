import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { DbHandle } from '../../lib/db';

// Applies the committed prisma/migrations/*/migration.sql files without the
// Prisma CLI (its native engine cannot be downloaded here), and records them
// in `_prisma_migrations` exactly as `prisma migrate deploy` does, so a
// machine with the CLI later agrees (`prisma migrate status`).
//
// Differences from the CLI, on purpose:
// - each migration runs in one transaction together with its bookkeeping
//   row, so a failure leaves neither half-applied DDL nor a failed row: the
//   migration simply stays pending and the error names it;
// - an applied migration whose file changed is refused (the CLI only warns).

/** The key of Prisma's own advisory lock, so our runner and the CLI exclude each other. */
export const PRISMA_ADVISORY_LOCK_KEY = 72707369;

// Relative to the working directory, not to this file: under `next build` this
// module is bundled into .next/, while npm scripts, tests and `next start` all
// run from the repository root.
export const DEFAULT_MIGRATIONS_DIR = path.resolve('prisma', 'migrations');

export interface MigrationFile {
  /** folder name, e.g. 20261130125429_init */
  name: string;
  sql: string;
  /** sha256 hex of the file's bytes, as Prisma computes it */
  checksum: string;
}

export interface AppliedMigrationRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

export function checksumOf(bytes: Buffer | string): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/**
 * Like Prisma, a checkout that only converted line endings (git autocrlf)
 * still matches the checksum recorded on another machine.
 */
export function matchesChecksum({ migration, checksum }: { migration: MigrationFile; checksum: string }): boolean {
  if (migration.checksum === checksum) return true;
  const lf = migration.sql.replace(/\r\n/g, '\n');
  return checksumOf(lf) === checksum || checksumOf(lf.replace(/\n/g, '\r\n')) === checksum;
}

/** The committed migrations, oldest first (folder names sort by timestamp). */
export function readMigrations({ dir = DEFAULT_MIGRATIONS_DIR }: { dir?: string } = {}): MigrationFile[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const bytes = fs.readFileSync(path.join(dir, name, 'migration.sql'));
      return { name, sql: bytes.toString('utf8'), checksum: checksumOf(bytes) };
    });
}

// Same DDL as the Prisma schema engine's PostgreSQL connector.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
);`;

/** The few SQL operations the runner needs, over PGlite or a pg client. */
interface SqlRunner {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  exec(script: string): Promise<void>;
}

interface Session extends SqlRunner {
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /** holds Prisma's advisory lock (and an in-process mutex) while fn runs */
  locked<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function pgliteRunner(db: PGlite | Transaction): SqlRunner {
  return {
    query: async <T>(sql: string, params?: unknown[]) => (await db.query<T>(sql, params)).rows,
    exec: async (script: string) => {
      await db.exec(script);
    },
  };
}

// PGlite is one backend session for the whole process, where a session-level
// advisory lock is re-entrant, so calls within this process are serialised
// by a promise chain per PGlite instance as well.
const pgliteQueues = new WeakMap<PGlite, Promise<unknown>>();

function serialiseOn<T>(pglite: PGlite, fn: () => Promise<T>): Promise<T> {
  const previous = pgliteQueues.get(pglite) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  pgliteQueues.set(
    pglite,
    next.catch(() => undefined),
  );
  return next;
}

function pgliteSession(pglite: PGlite): Session {
  const runner = pgliteRunner(pglite);
  return {
    ...runner,
    transaction: (fn) => pglite.transaction((tx) => fn(pgliteRunner(tx))),
    locked: (fn) =>
      serialiseOn(pglite, async () => {
        await runner.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
        try {
          return await fn();
        } finally {
          await runner.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
        }
      }),
    close: async () => undefined,
  };
}

async function postgresSession(url: string): Promise<Session> {
  // A dedicated connection: the advisory lock belongs to a session, and the
  // Prisma client's pool would spread lock, DDL and unlock over several.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const runner: SqlRunner = {
    query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
    exec: async (script: string) => {
      // no parameters → simple query protocol, which allows many statements
      await client.query(script);
    },
  };
  return {
    ...runner,
    transaction: async (fn) => {
      await client.query('BEGIN');
      try {
        const result = await fn(runner);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
    locked: async (fn) => {
      await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
      }
    },
    close: () => client.end(),
  };
}

async function openSession(handle: DbHandle): Promise<Session> {
  if (handle.target.kind === 'postgres') return postgresSession(handle.target.location);
  if (!handle.pglite) throw new MigrationError('applyMigrations: the PGlite handle has no PGlite instance');
  return pgliteSession(handle.pglite);
}

async function withSession<T>(handle: DbHandle, fn: (session: Session) => Promise<T>): Promise<T> {
  const session = await openSession(handle);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

async function migrationsTableExists(db: SqlRunner): Promise<boolean> {
  const rows = await db.query<{ exists: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS "exists"`);
  return rows[0]?.exists === true;
}

async function readAppliedRows(db: SqlRunner): Promise<AppliedMigrationRow[]> {
  if (!(await migrationsTableExists(db))) return [];
  return db.query<AppliedMigrationRow>(
    `SELECT id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count
       FROM "_prisma_migrations" ORDER BY started_at ASC, migration_name ASC`,
  );
}

export interface MigrationStatus {
  /** migration names applied and still present in the folder */
  applied: string[];
  /** in the folder, not yet applied */
  pending: string[];
  /** applied, but the file's checksum no longer matches */
  edited: string[];
  /** started and never finished (by the Prisma CLI; our runner never leaves these) */
  failed: string[];
  /** applied to the database but missing from the folder */
  unknown: string[];
}

export function compareMigrations({ files, rows }: { files: MigrationFile[]; rows: AppliedMigrationRow[] }): MigrationStatus {
  const live = rows.filter((r) => r.rolled_back_at === null);
  const finished = new Map(live.filter((r) => r.finished_at !== null).map((r) => [r.migration_name, r]));
  const failed = live.filter((r) => r.finished_at === null).map((r) => r.migration_name);
  const names = new Set(files.map((f) => f.name));
  return {
    applied: files.filter((f) => finished.has(f.name)).map((f) => f.name),
    pending: files.filter((f) => !finished.has(f.name) && !failed.includes(f.name)).map((f) => f.name),
    edited: files
      .filter((f) => {
        const row = finished.get(f.name);
        return row !== undefined && !matchesChecksum({ migration: f, checksum: row.checksum });
      })
      .map((f) => f.name),
    failed,
    unknown: [...finished.keys()].filter((name) => !names.has(name)),
  };
}

function refuseUnsafeHistory(status: MigrationStatus): void {
  if (status.edited.length > 0) {
    throw new MigrationError(
      `Refusing to migrate: applied migration(s) ${status.edited.join(', ')} were changed after being applied ` +
        `(checksum mismatch). Restore the committed file, or create a new migration instead of editing an applied one.`,
    );
  }
  if (status.failed.length > 0) {
    throw new MigrationError(
      `Refusing to migrate: migration(s) ${status.failed.join(', ')} failed earlier and are recorded as unfinished in ` +
        `_prisma_migrations. Fix the database by hand, then mark them rolled back (prisma migrate resolve --rolled-back).`,
    );
  }
}

const TRANSACTION_CONTROL_LINE = /^[ \t]*(BEGIN|COMMIT)[ \t]*;[ \t]*$/gim;

/**
 * The script to run inside the runner's transaction. Prisma wraps some steps
 * (enum changes) in their own `BEGIN;` … `COMMIT;` lines; inside our
 * transaction that COMMIT would end it early and make the rest of the
 * migration non-atomic, so those lines are dropped. Not when the script has
 * dollar-quoted bodies, where such a line might belong to a procedure: it
 * then runs as written (Prisma's own behaviour).
 */
export function scriptForTransaction(sql: string): string {
  if (/\$[A-Za-z_0-9]*\$/.test(sql)) return sql;
  return sql.replace(TRANSACTION_CONTROL_LINE, '');
}

async function applyOne({ session, migration }: { session: Session; migration: MigrationFile }): Promise<void> {
  try {
    await session.transaction(async (tx) => {
      const id = crypto.randomUUID();
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), 0)`,
        [id, migration.checksum, migration.name],
      );
      await tx.exec(scriptForTransaction(migration.sql));
      // clock_timestamp(): now() is frozen at the start of the transaction
      await tx.query(`UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`, [id]);
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(`Migration ${migration.name} failed and was rolled back: ${reason}`, { cause: error });
  }
}

export interface ApplyMigrationsResult {
  applied: string[];
}

/**
 * Applies every pending committed migration, oldest first, under Prisma's
 * advisory lock. Idempotent; a second process waits for the lock and then
 * finds nothing to do.
 */
export async function applyMigrations({ handle, dir = DEFAULT_MIGRATIONS_DIR }: { handle: DbHandle; dir?: string }): Promise<ApplyMigrationsResult> {
  const files = readMigrations({ dir });
  return withSession(handle, (session) =>
    session.locked(async () => {
      await session.exec(CREATE_MIGRATIONS_TABLE);
      const status = compareMigrations({ files, rows: await readAppliedRows(session) });
      refuseUnsafeHistory(status);
      const pending = files.filter((f) => status.pending.includes(f.name));
      for (const migration of pending) {
        await applyOne({ session, migration });
      }
      return { applied: pending.map((m) => m.name) };
    }),
  );
}

/** Compares the folder with the database's `_prisma_migrations`, changing nothing. */
export async function getMigrationStatus({
  handle,
  dir = DEFAULT_MIGRATIONS_DIR,
}: {
  handle: DbHandle;
  dir?: string;
}): Promise<MigrationStatus & { rows: AppliedMigrationRow[] }> {
  const files = readMigrations({ dir });
  return withSession(handle, async (session) => {
    const rows = await readAppliedRows(session);
    return { ...compareMigrations({ files, rows }), rows };
  });
}
