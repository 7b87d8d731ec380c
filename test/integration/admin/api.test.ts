import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import * as usersRoute from '../../../app/api/admin/users/route';
import * as userRoute from '../../../app/api/admin/users/[id]/route';
import * as tokensRoute from '../../../app/api/admin/tokens/route';
import * as tokenRoute from '../../../app/api/admin/tokens/[id]/route';
import * as reposRoute from '../../../app/api/admin/repositories/route';
import * as repoRoute from '../../../app/api/admin/repositories/[id]/route';
import * as failuresRoute from '../../../app/api/v1/failures/route';

// The admin API over HTTP semantics: status codes, bodies, and that nothing
// secret leaks into a response other than the one that issues a token.

describe('admin API', () => {
  let db: TestDb;
  let admin: { id: string };
  let cookie: string;

  before(async () => {
    db = await createTestDb();
    admin = await db.db.user.create({ data: { email: 'admin@api.test', name: 'Admin', roles: ['ADMIN'] } });
    cookie = await sessionCookie(admin);
  });
  after(() => db.drop());

  test('users: create → 201, duplicate email → 409, bad body → 422, malformed JSON → 400', async () => {
    const body = { email: 'new@api.test', name: 'New', password: 'a-long-password', roles: ['REVIEWER'] };
    const created = await callRoute({ handler: usersRoute.POST, url: '/api/admin/users', method: 'POST', cookie, body });
    assert.equal(created.status, 201);
    const user = (created.json as { user: Record<string, unknown> }).user;
    assert.equal(user.email, 'new@api.test');
    assert.ok(!JSON.stringify(created.json).includes('a-long-password'));
    assert.ok(!('passwordHash' in user));

    const dup = await callRoute({ handler: usersRoute.POST, url: '/api/admin/users', method: 'POST', cookie, body: { ...body, email: 'NEW@api.test' } });
    assert.equal(dup.status, 409);
    assert.equal((dup.json as { error: { code: string } }).error.code, 'conflict');

    const invalid = await callRoute({
      handler: usersRoute.POST,
      url: '/api/admin/users',
      method: 'POST',
      cookie,
      body: { ...body, email: 'x@api.test', password: 'short' },
    });
    assert.equal(invalid.status, 422);
    assert.ok(JSON.stringify(invalid.json).includes('password'));

    const malformed = await callRoute({ handler: usersRoute.POST, url: '/api/admin/users', method: 'POST', cookie, rawBody: '{"email":' });
    assert.equal(malformed.status, 400);

    const list = await callRoute({ handler: usersRoute.GET, url: '/api/admin/users', cookie });
    assert.equal(list.status, 200);
    assert.ok(!JSON.stringify(list.json).includes('scrypt$'), 'no password hash in the list');
  });

  test('users: the admin cannot demote or disable themselves over the API (409)', async () => {
    const demote = await callRoute({
      handler: userRoute.PATCH,
      url: `/api/admin/users/${admin.id}`,
      method: 'PATCH',
      cookie,
      params: { id: admin.id },
      body: { roles: ['REVIEWER'] },
    });
    assert.equal(demote.status, 409);
    const disable = await callRoute({
      handler: userRoute.PATCH,
      url: `/api/admin/users/${admin.id}`,
      method: 'PATCH',
      cookie,
      params: { id: admin.id },
      body: { disabled: true },
    });
    assert.equal(disable.status, 409);
    const unknownField = await callRoute({
      handler: userRoute.PATCH,
      url: `/api/admin/users/${admin.id}`,
      method: 'PATCH',
      cookie,
      params: { id: admin.id },
      body: { passwordHash: 'x' },
    });
    assert.equal(unknownField.status, 422, 'the hash cannot be set directly');
  });

  test('tokens: issued once over the API, revoked token refused by the ingestion route', async () => {
    const issued = await callRoute({
      handler: tokensRoute.POST,
      url: '/api/admin/tokens',
      method: 'POST',
      cookie,
      body: { name: 'api ci', allRepositories: true },
    });
    assert.equal(issued.status, 201);
    assert.equal(issued.headers.get('cache-control'), 'no-store');
    const { token, record } = issued.json as { token: string; record: { id: string; prefix: string } };
    assert.ok(token.startsWith(record.prefix));

    const list = await callRoute({ handler: tokensRoute.GET, url: '/api/admin/tokens', cookie });
    assert.equal(list.status, 200);
    assert.ok(!JSON.stringify(list.json).includes(token.slice(record.prefix.length)), 'the list never shows the token');

    // the token works on the CI route (not 401; the empty body is refused for its content)
    const before = await callRoute({ handler: failuresRoute.POST, url: '/api/v1/failures', method: 'POST', authorization: `Bearer ${token}`, body: {} });
    assert.notEqual(before.status, 401);

    const revoked = await callRoute({
      handler: tokenRoute.DELETE,
      url: `/api/admin/tokens/${record.id}`,
      method: 'DELETE',
      cookie,
      params: { id: record.id },
    });
    assert.equal(revoked.status, 200);
    assert.ok((revoked.json as { token: { revokedAt: string | null } }).token.revokedAt);

    const afterRevoke = await callRoute({ handler: failuresRoute.POST, url: '/api/v1/failures', method: 'POST', authorization: `Bearer ${token}`, body: {} });
    assert.equal(afterRevoke.status, 401);

    const missing = await callRoute({ handler: tokenRoute.DELETE, url: '/api/admin/tokens/nope', method: 'DELETE', cookie, params: { id: 'nope' } });
    assert.equal(missing.status, 404);
  });

  test('repositories: register → 201, duplicate → 409, bad settings → 422 with path, archive via PATCH', async () => {
    const body = { name: 'api-repo', gitUrl: '/srv/git/api-repo', language: 'python', settings: { test: 'pytest {ids}' } };
    const created = await callRoute({ handler: reposRoute.POST, url: '/api/admin/repositories', method: 'POST', cookie, body });
    assert.equal(created.status, 201);
    const repo = (created.json as { repository: { id: string; effective: unknown } }).repository;
    assert.ok(repo.effective);

    const dup = await callRoute({ handler: reposRoute.POST, url: '/api/admin/repositories', method: 'POST', cookie, body });
    assert.equal(dup.status, 409);

    const bad = await callRoute({
      handler: reposRoute.POST,
      url: '/api/admin/repositories',
      method: 'POST',
      cookie,
      body: { ...body, name: 'api-bad', modelSettings: { temperature: 7 } },
    });
    assert.equal(bad.status, 422);
    assert.ok(JSON.stringify(bad.json).includes('modelSettings.temperature'));

    const archived = await callRoute({
      handler: repoRoute.PATCH,
      url: `/api/admin/repositories/${repo.id}`,
      method: 'PATCH',
      cookie,
      params: { id: repo.id },
      body: { archived: true },
    });
    assert.equal(archived.status, 200);
    assert.ok((archived.json as { repository: { archivedAt: string | null } }).repository.archivedAt);

    const one = await callRoute({ handler: repoRoute.GET, url: `/api/admin/repositories/${repo.id}`, cookie, params: { id: repo.id } });
    assert.equal(one.status, 200);
    const none = await callRoute({ handler: repoRoute.GET, url: '/api/admin/repositories/nope', cookie, params: { id: 'nope' } });
    assert.equal(none.status, 404);
  });
});
