import 'server-only';
import crypto from 'node:crypto';
import pg from 'pg';

// Throw-away databases on a PostgreSQL server, for tests and benchmarks:
// created empty under a random name, dropped WITH (FORCE) so a pool someone
// forgot to close cannot leak the database.

export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Runs `fn` on a short-lived connection to `serverUrl`. */
export async function onServer<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates `<prefix>_<random>` on the server at `serverUrl` (any database URL on it). */
export async function createScratchDatabase({ serverUrl, prefix }: { serverUrl: string; prefix: string }): Promise<ScratchDatabase> {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
