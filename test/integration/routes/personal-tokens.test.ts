import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from './http-helpers';
import { GET as listRoute, POST as issueRoute } from '../../../app/api/me/tokens/route';
import { DELETE as revokeRoute } from '../../../app/api/me/tokens/[id]/route';
import { GET as patchRoute } from '../../../app/api/fixes/[id]/patch/route';
import { authenticatePersonalToken } from '../../../lib/tokens/personal-tokens';

// The Tokens page's API: a user issues tokens with a name, an expiry and a
// scope, lists them (never the token itself) and revokes them.

interface TokenView {
  id: string;
  name: string;
  scope: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

describe('personal tokens: issue with scope and expiry, list, revoke', () => {
  let db: TestDb;
  let cookie = '';
  let otherCookie = '';

  before(async () => {
    db = await createTestDb();
    const user = await db.db.user.create({ data: { email: 'pat@tokens.test', name: 'Pat', roles: ['REVIEWER'] } });
    const other = await db.db.user.create({ data: { email: 'oli@tokens.test', name: 'Oli', roles: ['REVIEWER'] } });
    cookie = await sessionCookie(user);
    otherCookie = await sessionCookie(other);
  });
  after(() => db.drop());

  test('a token is issued with its scope and expiry; the list shows them, never the token', async () => {
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const issued = await callRoute({
      handler: issueRoute,
      url: '/api/me/tokens',
      method: 'POST',
      cookie,
      body: { name: 'laptop', scope: 'decide', expiresAt },
    });
    assert.equal(issued.status, 201);
    const { token, record } = issued.json as { token: string; record: TokenView };
    assert.match(token, /^ffp_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual([record.name, record.scope, record.expiresAt], ['laptop', 'decide', expiresAt]);

    const plain = await callRoute({ handler: issueRoute, url: '/api/me/tokens', method: 'POST', cookie, body: { name: 'no scope said' } });
    assert.equal((plain.json as { record: TokenView }).record.scope, 'read', 'least privilege unless asked');

    const list = await callRoute({ handler: listRoute, url: '/api/me/tokens', cookie });
    assert.equal(list.status, 200);
    const tokens = (list.json as { tokens: TokenView[] }).tokens;
    assert.deepEqual(
      tokens.map((t) => [t.name, t.scope]),
      [
        ['no scope said', 'read'],
        ['laptop', 'decide'],
      ],
    );
    assert.ok(!JSON.stringify(list.json).includes(token));
    // someone else's list is their own
    const others = await callRoute({ handler: listRoute, url: '/api/me/tokens', cookie: otherCookie });
    assert.deepEqual((others.json as { tokens: TokenView[] }).tokens, []);
  });

  test('a made-up scope, a past expiry or a missing name is a 422 with the field named', async () => {
    for (const [body, field] of [
      [{ name: 'x', scope: 'admin' }, 'scope'],
      [{ name: 'x', expiresAt: new Date(Date.now() - 1000).toISOString() }, 'expiresAt'],
      [{ name: ' ' }, 'name'],
    ] as const) {
      const res = await callRoute({ handler: issueRoute, url: '/api/me/tokens', method: 'POST', cookie, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(JSON.stringify(res.json), new RegExp(field));
    }
  });

  test('an expired token is refused; a revoked one too, and only its owner can revoke it', async () => {
    const issued = await callRoute({ handler: issueRoute, url: '/api/me/tokens', method: 'POST', cookie, body: { name: 'short', scope: 'read' } });
    const { token, record } = issued.json as { token: string; record: TokenView };
    const authorization = `Bearer ${token}`;
    // used once: the route wrapper records when
    assert.equal((await callRoute({ handler: patchRoute, url: '/api/fixes/none/patch', authorization, params: { id: 'none' } })).status, 404);
    const used = await db.db.personalToken.findUniqueOrThrow({ where: { id: record.id } });
    assert.ok(used.lastUsedAt);

    const notMine = await callRoute({
      handler: revokeRoute,
      url: `/api/me/tokens/${record.id}`,
      method: 'DELETE',
      cookie: otherCookie,
      params: { id: record.id },
    });
    assert.equal(notMine.status, 404);
    const revoked = await callRoute({ handler: revokeRoute, url: `/api/me/tokens/${record.id}`, method: 'DELETE', cookie, params: { id: record.id } });
    assert.equal(revoked.status, 200);
    assert.ok((revoked.json as { token: TokenView }).token.revokedAt);
    const after = await callRoute({ handler: patchRoute, url: '/api/fixes/none/patch', authorization, params: { id: 'none' } });
    assert.equal(after.status, 401);

    const expiring = await callRoute({ handler: issueRoute, url: '/api/me/tokens', method: 'POST', cookie, body: { name: 'old', scope: 'read' } });
    const old = expiring.json as { token: string; record: TokenView };
    await db.db.personalToken.update({ where: { id: old.record.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await assert.rejects(authenticatePersonalToken(`Bearer ${old.token}`), /expired/);
  });
});
