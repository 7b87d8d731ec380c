import 'server-only';
import { getDb, type Db } from '../db';
import { filesChangedBetween } from '../diff/git-text';
import { Prisma } from '../generated/prisma/client';
import { writeTx } from '../writes';

// What the developer changed next: once a revision is superseded, the files
// of the git diff from its head to the next revision's head are recorded on
// it (ChangeRevision.nextFiles), so Insights can tell a run that searched in
// vain in the wrong place ("mislocalised": none of those files among its
// suspects, facts.ts) from one that looked in the right place and found no
// edit that worked. The workers' housekeeping calls this a batch at a time;
// a revision is looked at once. What cannot be read (a repository that is not
// on the server's disk, a head that is gone) is recorded as [] — nothing
// known — and no run is called mislocalised on it.

export interface DeveloperFilesResult {
  /** revisions whose next files this call recorded */
  recorded: number;
  /** of which nothing could be read */
  unknown: number;
}

export async function recordDeveloperFiles({ db = getDb(), limit = 25 }: { db?: Db; limit?: number } = {}): Promise<DeveloperFilesResult> {
  const pending = await db.$queryRaw<Array<{ id: string; changeId: string; headRev: string; nextHeadRev: string | null; gitUrl: string }>>`
    SELECT v.id, v."changeId", v."headRev", rp."gitUrl",
      (SELECT n."headRev" FROM "ChangeRevision" n WHERE n."changeId" = v."changeId" AND n.number > v.number ORDER BY n.number LIMIT 1) AS "nextHeadRev"
    FROM "ChangeRevision" v JOIN "Change" c ON c.id = v."changeId" JOIN "Repository" rp ON rp.id = c."repositoryId"
    WHERE v."supersededAt" IS NOT NULL AND v."nextFiles" IS NULL
    ORDER BY v."supersededAt"
    LIMIT ${limit}`;
  const result: DeveloperFilesResult = { recorded: 0, unknown: 0 };
  for (const v of pending) {
    const files = (v.nextHeadRev ? await filesChangedBetween({ repoPath: v.gitUrl, from: v.headRev, to: v.nextHeadRev }) : null) ?? [];
    // one writer records it: a second housekeeper that read the same list finds it done
    const recorded = await writeTx(
      async (tx, written) => {
        const { count } = await tx.changeRevision.updateMany({ where: { id: v.id, nextFiles: { equals: Prisma.DbNull } }, data: { nextFiles: files } });
        if (count > 0) written.wrote('change', { changeId: v.changeId });
        return count > 0;
      },
      { db },
    );
    if (!recorded) continue;
    result.recorded += 1;
    if (files.length === 0) result.unknown += 1;
  }
  return result;
}
