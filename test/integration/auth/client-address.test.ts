import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { AuthClient, serveNextAuth } from '../../helpers/next-auth';
import { createUser } from '../../../lib/users/service';

// No proxy in front (FLOWFIX_TRUSTED_PROXIES unset): the client's address is
// the socket's, here 127.0.0.1, and whatever X-Forwarded-For a client sends
// is its own word and changes nothing.
delete process.env.FLOWFIX_TRUSTED_PROXIES;

describe('client address without a proxy', () => {
  let db: TestDb;
  let server: { url: string; close(): Promise<void> };

  before(async () => {
    db = await createTestDb();
    server = await serveNextAuth();
  });
  after(async () => {
    await server.close();
    await db.drop();
  });

  test('sign-in audit rows carry the socket’s address, not a forged header', async () => {
    const u = await createUser({ actorId: null, input: { email: 'ada@example.test', name: 'Ada', password: 'right-password-1', roles: ['REVIEWER'] } });
    const browser = new AuthClient(server.url);
    assert.equal(await browser.signIn({ email: 'ada@example.test', password: 'wrong', headers: { 'x-forwarded-for': '203.0.113.50' } }), 'CredentialsSignin');
    assert.equal(await browser.signIn({ email: 'ada@example.test', password: 'right-password-1' }), null);
    const rows = await db.db.auditLog.findMany({
      where: { action: { in: ['auth.signin.failure', 'auth.signin'] }, targetId: { in: [u.email, u.id] } },
      orderBy: { id: 'asc' },
    });
    assert.deepEqual(
      rows.map((r) => [r.action, (r.data as { address?: unknown }).address]),
      [
        ['auth.signin.failure', '127.0.0.1'],
        ['auth.signin', '127.0.0.1'],
      ],
    );
  });

  test('twenty failures from one address lock it for every account, however X-Forwarded-For varies', async () => {
    const browser = new AuthClient(server.url);
    // the first test's one failure counts too: 19 more reach the limit of 20
    for (let i = 0; i < 19; i++) {
      const code = await browser.signIn({ email: `nobody${i}@example.test`, password: 'guess', headers: { 'x-forwarded-for': `198.51.100.${i}` } });
      assert.equal(code, 'CredentialsSignin', `attempt ${i + 1}`);
    }
    const row = await db.db.signInThrottle.findUnique({ where: { scope_subject: { scope: 'address', subject: '127.0.0.1' } } });
    assert.equal(row?.failures, 20);
    assert.ok(row?.lockedUntil, 'the twentieth failure locks the address');
    // the first lock is short (1 s, doubling): on a slow machine it may end
    // before the next attempt, which then fails and locks for longer
    let refused: string | null = null;
    for (let i = 0; i < 4 && !refused; i++) {
      const code = await browser.signIn({ email: `someone${i}@example.test`, password: 'guess', headers: { 'x-forwarded-for': `192.0.2.${i}` } });
      if (code && /^SignInThrottled:\d+$/.test(code)) refused = code;
    }
    assert.ok(refused, 'a new account is refused from the locked address');
    const refusal = await db.db.auditLog.findFirst({ where: { action: 'auth.signin.refused' }, orderBy: { id: 'desc' } });
    assert.deepEqual((refusal?.data as { address?: unknown; lockedBy?: unknown }).lockedBy, ['address']);
    assert.equal((refusal?.data as { address?: unknown }).address, '127.0.0.1');
    const lockout = await db.db.auditLog.findFirst({ where: { action: 'auth.lockout', targetType: 'address', targetId: '127.0.0.1' } });
    assert.ok(lockout, 'the address lockout is audited under the socket’s address');
  });
});
