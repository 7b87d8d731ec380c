import 'server-only';
import type { Db } from '../db';
import { ALL, COHORT_TABLE, PRECISION_TABLE, REPAIR, add, addAll, HISTOGRAM_COLUMN, keyedColumn, type Counts, type RollupTable } from './tables';
import { loadCohortFacts, loadPrecisionFacts, type CohortFacts, type PrecisionFact } from './facts';
import { cellKey, foldChanges, foldPrecision, foldRuns, type Cell, type Choice } from './cells';
import { addRow, selectColumns } from './rollup';
import { addToHistogram, type Histogram } from './histogram';
import { SqlParams, utc } from './sql';
import type { Tx } from '../db';

// Reading the rollups for a period. Whole UTC days come from the rollup rows;
// a period that starts or ends inside a day takes that day's part from the
// raw rows, folded by the same definitions (cells.ts): either the part inside
// the period is added, or the whole day's rollup row is read and the part
// outside subtracted, whichever covers fewer changes (an empty part is not
// read). So the figures are those of the period to the millisecond. The
// Insights periods are whole days ending now: today's rollup row, less the
// rest of today, which is empty, so they read no raw rows; the grading
// page's precision takes any instants.
//
// All of a page's reads run in one read-only REPEATABLE READ transaction
// (withInsightsSnapshot): the rollups and the raw rows are read as of one
// moment, and writers update both in one transaction, so they agree.

/** In a CellQuery: one cell per value of this dimension (a breakdown). */
export const OWN = '\u0000own';

/** In a CellQuery: a value (ALL: the roll-up row over every value; REPAIR for triggers), a list of values, or OWN. */
export type DimFilter = string | readonly string[];

export interface CellQuery {
  table: RollupTable;
  /**
   * per dimension but the day. Author kinds and triggers have no '*' rows
   * (cells.ts FULL_CUBE): every author kind is OWN (the rows added up), every
   * trigger the list REPAIR and REVALIDATE.
   */
  where: Record<string, DimFilter>;
  /** read the keyed counts (reasons) too; breakdowns need only the scalar counts */
  counters?: boolean;
  /** the histograms to read too, by their COUNTER prefix (latency, cost) */
  histograms?: readonly string[];
}

/** the jsonb columns a query reads */
function keyedOf(q: CellQuery): string[] {
  return [...(q.counters ? ['counters'] : []), ...(q.histograms ?? []).map((prefix) => HISTOGRAM_COLUMN[prefix]!)];
}

function memoKey(kind: string, q: CellQuery, extra = ''): string {
  return [kind, q.table.name, JSON.stringify(q.where), keyedOf(q).join(','), extra].join('\u0001');
}

export interface Period {
  /** inclusive; null: since the beginning */
  from: Date | null;
  /** exclusive; null: no end */
  to: Date | null;
}

const DAY_MS = 86_400_000;
const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

interface RawPart {
  from: Date;
  to: Date;
  sign: 1 | -1;
}

interface Split {
  /** whole days read from the rollups: [first, end) as YYYY-MM-DD, null = unbounded */
  first: string | null;
  end: string | null;
  /** partial days whose whole rollup row is read (their outside part is subtracted) */
  extraDays: string[];
  raw: RawPart[];
}

type Family = 'cohort' | 'precision';

export function withInsightsSnapshot<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      return fn(tx);
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
}

