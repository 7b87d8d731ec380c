import 'server-only';
import { getDb } from '../db';
import { writeTx } from '../writes';

/** Records whether the change's head lives in a fork flowfix may not push to; a change of it refreshes the comment. */
export async function recordForkWritability({ changeId, forkNotWritable }: { changeId: string; forkNotWritable: string | null }): Promise<void> {
  const db = getDb();
  const change = await db.change.findUnique({ where: { id: changeId }, select: { forkNotWritable: true } });
  if (!change || change.forkNotWritable === forkNotWritable) return;
  await writeTx(async (tx, written) => {
    await tx.change.update({ where: { id: changeId }, data: { forkNotWritable } });
    written.wrote('change', { changeId });
  });
}
