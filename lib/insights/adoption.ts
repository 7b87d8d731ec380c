import 'server-only';
import { ratio } from '../../common/insights-query';
import { COUNTER, RUN_TABLE, type Counts } from './tables';
import { OWN, bucketOfDay, keyedCounts, n, total, totalsBy, type InsightsReader } from './read';
import { bucketIso, runCellWhere, type InsightsScope } from './scope';
import { fillBuckets } from './buckets';

// What reviewers did with the posted fixes of the cohort (scope.ts): per
// surface (dashboard, the code host's pull request, CLI, the editor extension, API) how many were previewed (any decision) and
// applied (accept or edit-accept), the decisions by kind, reject reasons per
// bucket, per repository, and the trend per bucket.

export const SURFACES = ['DASHBOARD', 'CODE_REVIEW', 'CLI', 'IDE', 'API'] as const;
export type SurfaceName = (typeof SURFACES)[number];

export interface SurfaceAdoption {
  surface: SurfaceName;
  previewed: number;
  applied: number;
  /** applied / previewed on this surface */
  applyPerPreview: number | null;
  /** applied on this surface / every posted fix */
  applyPerPosted: number | null;
}

export interface AdoptionRow {
  posted: number;
  previewed: number;
  applied: number;
  rejected: number;
  applyPerPreview: number | null;
  applyPerPosted: number | null;
}

export interface Adoption {
  posted: number;
  surfaces: SurfaceAdoption[];
  decisions: { accept: number; editAccept: number; reject: number };
  /** per bucket start (ISO, UTC): reject reason → count */
  rejectReasons: Array<{ bucket: string; reasons: Record<string, number> }>;
  repositories: Array<AdoptionRow & { repository: string }>;
  trend: Array<AdoptionRow & { bucket: string }>;
}

function row(c: Counts): AdoptionRow {
  const posted = n(c, 'posted');
  const previewed = n(c, 'previewed');
  const applied = n(c, 'applied');
  return {
    posted,
    previewed,
    applied,
    rejected: n(c, 'rejected'),
    applyPerPreview: ratio(applied, previewed),
    applyPerPosted: ratio(applied, posted),
  };
}

export async function adoption({ scope, reader }: { scope: InsightsScope; reader: InsightsReader }): Promise<Adoption> {
  const where = runCellWhere(scope, { repairOnly: true });
  const [cells, perRepository] = await Promise.all([
    reader.cells({ table: RUN_TABLE, where, counters: true }),
    // per repository (just the one asked for, if any)
    reader.sums({ table: RUN_TABLE, where: { ...where, repositoryId: scope.repositoryId === undefined ? OWN : where.repositoryId } }, ['repositoryId']),
  ]);
  const sum = total(cells);
  const names = await repositoryNames(
    reader,
    [...perRepository.values()].map((g) => g.group.repositoryId!),
  );
  // only where something was posted: a row per repository or bucket with fixes to adopt
  const repositories = [...perRepository.values()]
    .filter((g) => n(g.counts, 'posted') > 0)
    .map((g) => ({ repository: names.get(g.group.repositoryId!) ?? g.group.repositoryId!, ...row(g.counts) }))
    .sort((a, b) => b.posted - a.posted || a.repository.localeCompare(b.repository));
  const posted = n(sum, 'posted');
  const previewedOn = keyedCounts(sum, COUNTER.surfacePreviewed);
  const appliedOn = keyedCounts(sum, COUNTER.surfaceApplied);
  const surfaces = SURFACES.map((surface): SurfaceAdoption => {
    const previewed = previewedOn.get(surface) ?? 0;
    const applied = appliedOn.get(surface) ?? 0;
    return { surface, previewed, applied, applyPerPreview: ratio(applied, previewed), applyPerPosted: ratio(applied, posted) };
  });
  const byBucket = totalsBy(RUN_TABLE, cells, (d) => bucketOfDay(d.day!, scope.bucket));
  // every bucket of the period, an empty one with zero counts (buckets.ts)
  const buckets = fillBuckets({ from: scope.from, to: scope.to, bucket: scope.bucket, rows: byBucket, zero: (): Counts => new Map() });
  return {
    posted,
    surfaces,
    decisions: { accept: n(sum, 'accepts'), editAccept: n(sum, 'editAccepts'), reject: n(sum, 'rejects') },
    // empty while nothing was rejected; else every bucket, a bucket without rejects with none
    rejectReasons: buckets.some((b) => keyedCounts(b.row, COUNTER.reject).size > 0)
      ? buckets.map((b) => ({ bucket: bucketIso(b.bucket), reasons: Object.fromEntries(keyedCounts(b.row, COUNTER.reject)) }))
      : [],
    repositories,
    trend: buckets.map((b) => ({ bucket: bucketIso(b.bucket), ...row(b.row) })),
  };
}

async function repositoryNames(reader: InsightsReader, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await reader.tx.repository.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return new Map(rows.map((r) => [r.id, r.name]));
}
