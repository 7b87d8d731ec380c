import { readJson, withRoute } from '@/lib/http/route';
import { getModelPriceTable, setModelPrices, SetModelPricesSchema } from '@/lib/models/prices';
import { ADMIN_ACCESS } from '@/app/api/admin/access';

export const dynamic = 'force-dynamic';

const ADMIN = ADMIN_ACCESS;

// GET /api/admin/model-prices — the price table: USD per million input/output tokens per model
export const GET = withRoute(ADMIN, async () => getModelPriceTable());

// PUT /api/admin/model-prices — { prices, ifUpdatedAt? } replaces the table (audited; 409 when saved by someone else since)
export const PUT = withRoute(ADMIN, async ({ req, user }) => {
  const { prices, ifUpdatedAt } = await readJson(req, SetModelPricesSchema);
  return setModelPrices({ actorId: user.id, prices, ...(ifUpdatedAt !== undefined ? { ifUpdatedAt } : {}) });
});
