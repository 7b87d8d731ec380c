import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import * as pricesRoute from '../../../app/api/admin/model-prices/route';
import { readModelPrices } from '@/lib/models/prices';

// The model price table over HTTP: admins read and replace it, every change is
// audited with what changed, a stale editor gets 409, bad prices 422, and
// other roles are refused.

type Table = { prices: Record<string, { inputPerMTokUsd: number; outputPerMTokUsd: number }>; updatedAt: string | null; updatedBy: { name: string } | null };

describe(`admin model price table (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  let db: TestDb;
  let cookie: string;
  let reviewerCookie: string;

  before(async () => {
    db = await createTestDb();
    const admin = await db.db.user.create({ data: { email: 'admin@prices.test', name: 'Price Admin', roles: ['ADMIN'] } });
    const reviewer = await db.db.user.create({ data: { email: 'rev@prices.test', name: 'Rev', roles: ['REVIEWER', 'MANAGER'] } });
    cookie = await sessionCookie(admin);
    reviewerCookie = await sessionCookie(reviewer);
  });
  after(() => db.drop());

  const put = (body: unknown, c = cookie) => callRoute({ handler: pricesRoute.PUT, url: '/api/admin/model-prices', method: 'PUT', cookie: c, body });
  const get = (c = cookie) => callRoute({ handler: pricesRoute.GET, url: '/api/admin/model-prices', cookie: c });

  test('empty at first; a save replaces the table, is audited with what changed, and is what runs are priced with', async () => {
    const empty = await get();
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.json, { prices: {}, updatedAt: null, updatedBy: null });

    const first = await put({
      prices: { 'gpt-4.1': { inputPerMTokUsd: 2, outputPerMTokUsd: 8 }, 'qwen2.5-coder:7b': { inputPerMTokUsd: 0, outputPerMTokUsd: 0 } },
      ifUpdatedAt: null,
    });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const saved = first.json as Table;
    assert.equal(saved.prices['gpt-4.1']?.outputPerMTokUsd, 8);
    assert.equal(saved.updatedBy?.name, 'Price Admin');
    assert.ok(saved.updatedAt);

    const second = await put({
      prices: { 'gpt-4.1': { inputPerMTokUsd: 2, outputPerMTokUsd: 6 }, 'gpt-4o-2024-08-06': { inputPerMTokUsd: 2.5, outputPerMTokUsd: 10 } },
      ifUpdatedAt: saved.updatedAt,
    });
    assert.equal(second.status, 200, JSON.stringify(second.json));
    assert.deepEqual(Object.keys(await readModelPrices()).sort(), ['gpt-4.1', 'gpt-4o-2024-08-06']);

    const audit = await db.db.auditLog.findMany({ where: { action: 'system.model_prices' }, orderBy: { createdAt: 'asc' } });
    assert.equal(audit.length, 2);
    assert.equal(audit[1]!.targetId, 'modelPrices');
    assert.deepEqual(audit[1]!.data, {
      added: [{ model: 'gpt-4o-2024-08-06', inputPerMTokUsd: 2.5, outputPerMTokUsd: 10 }],
      removed: ['qwen2.5-coder:7b'],
      changed: [{ model: 'gpt-4.1', from: { inputPerMTokUsd: 2, outputPerMTokUsd: 8 }, to: { inputPerMTokUsd: 2, outputPerMTokUsd: 6 } }],
    });

    // saving the same table again changes nothing and writes no audit entry
    const same = await put({ prices: (second.json as Table).prices });
    assert.equal(same.status, 200);
    assert.equal(await db.db.auditLog.count({ where: { action: 'system.model_prices' } }), 2);
  });

  test('an editor who loaded an older table gets 409 and the newer table is kept', async () => {
    const current = (await get()).json as Table;
    const stale = await put({ prices: { only: { inputPerMTokUsd: 1, outputPerMTokUsd: 1 } }, ifUpdatedAt: '2020-01-01T00:00:00.000Z' });
    assert.equal(stale.status, 409);
    assert.deepEqual(((await get()).json as Table).prices, current.prices);
  });

  test('bad prices and names are 422 with the path; other roles get 403', async () => {
    for (const prices of [
      { 'gpt-4.1': { inputPerMTokUsd: -1, outputPerMTokUsd: 1 } },
      { 'gpt 4': { inputPerMTokUsd: 1, outputPerMTokUsd: 1 } },
      { 'gpt-4.1': { inputPerMTokUsd: 1 } },
      { 'gpt-4.1': { inputPerMTokUsd: 1, outputPerMTokUsd: 1, currency: 'EUR' } },
    ]) {
      const res = await put({ prices });
      assert.equal(res.status, 422, JSON.stringify(prices));
    }
    assert.equal((await get(reviewerCookie)).status, 403);
    assert.equal((await put({ prices: {} }, reviewerCookie)).status, 403);
    assert.equal((await callRoute({ handler: pricesRoute.GET, url: '/api/admin/model-prices' })).status, 401);
  });
});
