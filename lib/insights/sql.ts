// Raw SQL helpers of the Insights modules.

/** Positional parameters for $queryRawUnsafe: add() returns the placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

/**
 * An instant as a parameter comparable with our columns: they are
 * TIMESTAMP(3) without time zone holding UTC wall time, and PostgreSQL drops
 * the "Z" of an ISO string cast to timestamp, whatever the session's zone.
 */
export function utc(at: Date, p: SqlParams): string {
  return p.add(at.toISOString(), 'timestamp');
}
