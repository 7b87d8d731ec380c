// Inter-rater agreement for nominal labels: percent agreement, Fleiss' kappa,
// Krippendorff's alpha (nominal, missing labels allowed), Cohen's kappa per
// pair of raters with their confusion matrix, and each rater's agreement with
// the settled label. Pure functions over labels in memory; the queue's labels
// are loaded elsewhere (queue-stats.ts). A statistic that is undefined on
// the data (one label only, no shared items, no variation) is null, never NaN.

/** One item: rater id → the category they chose (raters who did not label it are absent). */
export type Unit = Record<string, string>;

function countsOf(unit: Unit): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of Object.values(unit)) counts.set(c, (counts.get(c) ?? 0) + 1);
  return counts;
}

/**
 * Mean over items with at least two labels of the share of agreeing rater
 * pairs in the item. null without such an item.
 */
export function percentAgreement(units: readonly Unit[]): number | null {
  let sum = 0;
  let items = 0;
  for (const unit of units) {
    const n = Object.keys(unit).length;
    if (n < 2) continue;
    let agreeing = 0;
    for (const k of countsOf(unit).values()) agreeing += k * (k - 1);
    sum += agreeing / (n * (n - 1));
    items += 1;
  }
  return items === 0 ? null : sum / items;
}

/**
 * Fleiss' kappa (Fleiss 1971) over the items with at least two labels. With
 * the same number of raters on every item it is exactly Fleiss' statistic;
 * with varying numbers, each item's observed agreement uses its own count and
 * the category shares pool every label. null when chance agreement is 1
 * (every label the same category) or no item has two labels.
 */
export function fleissKappa(units: readonly Unit[]): number | null {
  const rated = units.filter((u) => Object.keys(u).length >= 2);
  if (rated.length === 0) return null;
  const totals = new Map<string, number>();
  let labels = 0;
  let observed = 0;
  for (const unit of rated) {
    const counts = countsOf(unit);
    const n = Object.keys(unit).length;
    let agreeing = 0;
    for (const [c, k] of counts) {
      agreeing += k * (k - 1);
      totals.set(c, (totals.get(c) ?? 0) + k);
    }
    observed += agreeing / (n * (n - 1));
    labels += n;
  }
  const pBar = observed / rated.length;
  let pe = 0;
  for (const k of totals.values()) pe += (k / labels) ** 2;
  if (1 - pe < 1e-12) return null;
  return (pBar - pe) / (1 - pe);
}

/**
 * Krippendorff's alpha for nominal data (Krippendorff 2011, "Computing
 * Krippendorff's Alpha-Reliability"): from the coincidence matrix of the
 * pairable values (items with at least two labels); missing labels are
 * simply absent. null when there are fewer than two pairable values or no
 * disagreement is possible by chance (one category only).
 */
export function krippendorffAlpha(units: readonly Unit[]): number | null {
  const coincidence = new Map<string, Map<string, number>>();
  const add = (c: string, k: string, w: number) => {
    let row = coincidence.get(c);
    if (!row) coincidence.set(c, (row = new Map()));
    row.set(k, (row.get(k) ?? 0) + w);
  };
  for (const unit of units) {
    const values = Object.values(unit);
    const m = values.length;
    if (m < 2) continue;
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) if (i !== j) add(values[i], values[j], 1 / (m - 1));
  }
  const marginals = new Map<string, number>();
  let n = 0;
  for (const [c, row] of coincidence) {
    let sum = 0;
    for (const w of row.values()) sum += w;
    marginals.set(c, sum);
    n += sum;
  }
  if (n < 2) return null;
  let disagreeing = 0;
  for (const [c, row] of coincidence) for (const [k, w] of row) if (c !== k) disagreeing += w;
  let expected = 0;
  for (const [c, nc] of marginals) for (const [k, nk] of marginals) if (c !== k) expected += nc * nk;
  if (expected < 1e-12) return null;
  return 1 - ((n - 1) * disagreeing) / expected;
}

export interface PairAgreement {
  a: string;
  b: string;
  /** items both raters labelled */
  shared: number;
  /** Cohen's kappa; null with no shared item or when chance agreement is 1 */
  kappa: number | null;
  /** share of shared items where they chose the same category; null with none */
  agreement: number | null;
  /** confusion[i][j]: items a labelled categories[i] and b labelled categories[j] */
  confusion: number[][];
}

/** Cohen's kappa from a square confusion matrix (rows: one rater, columns: the other). */
export function cohenKappaFromMatrix(confusion: readonly (readonly number[])[]): number | null {
  const k = confusion.length;
  let n = 0;
  let diagonal = 0;
  const rows = new Array<number>(k).fill(0);
  const cols = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const v = confusion[i][j];
      n += v;
      rows[i] += v;
      cols[j] += v;
      if (i === j) diagonal += v;
    }
  }
  if (n === 0) return null;
  const po = diagonal / n;
  let pe = 0;
  for (let i = 0; i < k; i++) pe += (rows[i] / n) * (cols[i] / n);
  if (1 - pe < 1e-12) return null;
  return (po - pe) / (1 - pe);
}

