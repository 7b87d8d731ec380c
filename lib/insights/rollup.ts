import 'server-only';
import type { Db } from '../db';
import { ALL, COHORT_TABLE, PRECISION_TABLE, RUN_TABLE, add, addAll, keyedColumn, type Counts, type RollupTable } from './tables';
import { loadCohortFacts, loadPrecisionFacts } from './facts';
import { FULL_CUBE, cellKey, foldChanges, foldPrecision, foldRuns, type Cell, type Cells, type Expansion } from './cells';
import type { Tx } from '../db';

// The Insights rollups, kept by the writers. Every transaction that changes
// what Insights counts of a change (ingestion, triage, a run starting or
// ending, a fix found, dropped or gone stale, a decision, a settled label)
// goes through writeTx (lib/writes.ts), whose Insights subscriber calls
// refreshInsightsRollups({ tx, changeIds }) after the writer's last statement. It
// recomputes the "slices" those changes fall in from the raw rows and carries
// the difference up into the roll-ups:
//
// - A cohort slice is one UTC day × repository × author kind: the changes
//   that first failed then. Its rows (every policy / model / trigger cell,
//   roll-ups of those included) are recomputed from the slice's raw rows under
//   an advisory lock on the slice, so a slice can never keep a stale count:
//   whoever refreshes it last saw every committed write before it.
// - A precision slice is one UTC day × repository of fixes (by the day the
//   fix was made), for the settled labels.
// - The rows over every repository ('*') are sums of slice rows: each refresh
//   adds the slice's difference (new − old) to them with one atomic upsert,
//   so concurrent writers never lose a count. (Author kinds and triggers are
//   not rolled up over: readers add those rows, cells.ts FULL_CUBE.)
//
// Locks, always in this order so writers cannot deadlock: shared day locks,
// then the slice locks (each set in hash order), then the '*' rows (in key
// order, one statement per table). The refresh must come last in its
// transaction: a write after it could wait on a row lock held by a writer
// that waits on this one's '*' rows.
//
// Writes that change nothing Insights counts do not refresh: a run's lease
// moving (QUEUED ⇄ RUNNING, the hook's `lease` kind), a grader's label before
// it is settled, events appended while a run works (its gate events count
// once it has ended, and every caller of closeRunTx goes through the hook). What
// counts is cells.ts; a new count there may need a new refresh here, and the
// drift test (test/integration/insights/rollups.test.ts) is where that shows.
//
// rebuildInsightsRollups() recomputes whole days under an exclusive day lock
// (existing databases, the demo seed, the bench), verifyInsightsRollups()
// compares the tables with a recomputation from the raw rows.

type Queryable = Db | Tx;

/** Bumped whenever the meaning of a stored count changes: ensureInsightsRollups() then rebuilds. */
export const ROLLUP_VERSION = 2;
const STATE_KEY = 'insightsRollups';

// first keys of the two-key advisory locks (the change ingestion lock is 0x66667831)
const LOCK = {
  cohortDay: 0x66667832,
  precisionDay: 0x66667833,
  cohortSlice: 0x66667834,
  precisionSlice: 0x66667835,
} as const;

export interface CohortSlice {
  day: string;
  repositoryId: string;
  authorKind: string;
}

export interface PrecisionSlice {
  day: string;
  repositoryId: string;
}

const DAY_MS = 86_400_000;