export class InsightsReader {
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(
    readonly tx: Tx,
    readonly period: Period,
  ) {}

  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let p = this.memo.get(key) as Promise<T> | undefined;
    if (!p) {
      p = make();
      this.memo.set(key, p);
    }
    return p;
  }

  /** The cells of the period matching `q`, one per day and dimension values, rollup rows and raw parts merged. */
  cells(q: CellQuery): Promise<Cell[]> {
    return this.once(memoKey('cells', q), () => this.readCells(q));
  }

  /**
   * The counts of the period matching `q`, added up: the rollup rows summed
   * by the database (a histogram column is a thousand keys a row), the raw
   * parts folded here.
   */
  total(q: CellQuery): Promise<Counts> {
    return this.once(memoKey('total', q), async () => {
      const { family, repo, author } = this.target(q);
      const split = await this.split(family, repo, author);
      const { where, params } = this.rollupWhere(q, split);
      // one statement: every scalar and keyed count of the rows as (name, value), added up
      const parts = [
        `SELECT s.key, s.value FROM (VALUES ${q.table.scalars.map((s) => `('${s}', t."${s}"::float8)`).join(', ')}) s(key, value)`,
        ...keyedOf(q).map((k) => `SELECT key, value::float8 FROM jsonb_each_text(t."${k}")`),
      ];
      const rows = await this.tx.$queryRawUnsafe<Array<{ key: string; n: unknown }>>(
        `SELECT e.key, sum(e.value)::float8 AS n FROM "${q.table.name}" t, LATERAL (${parts.join(' UNION ALL ')}) e
         WHERE ${where} GROUP BY e.key`,
        ...params,
      );
      const sum: Counts = new Map();
      for (const r of rows) add(sum, r.key, Number(r.n));
      for (const part of split.raw) {
        for (const cell of await this.rawCells(q, family, part, repo, author)) addAll(sum, cell.counts, part.sign);
      }
      return sum;
    });
  }

  /**
   * The scalar counts of the period matching `q`, added up per value of the
   * dimensions `by` (the day, a repository, a policy and model, …): the
   * rollup rows summed by the database, the raw parts folded here. Keyed by
   * the values joined with \u0001, in `by` order.
   */
  sums(q: CellQuery, by: readonly string[]): Promise<Map<string, { group: Record<string, string>; counts: Counts }>> {
    return this.once(memoKey('sums', q, by.join(',')), async () => {
      const { family, repo, author } = this.target(q);
      const split = await this.split(family, repo, author);
      const { where, params } = this.rollupWhere(q, split);
      const groupCols = by.map((d) => (d === 'day' ? `to_char(day, 'YYYY-MM-DD')` : `"${d}"`));
      const rows = await this.tx.$queryRawUnsafe<Array<Record<string, unknown>>>(
        `SELECT ${[...groupCols.map((c, i) => `${c} AS g${i}`), ...q.table.scalars.map((s) => `sum("${s}")::float8 AS "${s}"`)].join(', ')}
         FROM "${q.table.name}" WHERE ${where}${by.length ? ` GROUP BY ${by.map((_, i) => i + 1).join(', ')}` : ''}`,
        ...params,
      );
      const out = new Map<string, { group: Record<string, string>; counts: Counts }>();
      const into = (values: string[]) => {
        const key = values.join('\u0001');
        let entry = out.get(key);
        if (!entry) out.set(key, (entry = { group: Object.fromEntries(by.map((d, i) => [d, values[i]!])), counts: new Map() }));
        return entry.counts;
      };
      for (const row of rows) {
        const counts = into(by.map((_, i) => String(row[`g${i}`])));
        for (const s of q.table.scalars) {
          const v = Number(row[s] ?? 0);
          if (v !== 0) add(counts, s, v);
        }
      }
      const scalars = new Set(q.table.scalars);
      const at = by.map((d) => q.table.dims.indexOf(d));
      for (const part of split.raw) {
        for (const cell of await this.rawCells(q, family, part, repo, author)) {
          const counts = into(at.map((i) => cell.dims[i]!));
          for (const [k, v] of cell.counts) if (scalars.has(k)) add(counts, k, part.sign * v);
        }
      }
      for (const [key, entry] of out) if (entry.counts.size === 0) out.delete(key);
      return out;
    });
  }

  private target(q: CellQuery): { family: Family; repo: string | undefined; author: string | undefined } {
    return {
      family: q.table === PRECISION_TABLE ? 'precision' : 'cohort',
      repo: specific(q.where.repositoryId),
      author: q.table.dims.includes('authorKind') ? specific(q.where.authorKind) : undefined,
    };
  }

  private async readCells(q: CellQuery): Promise<Cell[]> {
    const { family, repo, author } = this.target(q);
    const split = await this.split(family, repo, author);
    const merged = await this.rollupRows(q, split);
    for (const part of split.raw) {
      for (const cell of await this.rawCells(q, family, part, repo, author)) {
        const key = cellKey(cell.dims);
        let into = merged.get(key);
        if (!into) merged.set(key, (into = { dims: cell.dims, counts: new Map() }));
        addAll(into.counts, cell.counts, part.sign);
      }
    }
    return [...merged.values()].filter((c) => c.counts.size > 0);
  }

  /** Which days come whole from the rollups and which parts from the raw rows. */
  private split(family: Family, repo: string | undefined, author: string | undefined): Promise<Split> {
    return this.once(`split\u0001${family}\u0001${repo}\u0001${author}`, async () => {
      const { from, to } = this.period;
      const split: Split = { first: null, end: null, extraDays: [], raw: [] };
      if (from && to && from >= to) return { first: '0000-01-01', end: '0000-01-01', extraDays: [], raw: [] };
      const fromDay = from ? Math.floor(from.getTime() / DAY_MS) * DAY_MS : null;
      const toDay = to ? Math.floor(to.getTime() / DAY_MS) * DAY_MS : null;
      const partials: Array<{ day: number; a: number; b: number }> = [];
      if (from && fromDay !== null) {
        const whole = from.getTime() === fromDay;
        split.first = dayOf(whole ? fromDay : fromDay + DAY_MS);
        if (!whole) partials.push({ day: fromDay, a: from.getTime(), b: Math.min(to?.getTime() ?? Infinity, fromDay + DAY_MS) });
      }
      if (to && toDay !== null) {
        split.end = dayOf(toDay);
        const whole = to.getTime() === toDay;
        if (!whole && !(partials.length > 0 && partials[0].day === toDay)) partials.push({ day: toDay, a: toDay, b: to.getTime() });
      }
      for (const p of partials) {
        const { inside, total } = await this.countIn(family, p, repo, author);
        if (inside <= total - inside) {
          if (inside > 0) split.raw.push({ from: new Date(p.a), to: new Date(p.b), sign: 1 });
        } else {
          split.extraDays.push(dayOf(p.day));
          // a period that ends now: the rest of today is normally empty, and nothing is read
          if (total > inside) {
            if (p.a > p.day) split.raw.push({ from: new Date(p.day), to: new Date(p.a), sign: -1 });
            if (p.b < p.day + DAY_MS) split.raw.push({ from: new Date(p.b), to: new Date(p.day + DAY_MS), sign: -1 });
          }
        }
      }
      return split;
    });
  }

  private async countIn(family: Family, p: { day: number; a: number; b: number }, repo?: string, author?: string): Promise<{ inside: number; total: number }> {
    const params = new SqlParams();
    const [column, from] = family === 'cohort' ? ['c."createdAt"', '"Change" c'] : ['f."createdAt"', '"Fix" f JOIN "Change" c ON c.id = f."changeId"'];
    const and = [`${column} >= ${utc(new Date(p.day), params)}`, `${column} < ${utc(new Date(p.day + DAY_MS), params)}`];
    if (repo !== undefined) and.push(`c."repositoryId" = ${params.add(repo, 'text')}`);
    if (author !== undefined) and.push(`c."authorKind"::text = ${params.add(author, 'text')}`);
    const [row] = await this.tx.$queryRawUnsafe<Array<{ inside: number; total: number }>>(
      `SELECT count(*) FILTER (WHERE ${column} >= ${utc(new Date(p.a), params)} AND ${column} < ${utc(new Date(p.b), params)})::int AS inside,
              count(*)::int AS total
       FROM ${from} WHERE ${and.join(' AND ')}`,
      ...params.values,
    );
    return { inside: Number(row?.inside ?? 0), total: Number(row?.total ?? 0) };
  }

  /** the rollup rows of the whole days, as cells by key */
  private async rollupRows(q: CellQuery, split: Split): Promise<Map<string, Cell>> {
    const { where, params } = this.rollupWhere(q, split);
    const rows = await this.tx.$queryRawUnsafe<Array<Record<string, unknown>>>(
      `SELECT ${selectColumns(q.table, keyedOf(q))} FROM "${q.table.name}" WHERE ${where}`,
      ...params,
    );
    const cells = new Map<string, Cell>();
    for (const row of rows) {
      const dims = q.table.dims.map((d) => String(row[d]));
      const counts: Counts = new Map();
      addRow(q.table, row, counts);
      cells.set(cellKey(dims), { dims, counts });
    }
    return cells;
  }

  /** WHERE of the rollup rows of `q`'s cells on the whole days of the split */
  private rollupWhere(q: CellQuery, split: Split): { where: string; params: unknown[] } {
    const p = new SqlParams();
    const and: string[] = [];
    for (const dim of q.table.dims) {
      if (dim === 'day') continue;
      const v = q.where[dim] ?? ALL;
      if (Array.isArray(v)) and.push(`"${dim}" IN (SELECT jsonb_array_elements_text(${p.add(JSON.stringify(v), 'jsonb')}))`);
      else if (v === OWN) and.push(dim === 'trigger' ? `trigger NOT IN ('${ALL}', '${REPAIR}')` : `"${dim}" <> '${ALL}'`);
      else and.push(`"${dim}" = ${p.add(v, 'text')}`);
    }
    // the partial days read whole lie just before and just after the whole
    // days: one range, so the primary key's day range is used
    let { first, end } = split;
    for (const day of split.extraDays) {
      const after = dayOf(Date.parse(`${day}T00:00:00Z`) + DAY_MS);
      if (first !== null && day < first) first = day;
      if (end !== null && after > end) end = after;
    }
    if (first !== null) and.push(`day >= ${p.add(first, 'date')}`);
    if (end !== null) and.push(`day < ${p.add(end, 'date')}`);
    return { where: and.join(' AND '), params: p.values };
  }

  private cohortFacts(part: RawPart, repo?: string, author?: string): Promise<CohortFacts> {
    return this.once(`facts\u0001${part.from.toISOString()}\u0001${part.to.toISOString()}\u0001${repo}\u0001${author}`, () =>
      loadCohortFacts(this.tx, { from: part.from, to: part.to, repositoryId: repo, authorKind: author }),
    );
  }

  private precisionFacts(part: RawPart, repo?: string): Promise<PrecisionFact[]> {
    return this.once(`precision\u0001${part.from.toISOString()}\u0001${part.to.toISOString()}\u0001${repo}`, () =>
      loadPrecisionFacts(this.tx, { from: part.from, to: part.to, repositoryId: repo }),
    );
  }

  /** A raw part folded into the cells `q` asks for. */
  private async rawCells(q: CellQuery, family: Family, part: RawPart, repo?: string, author?: string): Promise<Cell[]> {
    const choice = (dim: string): Choice[] => {
      const v = q.where[dim] ?? ALL;
      if (Array.isArray(v)) {
        const out: Choice[] = [];
        if (dim === 'trigger' && v.includes(REPAIR)) out.push('repair');
        if (v.some((x) => x !== REPAIR && x !== ALL)) out.push('own');
        if (v.includes(ALL)) out.push('all');
        return out;
      }
      return v === ALL ? ['all'] : v === REPAIR && dim === 'trigger' ? ['repair'] : ['own'];
    };
    const x = {
      repositoryId: choice('repositoryId'),
      authorKind: choice('authorKind'),
      policy: choice('policy'),
      model: choice('model'),
      trigger: choice('trigger'),
    };
    let cells: Map<string, Cell>;
    if (family === 'precision') cells = foldPrecision(await this.precisionFacts(part, repo), x);
    else {
      const facts = await this.cohortFacts(part, repo, author);
      cells = q.table === COHORT_TABLE ? foldChanges(facts.changes, x) : foldRuns(facts.runs, x);
    }
    // a fact of another policy, model or trigger than the one asked for
    const wanted = [...cells.values()].filter((c) =>
      q.table.dims.every((dim, i) => {
        const v = q.where[dim];
        if (Array.isArray(v)) return v.includes(c.dims[i]!);
        return dim === 'day' || v === undefined || v === OWN || v === ALL || c.dims[i] === v;
      }),
    );
    // only the counts the rollup rows were read with, so a subtracted part takes out only what was read
    const scalars = new Set(q.table.scalars);
    const keyed = new Set(keyedOf(q));
    for (const c of wanted) {
      for (const k of [...c.counts.keys()]) if (!scalars.has(k) && !keyed.has(keyedColumn(k))) c.counts.delete(k);
    }
    return wanted;
  }
}

