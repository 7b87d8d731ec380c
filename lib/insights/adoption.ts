import 'server-only';
import { getDb, type Db } from '../db';
import { ratio } from '../../common/insights-query';
import { SqlParams, bucketExpr, bucketIso, count, fixesCte, queryRows, type InsightsScope } from './scope';

// What reviewers did with the posted fixes of the cohort (scope.ts): per
// surface (dashboard, the code host's pull request, CLI, API) how many were previewed (any decision) and
// applied (accept or edit-accept), the decisions by kind, reject reasons per
// bucket, per repository, and the trend per bucket.

export const SURFACES = ['DASHBOARD', 'CODE_REVIEW', 'CLI', 'API'] as const;
export type SurfaceName = (typeof SURFACES)[number];
export const DECISION_KINDS = ['ACCEPT', 'EDIT_ACCEPT', 'REJECT'] as const;

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

function row(r: { posted: unknown; previewed: unknown; applied: unknown; rejected: unknown }): AdoptionRow {
  const posted = count(r.posted);
  const previewed = count(r.previewed);
  const applied = count(r.applied);
  return {
    posted,
    previewed,
    applied,
    rejected: count(r.rejected),
    applyPerPreview: ratio(applied, previewed),
    applyPerPosted: ratio(applied, posted),
  };
}

export async function adoption({ scope, db = getDb() }: { scope: InsightsScope; db?: Db }): Promise<Adoption> {
  const p = new SqlParams();
  const base = `WITH ${fixesCte(scope, p)},
pf AS (SELECT * FROM fx WHERE drop_reason IS NULL),
dd AS (
  SELECT d."fixId", d.kind::text AS kind, d.surface::text AS surface, d.reason::text AS reason
  FROM "Decision" d JOIN pf ON pf.id = d."fixId"
),
per_fix AS (
  SELECT pf.id, pf."repositoryId", pf.cohort_at,
    EXISTS (SELECT 1 FROM dd WHERE dd."fixId" = pf.id) AS previewed,
    EXISTS (SELECT 1 FROM dd WHERE dd."fixId" = pf.id AND dd.kind IN ('ACCEPT', 'EDIT_ACCEPT')) AS applied,
    EXISTS (SELECT 1 FROM dd WHERE dd."fixId" = pf.id AND dd.kind = 'REJECT') AS rejected
  FROM pf
)`;
  const sql = `${base}
SELECT 'surface' AS part, surface AS key,
  count(DISTINCT "fixId")::int AS previewed,
  count(DISTINCT "fixId") FILTER (WHERE kind IN ('ACCEPT', 'EDIT_ACCEPT'))::int AS applied,
  NULL::int AS posted, NULL::int AS rejected, NULL::int AS accept, NULL::int AS edit_accept, NULL::int AS reject
FROM dd GROUP BY surface
UNION ALL
SELECT 'kinds', NULL, NULL, NULL, NULL, NULL,
  count(*) FILTER (WHERE kind = 'ACCEPT')::int, count(*) FILTER (WHERE kind = 'EDIT_ACCEPT')::int, count(*) FILTER (WHERE kind = 'REJECT')::int
FROM dd
UNION ALL
SELECT 'repository', rp.name, count(*) FILTER (WHERE previewed)::int, count(*) FILTER (WHERE applied)::int,
  count(*)::int, count(*) FILTER (WHERE rejected)::int, NULL, NULL, NULL
FROM per_fix JOIN "Repository" rp ON rp.id = per_fix."repositoryId" GROUP BY rp.name
UNION ALL
SELECT 'trend', ${bucketExpr(scope, 'cohort_at')}, count(*) FILTER (WHERE previewed)::int, count(*) FILTER (WHERE applied)::int,
  count(*)::int, count(*) FILTER (WHERE rejected)::int, NULL, NULL, NULL
FROM per_fix GROUP BY 2`;
  const reasonSql = `${base}
SELECT ${bucketExpr(scope, 'pf.cohort_at')} AS bucket, COALESCE(dd.reason, 'OTHER') AS reason, count(*)::int AS n
FROM dd JOIN pf ON pf.id = dd."fixId" WHERE dd.kind = 'REJECT' GROUP BY 1, 2 ORDER BY 1`;

  const [rows, reasonRows] = await Promise.all([
    queryRows<{
      part: string;
      key: string | null;
      previewed: unknown;
      applied: unknown;
      posted: unknown;
      rejected: unknown;
      accept: unknown;
      edit_accept: unknown;
      reject: unknown;
    }>(db, sql, p),
    // the same CTEs, so the same parameters
    queryRows<{ bucket: string; reason: string; n: unknown }>(db, reasonSql, p),
  ]);

  const repositories = rows
    .filter((r) => r.part === 'repository')
    .map((r) => ({ repository: r.key ?? '', ...row(r) }))
    .sort((a, b) => b.posted - a.posted || a.repository.localeCompare(b.repository));
  const posted = repositories.reduce((s, r) => s + r.posted, 0);
  const surfaces = SURFACES.map((surface): SurfaceAdoption => {
    const r = rows.find((x) => x.part === 'surface' && x.key === surface);
    const previewed = count(r?.previewed);
    const applied = count(r?.applied);
    return { surface, previewed, applied, applyPerPreview: ratio(applied, previewed), applyPerPosted: ratio(applied, posted) };
  });
  const kinds = rows.find((r) => r.part === 'kinds');
  const trend = rows
    .filter((r) => r.part === 'trend')
    .map((r) => ({ bucket: bucketIso(r.key!), ...row(r) }))
    .sort((a, b) => a.bucket.localeCompare(b.bucket));
  const byBucket = new Map<string, Record<string, number>>();
  for (const r of reasonRows) {
    const key = bucketIso(r.bucket);
    const entry = byBucket.get(key) ?? {};
    entry[r.reason] = count(r.n);
    byBucket.set(key, entry);
  }
  return {
    posted,
    surfaces,
    decisions: { accept: count(kinds?.accept), editAccept: count(kinds?.edit_accept), reject: count(kinds?.reject) },
    rejectReasons: [...byBucket.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([bucket, reasons]) => ({ bucket, reasons })),
    repositories,
    trend,
  };
}
