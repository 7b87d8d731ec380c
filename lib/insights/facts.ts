import 'server-only';
import type { Db } from '../db';
import type { Prisma } from '../generated/prisma/client';
import { PHASES } from '../../common/run-events';
import { SEARCHED_IN_VAIN_EXIT_REASONS } from '../../common/exit-reasons';
import { SqlParams, utc } from './sql';

// The raw facts every Insights figure is made of: the changes that first
// failed in a range and everything that happened to them (runs, fixes,
// decisions), and the settled labels of fixes for precision, read from the
// database in a few queries. cells.ts folds them into counts; nothing else
// reads these rows for Insights.

// ───── why a run produced no fix ─────

const MISLOCALISABLE_SQL = SEARCHED_IN_VAIN_EXIT_REASONS.map((r) => `'${r}'`).join(', ');

// ───── the raw facts ─────

/** Changes whose first failure (createdAt) lies in [from, to), optionally of one repository and author kind. */
export interface ChangeRange {
  from: Date;
  to: Date;
  /** '' matches no repository */
  repositoryId?: string;
  authorKind?: string;
}

export interface ChangeFact {
  id: string;
  day: string;
  repositoryId: string;
  authorKind: string;
  /** the pre-execution filter that skipped it (SKIPPED and never run), else null */
  skip: string | null;
  /** failure report → next revision, ms, for each superseded revision */
  developerMs: number[];
}

export interface RunFact {
  changeId: string;
  day: string;
  repositoryId: string;
  authorKind: string;
  policy: string;
  model: string;
  trigger: string;
  status: string;
  exitReason: string | null;
  /** finishedAt set: its phase times count */
  ended: boolean;
  phases: Array<[string, number]>;
  toolCalls: number;
  tokens: number;
  /** null: the model had no price (unknown, never $0) */
  costUsd: number | null;
  reachedGreen: boolean;
  /** no fix, and none of the files the developer changed next was among the run's suspects */
  mislocalised: boolean;
  fix: null | {
    /** null: posted */
    dropReason: string | null;
    /** the revision's failure report → the fix, ms */
    latencyMs: number;
    decisions: Array<{ kind: string; surface: string; reason: string | null }>;
  };
}

export interface CohortFacts {
  changes: ChangeFact[];
  runs: RunFact[];
}

function changeWhere(range: ChangeRange, p: SqlParams): string {
  const and = [`c."createdAt" >= ${utc(range.from, p)}`, `c."createdAt" < ${utc(range.to, p)}`];
  if (range.repositoryId !== undefined) and.push(`c."repositoryId" = ${p.add(range.repositoryId, 'text')}`);
  if (range.authorKind !== undefined) and.push(`c."authorKind"::text = ${p.add(range.authorKind, 'text')}`);
  return and.join(' AND ');
}

type Row = Record<string, unknown>;

function numbers(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number);
  if (typeof value === 'string') return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number);
  return [];
}