function dayStart(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`);
}

function nextDay(day: string): Date {
  return new Date(dayStart(day).getTime() + DAY_MS);
}

/** The cohort slice a change falls in (for a change about to move: ingestion may change its author kind). */
export function cohortSliceOf(change: { createdAt: Date; repositoryId: string; authorKind: string }): CohortSlice {
  return { day: change.createdAt.toISOString().slice(0, 10), repositoryId: change.repositoryId, authorKind: change.authorKind };
}

function dedupe<T>(items: T[], key: (t: T) => string): T[] {
  return [...new Map(items.map((t) => [key(t), t])).values()];
}

const sliceKey = (s: CohortSlice) => `${s.day}\u0001${s.repositoryId}\u0001${s.authorKind}`;
const precisionKey = (s: PrecisionSlice) => `${s.day}\u0001${s.repositoryId}`;

async function lockAll(tx: Tx, ns: number, keys: string[], shared: boolean): Promise<void> {
  if (keys.length === 0) return;
  const fn = shared ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  // one statement, taking the locks in hash order
  await tx.$executeRawUnsafe(
    `SELECT ${fn}($1::int4, h) FROM (SELECT DISTINCT hashtext(k) AS h FROM jsonb_array_elements_text($2::jsonb) AS k ORDER BY 1) s`,
    ns,
    JSON.stringify(keys),
  );
}

// ───── reading and writing rows ─────

function columnList(table: RollupTable): string[] {
  return [...table.dims, ...table.scalars, ...table.keyed];
}

function recordsetTypes(table: RollupTable): string {
  return [
    ...table.dims.map((d) => `"${d}" ${d === 'day' ? 'date' : 'text'}`),
    ...table.scalars.map((s) => `"${s}" ${table.bigints.includes(s) ? 'bigint' : 'int'}`),
    ...table.keyed.map((k) => `"${k}" jsonb`),
  ].join(', ');
}

function keyedOf(value: unknown): Record<string, number> | null {
  return (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, number> | null;
}

/** A stored row's counts, added (times `sign`) into `into`. */
export function addRow(table: RollupTable, row: Record<string, unknown>, into: Counts, sign = 1): void {
  for (const s of table.scalars) {
    const n = Number(row[s] ?? 0);
    if (n !== 0) add(into, s, sign * n);
  }
  for (const column of table.keyed) {
    const keyed = keyedOf(row[column]);
    if (keyed) for (const k in keyed) add(into, k, sign * Number(keyed[k]));
  }
}

/** A stored row → its cell (the day as YYYY-MM-DD). */
function rowToCell(table: RollupTable, row: Record<string, unknown>): Cell {
  const counts: Counts = new Map();
  addRow(table, row, counts);
  return { dims: table.dims.map((d) => String(row[d])), counts };
}

function cellToRecord(table: RollupTable, cell: Cell): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  table.dims.forEach((d, i) => (record[d] = cell.dims[i]));
  const scalars = new Set(table.scalars);
  const keyed = Object.fromEntries(table.keyed.map((k) => [k, {} as Record<string, number>]));
  for (const s of table.scalars) record[s] = cell.counts.get(s) ?? 0;
  for (const [k, v] of cell.counts) {
    if (scalars.has(k)) continue;
    const column = keyed[keyedColumn(k)];
    if (!column) throw new Error(`${table.name} keeps no ${k}`);
    column[k] = v;
  }
  Object.assign(record, keyed);
  return record;
}

/** SELECT list of a table's columns with numbers as float8 (exact for our integers), the day as text, and these keyed columns. */
export function selectColumns(table: RollupTable, keyed: readonly string[]): string {
  return [
    ...table.dims.map((d) => (d === 'day' ? `to_char(day, 'YYYY-MM-DD') AS day` : `"${d}"`)),
    ...table.scalars.map((s) => `"${s}"::float8 AS "${s}"`),
    ...table.keyed.filter((k) => keyed.includes(k)).map((k) => `"${k}"`),
  ].join(', ');
}

async function readRows(tx: Queryable, table: RollupTable, where: string, params: unknown[]): Promise<Cells> {
  const rows = await tx.$queryRawUnsafe<Array<Record<string, unknown>>>(
    `SELECT ${selectColumns(table, table.keyed)} FROM "${table.name}" WHERE ${where}`,
    ...params,
  );
  const cells: Cells = new Map();
  for (const row of rows) {
    const cell = rowToCell(table, row);
    cells.set(cellKey(cell.dims), cell);
  }
  return cells;
}

/** A keyed-counts jsonb column of the conflicting row plus the incoming one's, zeros left out. */
const addKeyed = (column: string) => `(SELECT COALESCE(jsonb_object_agg(k, s), '{}'::jsonb) FROM (
    SELECT k, sum(v) AS s FROM (
      SELECT key AS k, value::text::bigint AS v FROM jsonb_each(t."${column}")
      UNION ALL SELECT key, value::text::bigint FROM jsonb_each(excluded."${column}")) u
    GROUP BY k) g WHERE s <> 0)`;

/**
 * Writes cells: 'set' replaces the rows (a slice's own rows, under its lock),
 * 'add' adds them to what is there (the '*' rows: atomic, so concurrent
 * writers both count) and deletes rows left at zero. Rows go in key order.
 */
async function writeCells(tx: Tx, table: RollupTable, cells: Cell[], mode: 'set' | 'add'): Promise<void> {
  if (cells.length === 0) return;
  const records = cells.map((c) => cellToRecord(table, c));
  const cols = columnList(table);
  const quoted = cols.map((c) => `"${c}"`).join(', ');
  const pk = table.dims.map((d) => `"${d}"`).join(', ');
  const update = [
    ...table.scalars.map((s) => (mode === 'set' ? `"${s}" = excluded."${s}"` : `"${s}" = t."${s}" + excluded."${s}"`)),
    ...table.keyed.map((k) => (mode === 'set' ? `"${k}" = excluded."${k}"` : `"${k}" = ${addKeyed(k)}`)),
  ].join(', ');
  await tx.$executeRawUnsafe(
    `INSERT INTO "${table.name}" AS t (${quoted})
     SELECT ${quoted} FROM jsonb_to_recordset($1::jsonb) AS x(${recordsetTypes(table)}) ORDER BY ${pk}
     ON CONFLICT (${pk}) DO UPDATE SET ${update}`,
    JSON.stringify(records),
  );
  if (mode === 'add') {
    const zero = [...table.scalars.map((s) => `t."${s}" = 0`), ...table.keyed.map((k) => `t."${k}" = '{}'::jsonb`)].join(' AND ');
    const match = table.dims.map((d) => `t."${d}" = x."${d}"`).join(' AND ');
    await tx.$executeRawUnsafe(
      `DELETE FROM "${table.name}" t USING jsonb_to_recordset($1::jsonb) AS x(${recordsetTypes(table)}) WHERE ${match} AND ${zero}`,
      JSON.stringify(records),
    );
  }
}

async function deleteCells(tx: Tx, table: RollupTable, cells: Cell[]): Promise<void> {
  if (cells.length === 0) return;
  const match = table.dims.map((d) => `t."${d}" = x."${d}"`).join(' AND ');
  await tx.$executeRawUnsafe(
    `DELETE FROM "${table.name}" t USING jsonb_to_recordset($1::jsonb) AS x(${table.dims.map((d) => `"${d}" ${d === 'day' ? 'date' : 'text'}`).join(', ')}) WHERE ${match}`,
    JSON.stringify(cells.map((c) => cellToRecord(table, c))),
  );
}

function difference(a: Counts | undefined, b: Counts | undefined): Counts {
  const d: Counts = new Map(a ?? []);
  if (b) addAll(d, b, -1);
  return d;
}

function isEmpty(c: Counts): boolean {
  return c.size === 0;
}

/**
 * Replaces a slice's rows with `fresh` and returns the difference to carry
 * into the '*' rows, per slice row.
 */
async function replaceSlice(tx: Tx, table: RollupTable, stored: Cells, fresh: Cells): Promise<Cell[]> {
  const changed: Cell[] = [];
  const removed: Cell[] = [];
  const deltas: Cell[] = [];
  for (const [key, cell] of fresh) {
    const delta = difference(cell.counts, stored.get(key)?.counts);
    if (isEmpty(delta)) continue;
    changed.push(cell);
    deltas.push({ dims: cell.dims, counts: delta });
  }
  for (const [key, cell] of stored) {
    if (fresh.has(key)) continue;
    removed.push(cell);
    deltas.push({ dims: cell.dims, counts: difference(undefined, cell.counts) });
  }
  await deleteCells(tx, table, removed);
  await writeCells(tx, table, changed, 'set');
  return deltas;
}

/** A slice row's difference, added to the row over every repository. */
function rollUp(table: RollupTable, deltas: Cell[], into: Cells): void {
  const repo = table.dims.indexOf('repositoryId');
  for (const delta of deltas) {
    const dims = delta.dims.map((v, i) => (i === repo ? ALL : v));
    const key = cellKey(dims);
    let cell = into.get(key);
    if (!cell) into.set(key, (cell = { dims, counts: new Map() }));
    addAll(cell.counts, delta.counts);
  }
}

/** The slices' own rows: one repository and author kind each, the run dimensions rolled up. */
const SLICE_EXPANSION: Expansion = { ...FULL_CUBE, repositoryId: ['own'] };

// ───── the writers' entry point ─────

/**
 * Brings the rollups of these changes (their cohort slice, and the precision
 * slices of their fixes) up to date with the raw rows, in the caller's
 * transaction. Call it last. `slices`: cohort slices the changes were in
 * before this transaction, when it moved them (ingestion may change a
 * change's author kind).
 */
export async function refreshInsightsRollups({
  tx,
  changeIds = [],
  fixIds = [],
  slices = [],
}: {
  tx: Tx;
  changeIds?: Iterable<string>;
  /** the changes of these fixes */
  fixIds?: Iterable<string>;
  slices?: CohortSlice[];
}): Promise<void> {
  const ids = [...new Set(changeIds)];
  const byFix = [...new Set(fixIds)];
  if (byFix.length > 0) {
    const rows = await tx.$queryRawUnsafe<Array<{ changeId: string }>>(
      `SELECT DISTINCT "changeId" FROM "Fix" WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
      JSON.stringify(byFix),
    );
    for (const r of rows) if (!ids.includes(r.changeId)) ids.push(r.changeId);
  }
  if (ids.length === 0 && slices.length === 0) return;
  const idsJson = JSON.stringify(ids);
  const [cohortRows, precisionRows] = await Promise.all([
    tx.$queryRawUnsafe<CohortSlice[]>(
      `SELECT DISTINCT to_char(c."createdAt", 'YYYY-MM-DD') AS day, c."repositoryId", c."authorKind"::text AS "authorKind"
       FROM "Change" c WHERE c.id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
      idsJson,
    ),
    tx.$queryRawUnsafe<PrecisionSlice[]>(
      `SELECT DISTINCT to_char(f."createdAt", 'YYYY-MM-DD') AS day, c."repositoryId"
       FROM "Fix" f JOIN "Change" c ON c.id = f."changeId" WHERE f."changeId" IN (SELECT jsonb_array_elements_text($1::jsonb))`,
      idsJson,
    ),
  ]);
  const cohort = dedupe([...slices, ...cohortRows], sliceKey).sort((a, b) => sliceKey(a).localeCompare(sliceKey(b)));
  const precision = dedupe(precisionRows, precisionKey).sort((a, b) => precisionKey(a).localeCompare(precisionKey(b)));

  await lockAll(tx, LOCK.cohortDay, [...new Set(cohort.map((s) => s.day))], true);
  await lockAll(tx, LOCK.precisionDay, [...new Set(precision.map((s) => s.day))], true);
  await lockAll(tx, LOCK.cohortSlice, cohort.map(sliceKey), false);
  await lockAll(tx, LOCK.precisionSlice, precision.map(precisionKey), false);

  const cohortUp: Cells = new Map();
  const runUp: Cells = new Map();
  const precisionUp: Cells = new Map();
  for (const s of cohort) {
    const facts = await loadCohortFacts(tx, { from: dayStart(s.day), to: nextDay(s.day), repositoryId: s.repositoryId, authorKind: s.authorKind });
    const where = `"repositoryId" = $1 AND "authorKind" = $2 AND day = $3::date`;
    const params = [s.repositoryId, s.authorKind, s.day];
    const [storedCohort, storedRuns] = [await readRows(tx, COHORT_TABLE, where, params), await readRows(tx, RUN_TABLE, where, params)];
    rollUp(COHORT_TABLE, await replaceSlice(tx, COHORT_TABLE, storedCohort, foldChanges(facts.changes, SLICE_EXPANSION)), cohortUp);
    rollUp(RUN_TABLE, await replaceSlice(tx, RUN_TABLE, storedRuns, foldRuns(facts.runs, SLICE_EXPANSION)), runUp);
  }
  for (const s of precision) {
    const facts = await loadPrecisionFacts(tx, { from: dayStart(s.day), to: nextDay(s.day), repositoryId: s.repositoryId });
    const stored = await readRows(tx, PRECISION_TABLE, `"repositoryId" = $1 AND day = $2::date`, [s.repositoryId, s.day]);
    rollUp(PRECISION_TABLE, await replaceSlice(tx, PRECISION_TABLE, stored, foldPrecision(facts, SLICE_EXPANSION)), precisionUp);
  }
  const nonZero = (cells: Cells) => [...cells.values()].filter((c) => !isEmpty(c.counts));
  await writeCells(tx, COHORT_TABLE, nonZero(cohortUp), 'add');
  await writeCells(tx, RUN_TABLE, nonZero(runUp), 'add');
  await writeCells(tx, PRECISION_TABLE, nonZero(precisionUp), 'add');
}

// ───── rebuild and verify, a day at a time ─────

async function daysToCover(db: Queryable, kind: 'cohort' | 'precision', range?: { from?: string; to?: string }): Promise<string[]> {
  const sql =
    kind === 'cohort'
      ? `SELECT to_char(min(d), 'YYYY-MM-DD') AS first, to_char(max(d), 'YYYY-MM-DD') AS last FROM (
           SELECT min("createdAt")::date AS d FROM "Change" UNION ALL SELECT max("createdAt")::date FROM "Change"
           UNION ALL SELECT min(day) FROM "InsightsCohortDay" UNION ALL SELECT max(day) FROM "InsightsCohortDay"
           UNION ALL SELECT min(day) FROM "InsightsRunDay" UNION ALL SELECT max(day) FROM "InsightsRunDay") x`
      : `SELECT to_char(min(d), 'YYYY-MM-DD') AS first, to_char(max(d), 'YYYY-MM-DD') AS last FROM (
           SELECT min("createdAt")::date AS d FROM "Fix" UNION ALL SELECT max("createdAt")::date FROM "Fix"
           UNION ALL SELECT min(day) FROM "InsightsPrecisionDay" UNION ALL SELECT max(day) FROM "InsightsPrecisionDay") x`;
  const [row] = await db.$queryRawUnsafe<Array<{ first: string | null; last: string | null }>>(sql);
  if (!row?.first || !row.last) return [];
  const first = range?.from && range.from > row.first ? range.from : row.first;
  const last = range?.to && range.to < row.last ? range.to : row.last;
  const days: string[] = [];
  for (let t = dayStart(first).getTime(); t <= dayStart(last).getTime(); t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Every row a day should have, recomputed from the raw rows. */
async function recomputeDay(db: Queryable, kind: 'cohort' | 'precision', day: string): Promise<Array<{ table: RollupTable; cells: Cells }>> {
  if (kind === 'cohort') {
    const facts = await loadCohortFacts(db, { from: dayStart(day), to: nextDay(day) });
    return [
      { table: COHORT_TABLE, cells: foldChanges(facts.changes, FULL_CUBE) },
      { table: RUN_TABLE, cells: foldRuns(facts.runs, FULL_CUBE) },
    ];
  }
  const facts = await loadPrecisionFacts(db, { from: dayStart(day), to: nextDay(day) });
  return [{ table: PRECISION_TABLE, cells: foldPrecision(facts, FULL_CUBE) }];
}

export interface RebuildProgress {
  kind: 'cohort' | 'precision';
  day: string;
  done: number;
  of: number;
}

/**
 * Recomputes the rollups from the raw rows, a day per transaction under an
 * exclusive day lock (writers of that day wait; the rest go on), optionally
 * only for days in [from, to] (YYYY-MM-DD). A rebuild of every day records
 * ROLLUP_VERSION.
 */
export async function rebuildInsightsRollups({
  db,
  from,
  to,
  concurrency = 1,
  onProgress,
}: {
  db: Db;
  from?: string;
  to?: string;
  /** days rebuilt at once (a PostgreSQL server: one per core; PGlite runs one transaction at a time) */
  concurrency?: number;
  onProgress?: (p: RebuildProgress) => void;
}): Promise<{ days: number }> {
  const days = new Set<string>();
  for (const kind of ['cohort', 'precision'] as const) {
    const list = await daysToCover(db, kind, { from, to });
    let next = 0;
    let done = 0;
    const worker = async () => {
      for (let i = next++; i < list.length; i = next++) await rebuildDay(list[i]!);
    };
    const rebuildDay = async (day: string) => {
      await db.$transaction(
        async (tx) => {
          await lockAll(tx, kind === 'cohort' ? LOCK.cohortDay : LOCK.precisionDay, [day], false);
          for (const { table, cells } of await recomputeDay(tx, kind, day)) {
            await tx.$executeRawUnsafe(`DELETE FROM "${table.name}" WHERE day = $1::date`, day);
            const all = [...cells.values()];
            // bounded statements: a busy day has thousands of rows
            for (let j = 0; j < all.length; j += 2000) await writeCells(tx, table, all.slice(j, j + 2000), 'set');
          }
        },
        { timeout: 600_000, maxWait: 600_000 },
      );
      days.add(day);
      onProgress?.({ kind, day, done: ++done, of: list.length });
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, list.length)) }, worker));
  }
  if (from === undefined && to === undefined) {
    const value = { version: ROLLUP_VERSION, builtAt: new Date().toISOString() };
    await db.systemSetting.upsert({ where: { key: STATE_KEY }, create: { key: STATE_KEY, value }, update: { value } });
  }
  return { days: days.size };
}

export interface RollupDifference {
  table: string;
  dims: string[];
  key: string;
  stored: number;
  recomputed: number;
}

/**
 * Compares the stored rollups with a recomputation from the raw rows, a day
 * at a time in a read-only snapshot (the writers keep both in one
 * transaction, so a snapshot sees them agree). Returns every difference.
 */
export async function verifyInsightsRollups({
  db,
  from,
  to,
  limit = 100,
}: {
  db: Db;
  from?: string;
  to?: string;
  limit?: number;
}): Promise<{ days: number; differences: RollupDifference[] }> {
  const differences: RollupDifference[] = [];
  const days = new Set<string>();
  for (const kind of ['cohort', 'precision'] as const) {
    for (const day of await daysToCover(db, kind, { from, to })) {
      days.add(day);
      await db.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
          for (const { table, cells } of await recomputeDay(tx, kind, day)) {
            const stored = await readRows(tx, table, 'day = $1::date', [day]);
            for (const key of new Set([...cells.keys(), ...stored.keys()])) {
              const a = stored.get(key);
              const b = cells.get(key);
              const dims = (a ?? b)!.dims;
              for (const k of new Set([...(a?.counts.keys() ?? []), ...(b?.counts.keys() ?? [])])) {
                const s = a?.counts.get(k) ?? 0;
                const r = b?.counts.get(k) ?? 0;
                if (s !== r && differences.length < limit) differences.push({ table: table.name, dims, key: k, stored: s, recomputed: r });
              }
            }
          }
        },
        { timeout: 600_000, maxWait: 60_000 },
      );
    }
  }
  return { days: days.size, differences };
}

/** Rebuilds when the stored rollups were made by another definition (ROLLUP_VERSION) or never. */
export async function ensureInsightsRollups({
  db,
  concurrency,
  onProgress,
}: {
  db: Db;
  concurrency?: number;
  onProgress?: (p: RebuildProgress) => void;
}): Promise<{ rebuilt: boolean; days: number }> {
  const state = await db.systemSetting.findUnique({ where: { key: STATE_KEY } });
  const version = (state?.value as { version?: unknown } | null)?.version;
  if (version === ROLLUP_VERSION) return { rebuilt: false, days: 0 };
  const { days } = await rebuildInsightsRollups({ db, concurrency, onProgress });
  return { rebuilt: true, days };
}
