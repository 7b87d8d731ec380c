import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NextRequest } from 'next/server';
import { encode } from 'next-auth/jwt';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { AuthClient, serveNextAuth } from '../../helpers/next-auth';
import { createUser, updateUser } from '../../../lib/users/service';
import { getAuthSecret } from '../../../lib/auth/secret';
import { GET as myTokens } from '../../../app/api/me/tokens/route';

// A session ends on the server when it is signed out, or when its user's
// password changes, a role is taken away or the account is disabled: the old
// cookie, replayed, is refused at once, not when it expires 12 hours later.

/** GET /api/me/tokens (any signed-in user) with exactly this Cookie header. */
async function statusWith(cookie: string): Promise<number> {
  const res = await myTokens(new NextRequest('http://localhost:3000/api/me/tokens', { headers: { cookie } }), { params: Promise.resolve({}) });
  return res.status;
}

describe('sessions end on the server', () => {
  let db: TestDb;
  let server: { url: string; close(): Promise<void> };
  let adminId: string;
  let n = 0;

  before(async () => {
    db = await createTestDb();
    server = await serveNextAuth();
    adminId = (await createUser({ actorId: null, input: { email: 'root@example.test', name: 'Root', password: 'root-password-1', roles: ['ADMIN'] } })).id;
  });
  after(async () => {
    await server.close();
    await db.drop();
  });

  async function signedIn(roles: Array<'REVIEWER' | 'GRADER' | 'MANAGER'> = ['REVIEWER', 'GRADER']) {
    n += 1;
    const email = `person${n}@example.test`;
    const password = `right-password-${n}`;
    const user = await createUser({ actorId: adminId, input: { email, name: `Person ${n}`, password, roles } });
    const browser = new AuthClient(server.url);
    assert.equal(await browser.signIn({ email, password }), null);
    const cookie = browser.cookieHeader();
    assert.equal(await statusWith(cookie), 200, 'the fresh session works');
    return { user, email, password, browser, cookie };
  }

  test('after sign-out the old cookie is refused', async () => {
    const { user, browser, cookie } = await signedIn();
    await browser.signOut();
    assert.equal(await statusWith(cookie), 401);
    const row = await db.db.auditLog.findFirst({ where: { action: 'auth.signout', targetId: user.id } });
    assert.equal(row?.actorId, user.id);
    assert.equal((row?.data as { address?: unknown }).address, '127.0.0.1');
  });

  test('a sign-out ends only the session it names', async () => {
    const { email, password, browser, cookie } = await signedIn();
    const laptop = new AuthClient(server.url);
    assert.equal(await laptop.signIn({ email, password }), null);
    await browser.signOut();
    assert.equal(await statusWith(cookie), 401);
    assert.equal(await statusWith(laptop.cookieHeader()), 200);
  });

  test('a password change ends every session of the user', async () => {
    const { user, email, password, cookie } = await signedIn();
    const laptop = new AuthClient(server.url);
    assert.equal(await laptop.signIn({ email, password }), null);
    await updateUser({ actorId: adminId, id: user.id, input: { password: 'a-new-password-1' } });
    assert.equal(await statusWith(cookie), 401);
    assert.equal(await statusWith(laptop.cookieHeader()), 401);
    const audit = await db.db.auditLog.findFirst({ where: { action: 'user.update', targetId: user.id }, orderBy: { id: 'desc' } });
    assert.equal((audit?.data as { sessionsEnded?: unknown }).sessionsEnded, 2);
  });

  test('removing a role ends the sessions; adding one or renaming does not', async () => {
    const { user, cookie } = await signedIn(['REVIEWER']);
    await updateUser({ actorId: adminId, id: user.id, input: { roles: ['REVIEWER', 'GRADER'], name: 'Renamed' } });
    assert.equal(await statusWith(cookie), 200);
    await updateUser({ actorId: adminId, id: user.id, input: { roles: ['GRADER'] } });
    assert.equal(await statusWith(cookie), 401);
  });

  test('disabling ends the sessions, and enabling again does not revive them', async () => {
    const { user, email, password, cookie } = await signedIn();
    await updateUser({ actorId: adminId, id: user.id, input: { disabled: true } });
    assert.equal(await statusWith(cookie), 401);
    await updateUser({ actorId: adminId, id: user.id, input: { disabled: false } });
    assert.equal(await statusWith(cookie), 401);
    const again = new AuthClient(server.url);
    assert.equal(await again.signIn({ email, password }), null);
    assert.equal(await statusWith(again.cookieHeader()), 200);
  });

  test('a well-signed cookie that names no session (made before sessions were recorded) is refused', async () => {
    const { user, browser } = await signedIn();
    const name = [...browser.cookies.keys()].find((k) => k.endsWith('next-auth.session-token'))!;
    const legacy = await encode({ token: { sub: user.id }, secret: getAuthSecret() });
    assert.equal(await statusWith(`${name}=${legacy}`), 401);
  });
});
