import 'server-only';
import path from 'node:path';
import fs from 'node:fs';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from './generated/prisma/client';
import { getEnv } from './env';

// The one database client of a process. DATABASE_URL picks the backend:
//   postgresql://…      a PostgreSQL server (any number of processes)
//   pglite:///abs/dir   embedded PostgreSQL (PGlite) persisted in that folder
//   pglite://memory     embedded, in memory (tests)
//   unset               embedded, in $FLOWFIX_DATA_DIR/pglite
// PGlite allows one owning process per folder: the web server owns it in
// embedded mode and runs the worker in-process.

export type Db = PrismaClient;
/** The client inside a transaction (lib/writes.ts writeTx gives one). */
export type Tx = Prisma.TransactionClient;

export interface DbTarget {
  kind: 'postgres' | 'pglite';
  /** connection string for postgres; folder or 'memory' for pglite */
  location: string;
}

export function resolveDbTarget(url: string | undefined, dataDir: string): DbTarget {
  if (!url) return { kind: 'pglite', location: path.resolve(dataDir, 'pglite') };
  if (url.startsWith('pglite://')) {
    const rest = url.slice('pglite://'.length);
    return { kind: 'pglite', location: rest === 'memory' ? 'memory' : path.resolve(rest) };
  }
  return { kind: 'postgres', location: url };
}

export interface DbHandle {
  db: PrismaClient;
  target: DbTarget;
  /** the PGlite instance in embedded mode (for raw SQL and the queue) */
  pglite?: PGlite;
  close(): Promise<void>;
}

/**
 * PostgreSQL extensions the migrations use (pg_trgm: the triage list's
 * substring search indexes). A server ships them; PGlite must load them into
 * every instance that runs the migrations, shadow databases included.
 */
export const PGLITE_EXTENSIONS = { pg_trgm } as const;

/** A PGlite instance with flowfix's extensions; `dataDir` undefined = in memory. */
export function createPGlite(dataDir?: string, options: Omit<PGliteOptions, 'extensions'> = {}): PGlite {
  // the options-object form: PGlite ignores a second argument when the first is undefined
  return new PGlite({ ...options, dataDir, extensions: PGLITE_EXTENSIONS });
}

export function openDb(target: DbTarget): DbHandle {
  if (target.kind === 'postgres') {
    const adapter = new PrismaPg({ connectionString: target.location, max: 10 });
    const db = new PrismaClient({ adapter });
    return { db, target, close: () => db.$disconnect() };
  }
  if (target.location !== 'memory') fs.mkdirSync(target.location, { recursive: true });
  const pglite = createPGlite(target.location === 'memory' ? undefined : target.location);
  const db = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    db,
    target,
    pglite,
    close: async () => {
      await db.$disconnect();
      await pglite.close();
    },
  };
}

const globalForDb = globalThis as unknown as { __flowfixDb?: DbHandle };

/** The process-wide handle, opened on first use from the environment. */
export function getDbHandle(): DbHandle {
  if (!globalForDb.__flowfixDb) {
    const env = getEnv();
    globalForDb.__flowfixDb = openDb(resolveDbTarget(env.DATABASE_URL, env.FLOWFIX_DATA_DIR));
  }
  return globalForDb.__flowfixDb;
}

/** The process-wide Prisma client. */
export function getDb(): PrismaClient {
  return getDbHandle().db;
}

/** For tests and scripts that manage their own database. */
export function setDbHandle(handle: DbHandle | undefined): void {
  globalForDb.__flowfixDb = handle;
}

export async function closeDb(): Promise<void> {
  const handle = globalForDb.__flowfixDb;
  globalForDb.__flowfixDb = undefined;
  await handle?.close();
}
