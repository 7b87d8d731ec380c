import 'server-only';
import { getDb, type Db } from '../db';

// What the Insights filter bar offers to choose from, beside the figures
// themselves (kept apart from the section queries: it depends on no filter).

/** Every model a run has used, the most recently used first (ties by name). */
export async function listRunModels({ db = getDb() }: { db?: Db } = {}): Promise<string[]> {
  const rows = await db.run.groupBy({
    by: ['model'],
    where: { AND: [{ model: { not: null } }, { model: { not: '' } }] },
    _max: { createdAt: true },
    orderBy: [{ _max: { createdAt: 'desc' } }, { model: 'asc' }],
  });
  return rows.map((r) => r.model).filter((m): m is string => m !== null);
}