function jsonValue(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

// The funnel's two reasons, defined once: the facts below count them and the
// triage list's drill-down (drill-down.ts) selects the changes they counted.
/** Change `c`: the pre-execution filter that skipped it (SKIPPED and never run), else NULL. */
export const SKIP_REASON_SQL = `CASE WHEN c.status = 'SKIPPED' AND NOT EXISTS (SELECT 1 FROM "Run" x WHERE x."changeId" = c.id)
    THEN COALESCE(c."statusReason", 'unknown') END`;
/** Fix `f` of revision `v`: why it was dropped, else NULL (posted). */
export const DROP_REASON_SQL = `CASE WHEN f.status = 'DROPPED' THEN COALESCE(NULLIF(regexp_replace(f."dropReason", '^dropped:', ''), ''), 'unknown')
       WHEN v."supersededAt" IS NOT NULL AND v."supersededAt" <= f."createdAt" THEN 'stale' END`;

/** The facts of the changes in `range` and of everything that happened to them: two queries. */
export async function loadCohortFacts(db: Db | Prisma.TransactionClient, range: ChangeRange): Promise<CohortFacts> {
  const cp = new SqlParams();
  const changeSql = `
SELECT c.id, to_char(c."createdAt", 'YYYY-MM-DD') AS day, c."repositoryId" AS repo, c."authorKind"::text AS author,
  ${SKIP_REASON_SQL} AS skip,
  ARRAY(SELECT (EXTRACT(EPOCH FROM (v."supersededAt" - v."createdAt")) * 1000)::float8 FROM "ChangeRevision" v
        WHERE v."changeId" = c.id AND v."supersededAt" IS NOT NULL) AS dev_ms
FROM "Change" c WHERE ${changeWhere(range, cp)}`;
  const rp = new SqlParams();
  // a fix whose revision was superseded before the fix existed arrived stale:
  // dropped as "stale" whatever its status says
  const runSql = `
SELECT r."changeId" AS change_id, to_char(c."createdAt", 'YYYY-MM-DD') AS day, c."repositoryId" AS repo, c."authorKind"::text AS author,
  r.policy, COALESCE(r.model, '') AS model, r.trigger::text AS trigger, r.status::text AS status, r."exitReason" AS exit_reason,
  (r."finishedAt" IS NOT NULL) AS ended, r."phaseTimings" AS phases, r."toolCalls" AS tool_calls,
  (r."promptTokens"::float8 + r."completionTokens") AS tokens, r."costUsd" AS cost,
  CASE WHEN r."exitReason" = 'no_candidate' THEN EXISTS (
    SELECT 1 FROM "RunEvent" e WHERE e."runId" = r.id AND e.type = 'gate' AND e.payload->>'gate' = 'green') ELSE FALSE END AS reached_green,
  CASE WHEN f.id IS NULL AND r."exitReason" IN (${MISLOCALISABLE_SQL}) AND jsonb_typeof(rv."nextFiles") = 'array' AND jsonb_array_length(rv."nextFiles") > 0 THEN
    EXISTS (SELECT 1 FROM "RunEvent" e WHERE e."runId" = r.id AND e.type = 'suspects')
    AND NOT EXISTS (
      SELECT 1 FROM "RunEvent" e CROSS JOIN LATERAL jsonb_array_elements(COALESCE(e.payload->'suspects', '[]'::jsonb)) s
      WHERE e."runId" = r.id AND e.type = 'suspects' AND s->>'file' IN (SELECT jsonb_array_elements_text(rv."nextFiles")))
  ELSE FALSE END AS mislocalised,
  f.id AS fix_id,
  ${DROP_REASON_SQL} AS drop_reason,
  (EXTRACT(EPOCH FROM (f."createdAt" - v."createdAt")) * 1000)::float8 AS fix_ms,
  CASE WHEN f.id IS NOT NULL THEN (
    SELECT json_agg(json_build_array(d.kind::text, d.surface::text, d.reason::text)) FROM "Decision" d WHERE d."fixId" = f.id) END AS decisions
FROM "Run" r JOIN "Change" c ON c.id = r."changeId"
LEFT JOIN "Fix" f ON f."runId" = r.id LEFT JOIN "ChangeRevision" v ON v.id = f."revisionId"
LEFT JOIN "ChangeRevision" rv ON rv.id = r."revisionId"
WHERE ${changeWhere(range, rp)}`;
  const changeRows = await db.$queryRawUnsafe<Row[]>(changeSql, ...cp.values);
  const runRows = await db.$queryRawUnsafe<Row[]>(runSql, ...rp.values);
  return {
    changes: changeRows.map((r) => ({
      id: String(r.id),
      day: String(r.day),
      repositoryId: String(r.repo),
      authorKind: String(r.author),
      skip: r.skip === null || r.skip === undefined ? null : String(r.skip),
      developerMs: numbers(r.dev_ms),
    })),
    runs: runRows.map((r): RunFact => {
      const phases = jsonValue(r.phases);
      const decisions = (jsonValue(r.decisions) ?? []) as Array<[string, string, string | null]>;
      return {
        changeId: String(r.change_id),
        day: String(r.day),
        repositoryId: String(r.repo),
        authorKind: String(r.author),
        policy: String(r.policy),
        model: String(r.model),
        trigger: String(r.trigger),
        status: String(r.status),
        exitReason: r.exit_reason === null || r.exit_reason === undefined ? null : String(r.exit_reason),
        ended: r.ended === true,
        phases:
          phases && typeof phases === 'object' && !Array.isArray(phases)
            ? PHASES.flatMap((phase): Array<[string, number]> => {
                const v = (phases as Record<string, unknown>)[phase];
                return typeof v === 'number' && Number.isFinite(v) ? [[phase, v]] : [];
              })
            : [],
        toolCalls: Number(r.tool_calls),
        tokens: Number(r.tokens),
        costUsd: r.cost === null || r.cost === undefined ? null : Number(r.cost),
        reachedGreen: r.reached_green === true,
        mislocalised: r.mislocalised === true,
        fix:
          r.fix_id === null || r.fix_id === undefined
            ? null
            : {
                dropReason: r.drop_reason === null || r.drop_reason === undefined ? null : String(r.drop_reason),
                latencyMs: Number(r.fix_ms),
                decisions: decisions.map(([kind, surface, reason]) => ({ kind, surface, reason })),
              },
      };
    }),
  };
}

/** Settled fixes made (Fix.createdAt) in [from, to), optionally of one repository. */
export interface FixRange {
  from: Date;
  to: Date;
  repositoryId?: string;
}

export interface PrecisionFact {
  day: string;
  repositoryId: string;
  policy: string;
  model: string;
  label: string;
  status: string;
  /** the reason of the latest reject decision, for a rejected fix */
  rejectReason: string | null;
}

export async function loadPrecisionFacts(db: Db | Prisma.TransactionClient, range: FixRange): Promise<PrecisionFact[]> {
  const p = new SqlParams();
  const and = [`f."createdAt" >= ${utc(range.from, p)}`, `f."createdAt" < ${utc(range.to, p)}`];
  if (range.repositoryId !== undefined) and.push(`ch."repositoryId" = ${p.add(range.repositoryId, 'text')}`);
  const rows = await db.$queryRawUnsafe<Row[]>(
    `
SELECT to_char(f."createdAt", 'YYYY-MM-DD') AS day, ch."repositoryId" AS repo, r.policy, COALESCE(r.model, '') AS model,
  cs.label::text AS label, f.status::text AS status,
  CASE WHEN f.status = 'REJECTED' THEN (
    SELECT d.reason::text FROM "Decision" d WHERE d."fixId" = f.id AND d.kind = 'REJECT' ORDER BY d."createdAt" DESC, d.id DESC LIMIT 1) END AS reject_reason
FROM "Fix" f JOIN "Consensus" cs ON cs."fixId" = f.id JOIN "Run" r ON r.id = f."runId" JOIN "Change" ch ON ch.id = f."changeId"
WHERE ${and.join(' AND ')}`,
    ...p.values,
  );
  return rows.map((r) => ({
    day: String(r.day),
    repositoryId: String(r.repo),
    policy: String(r.policy),
    model: String(r.model),
    label: String(r.label),
    status: String(r.status),
    rejectReason: r.reject_reason === null || r.reject_reason === undefined ? null : String(r.reject_reason),
  }));
}

/** Settled fixes made in a range, one row per source: the newest grading queue holding the fix, else the demo's history, else none. */
export interface SettledSourceFact {
  /** null: in no grading queue */
  queueId: string | null;
  queueName: string | null;
  /** in no queue, and seeded with the demo's history */
  demoHistory: boolean;
  settled: number;
}

export async function loadSettledSources(
  db: Db | Prisma.TransactionClient,
  range: { from: Date | null; to: Date | null; repositoryId?: string; policy?: string; model?: string },
): Promise<SettledSourceFact[]> {
  const p = new SqlParams();
  const and = ['true'];
  if (range.from) and.push(`f."createdAt" >= ${utc(range.from, p)}`);
  if (range.to) and.push(`f."createdAt" < ${utc(range.to, p)}`);
  if (range.repositoryId !== undefined) and.push(`ch."repositoryId" = ${p.add(range.repositoryId, 'text')}`);
  if (range.policy !== undefined) and.push(`r.policy = ${p.add(range.policy, 'text')}`);
  if (range.model !== undefined) and.push(`COALESCE(r.model, '') = ${p.add(range.model, 'text')}`);
  // the same settled fixes loadPrecisionFacts reads (a Consensus row, the fix's run and change), each counted once
  const rows = await db.$queryRawUnsafe<Row[]>(
    `
SELECT q.id AS queue_id, q.name AS queue_name, (q.id IS NULL AND ch.origin = 'DEMO_HISTORY') AS demo_history, count(*)::int AS settled
FROM "Fix" f JOIN "Consensus" cs ON cs."fixId" = f.id JOIN "Run" r ON r.id = f."runId" JOIN "Change" ch ON ch.id = f."changeId"
LEFT JOIN LATERAL (
  SELECT gq.id, gq.name FROM "GradingItem" gi JOIN "GradingQueue" gq ON gq.id = gi."queueId"
  WHERE gi."fixId" = f.id ORDER BY gq."createdAt" DESC, gq.id DESC LIMIT 1
) q ON true
WHERE ${and.join(' AND ')}
GROUP BY 1, 2, 3`,
    ...p.values,
  );
  return rows.map((r) => ({
    queueId: r.queue_id === null || r.queue_id === undefined ? null : String(r.queue_id),
    queueName: r.queue_name === null || r.queue_name === undefined ? null : String(r.queue_name),
    demoHistory: r.demo_history === true,
    settled: Number(r.settled),
  }));
}
