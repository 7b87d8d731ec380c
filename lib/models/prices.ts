import 'server-only';
import { z } from 'zod';
import { writeAudit } from '../audit';
import { getDb } from '../db';
import { AppError } from '../errors';
import { ModelPriceSchema } from '../../common/settings';
import type { Tx } from '../db';

// The model price table (SystemSetting "modelPrices"): USD per million input
// and output tokens for each model name, edited by admins on the admin page
// (PUT /api/admin/model-prices, audited). Run costs come from it
// (agent/llm/client.ts costOf): a model that is not in the table (nor in a
// repository's own `prices`) has an unknown cost, stored as null, never as 0.
// Keyed by the name a model setting uses (`model`) or the name the endpoint
// reports back (Azure answers with the model behind the deployment).

const KEY = 'modelPrices';

export const ModelNameSchema = z
  .string()
  .trim()
  .min(1, 'a model name is required')
  .max(200)
  .regex(/^[^\s\p{Cc}]+$/u, 'no spaces or control characters');

const PriceSchema = ModelPriceSchema.extend({
  inputPerMTokUsd: z.number().min(0).max(10_000),
  outputPerMTokUsd: z.number().min(0).max(10_000),
}).strict();

export const ModelPriceTableSchema = z.record(ModelNameSchema, PriceSchema).refine((t) => Object.keys(t).length <= 500, 'at most 500 models');
export type ModelPriceTable = z.infer<typeof ModelPriceTableSchema>;

export const SetModelPricesSchema = z
  .object({
    prices: ModelPriceTableSchema,
    /** the table's updatedAt as the editor loaded it: a newer save in between is a conflict, not overwritten */
    ifUpdatedAt: z.string().datetime().nullable().optional(),
  })
  .strict();

export interface ModelPriceTableView {
  prices: ModelPriceTable;
  updatedAt: string | null;
  updatedBy: { id: string; name: string } | null;
}

type Db = ReturnType<typeof getDb>;

function parseStored(value: unknown): ModelPriceTable {
  // a row written by an older version with an entry this schema refuses must not take every price down
  const out: ModelPriceTable = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [name, price] of Object.entries(value)) {
    const ok = ModelNameSchema.safeParse(name).success && PriceSchema.safeParse(price).success;
    if (ok) out[name] = PriceSchema.parse(price);
  }
  return out;
}

/** The price table the worker computes run costs with. */
export async function readModelPrices(db: Db | Tx = getDb()): Promise<ModelPriceTable> {
  const row = await db.systemSetting.findUnique({ where: { key: KEY } });
  return parseStored(row?.value);
}

/**
 * Sets the table only when none was ever saved (the demo's seed: the prices
 * its history's run costs were computed with), so Admin shows the prices the
 * recorded costs came from; an admin's own table is never overwritten.
 * true when it wrote the table.
 */
export async function ensureModelPrices({ db, prices, actorId }: { db: Db | Tx; prices: ModelPriceTable; actorId: string | null }): Promise<boolean> {
  const table = ModelPriceTableSchema.parse(prices);
  const written = await db.systemSetting.createMany({ data: [{ key: KEY, value: table, updatedById: actorId }], skipDuplicates: true });
  return written.count > 0;
}

/** The table with who saved it last, for the admin page. */
export async function getModelPriceTable(): Promise<ModelPriceTableView> {
  const db = getDb();
  const row = await db.systemSetting.findUnique({ where: { key: KEY } });
  const user = row?.updatedById ? await db.user.findUnique({ where: { id: row.updatedById }, select: { id: true, name: true } }) : null;
  return { prices: parseStored(row?.value), updatedAt: row?.updatedAt.toISOString() ?? null, updatedBy: user };
}

/** What an edit changed, for the audit entry. */
function diffTables(before: ModelPriceTable, after: ModelPriceTable) {
  const added = Object.keys(after).filter((m) => !(m in before));
  const removed = Object.keys(before).filter((m) => !(m in after));
  const changed = Object.keys(after)
    .filter((m) => m in before && (before[m]!.inputPerMTokUsd !== after[m]!.inputPerMTokUsd || before[m]!.outputPerMTokUsd !== after[m]!.outputPerMTokUsd))
    .map((m) => ({ model: m, from: before[m]!, to: after[m]! }));
  return { added: added.map((m) => ({ model: m, ...after[m]! })), removed, changed };
}

/** Replaces the table (audited in the same transaction); a save since `ifUpdatedAt` is a conflict. */
export async function setModelPrices({
  actorId,
  prices,
  ifUpdatedAt,
}: {
  actorId: string;
  prices: ModelPriceTable;
  ifUpdatedAt?: string | null;
}): Promise<ModelPriceTableView> {
  const table = ModelPriceTableSchema.parse(prices);
  await getDb().$transaction(async (tx) => {
    // orders concurrent saves (the row may not exist yet), so the ifUpdatedAt check below sees the winner
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('flowfix.modelPrices'))`;
    const row = await tx.systemSetting.findUnique({ where: { key: KEY } });
    if (ifUpdatedAt !== undefined && (row?.updatedAt.toISOString() ?? null) !== ifUpdatedAt) {
      throw new AppError('conflict', 'the price table was changed by someone else since you loaded it; reload and edit again');
    }
    const before = parseStored(row?.value);
    const change = diffTables(before, table);
    if (change.added.length + change.removed.length + change.changed.length === 0) return;
    await tx.systemSetting.upsert({
      where: { key: KEY },
      create: { key: KEY, value: table, updatedById: actorId },
      update: { value: table, updatedById: actorId },
    });
    await writeAudit({ actorId, actorKind: 'user', action: 'system.model_prices', targetType: 'system_setting', targetId: KEY, data: change }, tx);
  });
  return getModelPriceTable();
}
