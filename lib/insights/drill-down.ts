import type { Db } from '../db';
import { DROP_REASON_SQL, SKIP_REASON_SQL } from './facts';
import { SqlParams, utc } from './sql';
import type { FunnelDrillDown } from '../../common/change-query';

// A funnel reason's drill-down: the changes the reason's bar counted
// (funnel.ts), for the triage list (lib/changes/list-changes.ts). It reads the
// raw rows with the very expressions the rollups' facts use (facts.ts
// SKIP_REASON_SQL, DROP_REASON_SQL) over the same cohort (changes first
// failing in [from, to)) and the same runs (the repair runs, or the trigger,
// policy and model asked for), so the list and the bar cannot disagree.
// The ids are bounded by one reason of one period's cohort.

export async function funnelReasonChangeIds({
  drill,
  repositoryId,
  authorKind,
  db,
}: {
  drill: FunnelDrillDown;
  repositoryId: string | undefined;
  authorKind: 'HUMAN' | 'BOT' | undefined;
  db: Db;
}): Promise<string[]> {
  const p = new SqlParams();
  const and: string[] = [`c."createdAt" < ${utc(new Date(drill.to), p)}`];
  if (drill.from) and.push(`c."createdAt" >= ${utc(new Date(drill.from), p)}`);
  if (repositoryId !== undefined) and.push(`c."repositoryId" = ${p.add(repositoryId, 'text')}`);
  if (authorKind !== undefined) and.push(`c."authorKind"::text = ${p.add(authorKind, 'text')}`);
  let sql: string;
  if (drill.step === 'skipped') {
    and.push(`${SKIP_REASON_SQL} = ${p.add(drill.reason, 'text')}`);
    sql = `SELECT c.id FROM "Change" c WHERE ${and.join(' AND ')}`;
  } else {
    and.push(drill.trigger ? `r.trigger::text = ${p.add(drill.trigger, 'text')}` : `r.trigger::text IN ('AUTO', 'MANUAL')`);
    if (drill.policy) and.push(`r.policy = ${p.add(drill.policy, 'text')}`);
    if (drill.model !== undefined) and.push(`COALESCE(r.model, '') = ${p.add(drill.model, 'text')}`);
    and.push(`${DROP_REASON_SQL} = ${p.add(drill.reason, 'text')}`);
    sql = `SELECT DISTINCT c.id FROM "Run" r JOIN "Change" c ON c.id = r."changeId"
JOIN "Fix" f ON f."runId" = r.id LEFT JOIN "ChangeRevision" v ON v.id = f."revisionId"
WHERE ${and.join(' AND ')}`;
  }
  const rows = await db.$queryRawUnsafe<Array<{ id: string }>>(sql, ...p.values);
  return rows.map((r) => String(r.id));
}
