import 'server-only';
import { getDb } from '../db';
import type { SessionUser } from '../auth/session';
import type { GradeLabelName } from '../../common/grading';
import { queueForGrader } from './queues';

// "My labels": the items of a queue a grader has labelled or skipped, so they
// can go back to one. Only their own judgement: the settled label shows only
// where they have already seen it (their reveal), like on the item itself.

export interface MyItem {
  itemId: string;
  /** from 0, as everywhere in the API (the page shows it from 1) */
  position: number;
  change: { title: string; externalId: string; repository: string };
  /** null: skipped, not labelled */
  label: GradeLabelName | null;
  labelledAt: string | null;
  skipReason: string | null;
  settled: boolean;
  /** the settled label, only once this grader has seen it */
  consensus: GradeLabelName | null;
  /** their label is locked: the fix has all its labels, they have seen the other labels, or the item is settled */
  locked: boolean;
}

export async function listMyItems({ queueId, user }: { queueId: string; user: SessionUser }): Promise<MyItem[]> {
  await queueForGrader(queueId, user);
  const rows = await getDb().$queryRaw<
    Array<{
      itemId: string;
      position: number;
      title: string;
      externalId: string;
      repository: string;
      label: GradeLabelName | null;
      labelledAt: Date | null;
      skipReason: string | null;
      settledLabel: GradeLabelName | null;
      revealed: boolean;
      complete: boolean;
    }>
  >`
    SELECT i.id AS "itemId", i.position, ch.title, ch."externalId", r.name AS repository,
      g.label::text AS label, g."updatedAt" AS "labelledAt", s.reason AS "skipReason",
      c.label::text AS "settledLabel", (v."fixId" IS NOT NULL) AS revealed,
      (SELECT count(*) FROM "Grade" a WHERE a."fixId" = i."fixId")
        >= (SELECT min(q."gradersPerFix") FROM "GradingItem" o JOIN "GradingQueue" q ON q.id = o."queueId" WHERE o."fixId" = i."fixId") AS complete
    FROM "GradingItem" i
    JOIN "Fix" f ON f.id = i."fixId"
    JOIN "Change" ch ON ch.id = f."changeId"
    JOIN "Repository" r ON r.id = ch."repositoryId"
    LEFT JOIN "Grade" g ON g."fixId" = i."fixId" AND g."graderId" = ${user.id}
    LEFT JOIN "GradingSkip" s ON s."itemId" = i.id AND s."graderId" = ${user.id}
    LEFT JOIN "Consensus" c ON c."fixId" = i."fixId"
    LEFT JOIN "GradeReveal" v ON v."fixId" = i."fixId" AND v."graderId" = ${user.id}
    WHERE i."queueId" = ${queueId} AND (g.id IS NOT NULL OR s."itemId" IS NOT NULL)
    ORDER BY i.position
    LIMIT 10000`;
  return rows.map((r) => ({
    itemId: r.itemId,
    position: Number(r.position),
    change: { title: r.title, externalId: r.externalId, repository: r.repository },
    label: r.label,
    labelledAt: r.labelledAt ? r.labelledAt.toISOString() : null,
    skipReason: r.label ? null : r.skipReason,
    settled: r.settledLabel !== null,
    consensus: r.revealed ? r.settledLabel : null,
    // a settled label no longer changes, whether or not they have looked; a
    // complete fix's labels are final (lib/grading/item-rules.ts)
    locked: r.revealed || r.settledLabel !== null || r.complete === true,
  }));
}