function specific(v: DimFilter | undefined): string | undefined {
  return v === undefined || typeof v !== 'string' || v === ALL || v === OWN || v === REPAIR ? undefined : v;
}

// ───── what the sections do with cells ─────

/** The counts of all cells added up. */
export function total(cells: readonly Cell[]): Counts {
  const sum: Counts = new Map();
  for (const c of cells) addAll(sum, c.counts);
  return sum;
}

/** The cells added up per value of one dimension (the day, a repository, …). */
export function totalsBy(table: RollupTable, cells: readonly Cell[], key: (dims: Record<string, string>) => string): Map<string, Counts> {
  const out = new Map<string, Counts>();
  for (const c of cells) {
    const dims = Object.fromEntries(table.dims.map((d, i) => [d, c.dims[i]]));
    const k = key(dims);
    let sum = out.get(k);
    if (!sum) out.set(k, (sum = new Map()));
    addAll(sum, c.counts);
  }
  return out;
}

export { bucketOfDay } from './buckets';

/** The histogram stored under `prefix` (bucket → count). */
export function histogramOf(counts: Counts, prefix: string): Histogram {
  const h: Histogram = new Map();
  for (const [k, v] of counts) {
    if (!k.startsWith(prefix)) continue;
    const bucket = Number(k.slice(prefix.length));
    if (Number.isFinite(bucket)) addToHistogram(h, bucket, v);
  }
  return h;
}

/** The keyed counts under `prefix`: what follows the prefix → count. */
export function keyedCounts(counts: Counts, prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of counts) if (k.startsWith(prefix) && v !== 0) out.set(k.slice(prefix.length), v);
  return out;
}

/** n of a count, 0 when absent */
export function n(counts: Counts | undefined, key: string): number {
  return counts?.get(key) ?? 0;
}