/**
 * Cohen's kappa, shared items and confusion matrix for every pair of raters
 * (rater ids sorted). One pass over the items, visiting only the pairs that
 * labelled each one, so many raters with few labels each stay cheap.
 */
export function pairwiseCohen(units: readonly Unit[], categories: readonly string[]): PairAgreement[] {
  const raters = [...new Set(units.flatMap((u) => Object.keys(u)))].sort();
  const index = new Map(categories.map((c, i) => [c, i]));
  const k = categories.length;
  const cells = new Map<string, { confusion: number[][]; shared: number; same: number }>();
  const pairKey = (a: string, b: string) => `${a}\u0000${b}`;
  for (const unit of units) {
    const present = Object.keys(unit).sort();
    for (let x = 0; x < present.length; x++) {
      for (let y = x + 1; y < present.length; y++) {
        const a = present[x];
        const b = present[y];
        const i = index.get(unit[a]);
        const j = index.get(unit[b]);
        if (i === undefined || j === undefined) throw new RangeError(`Unknown category: ${i === undefined ? unit[a] : unit[b]}`);
        const key = pairKey(a, b);
        let cell = cells.get(key);
        if (!cell) cells.set(key, (cell = { confusion: categories.map(() => new Array<number>(k).fill(0)), shared: 0, same: 0 }));
        cell.confusion[i][j] += 1;
        cell.shared += 1;
        if (i === j) cell.same += 1;
      }
    }
  }
  const out: PairAgreement[] = [];
  for (let x = 0; x < raters.length; x++) {
    for (let y = x + 1; y < raters.length; y++) {
      const a = raters[x];
      const b = raters[y];
      const cell = cells.get(pairKey(a, b));
      if (!cell) {
        out.push({ a, b, shared: 0, kappa: null, agreement: null, confusion: categories.map(() => new Array<number>(k).fill(0)) });
        continue;
      }
      out.push({ a, b, shared: cell.shared, kappa: cohenKappaFromMatrix(cell.confusion), agreement: cell.same / cell.shared, confusion: cell.confusion });
    }
  }
  return out;
}

export interface RaterVsConsensus {
  rater: string;
  /** items the rater labelled that have a settled label */
  settled: number;
  agreeing: number;
  /** agreeing / settled; null with none */
  share: number | null;
}

/** Each rater's agreement with the settled label (consensus[i] for units[i]; null: not settled). */
export function agreementWithConsensus(units: readonly Unit[], consensus: readonly (string | null)[]): RaterVsConsensus[] {
  const by = new Map<string, { settled: number; agreeing: number }>();
  units.forEach((unit, i) => {
    for (const [rater, label] of Object.entries(unit)) {
      const row = by.get(rater) ?? { settled: 0, agreeing: 0 };
      by.set(rater, row);
      const settled = consensus[i];
      if (settled === null || settled === undefined) continue;
      row.settled += 1;
      if (settled === label) row.agreeing += 1;
    }
  });
  return [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([rater, r]) => ({ rater, ...r, share: r.settled ? r.agreeing / r.settled : null }));
}

/** A rater's label or revision of it on one item, as the history keeps it. */
export interface LabelEvent {
  rater: string;
  label: string;
  at: Date;
}

/**
 * One item's unit with each rater's label as it counts for agreement: as it
 * stood when their label became final (finalAt: the item had all its labels,
 * or the rater saw the others' labels, whichever came first). A revision after
 * that was made knowing something of the others' labels, so the label counts
 * as first given: the last one at or before the cut-off, or, for a rater who
 * labelled only after it, their first. A rater without history or without a
 * cut-off counts with their label as stored (`current`).
 */
export function labelsAsFirstGiven({
  current,
  events,
  finalAt,
}: {
  current: ReadonlyArray<{ rater: string; label: string }>;
  events: readonly LabelEvent[];
  finalAt: ReadonlyMap<string, Date>;
}): Unit {
  const unit: Unit = {};
  for (const { rater, label } of current) {
    const cutoff = finalAt.get(rater);
    const own = events.filter((e) => e.rater === rater).sort((a, b) => a.at.getTime() - b.at.getTime());
    if (!cutoff || own.length === 0) {
      unit[rater] = label;
      continue;
    }
    const before = own.filter((e) => e.at.getTime() <= cutoff.getTime());
    unit[rater] = (before.length > 0 ? before[before.length - 1] : own[0]).label;
  }
  return unit;
}
