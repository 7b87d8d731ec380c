import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { AuthClient, serveNextAuth } from '../../helpers/next-auth';
import { createUser, listUsers, unlockUser } from '../../../lib/users/service';
import { signInErrorMessage } from '../../../components/signin/messages';

// Sign-in limits through next-auth's own request handler (CSRF check,
// credentials provider, error codes) over HTTP, with the real database. The
// test's client stands for a proxy on this host (FLOWFIX_TRUSTED_PROXIES), so
// the last X-Forwarded-For entry it sends is the client address; without a
// proxy the socket's address counts (client-address.test.ts).
process.env.FLOWFIX_TRUSTED_PROXIES = '127.0.0.1';

/** One sign-in attempt from `address` (the entries a proxy forwards); the next-auth error code, or null when it signed in. */
async function attempt(
  browser: AuthClient,
  { email, password, address = '198.51.100.7' }: { email: string; password: string; address?: string },
): Promise<string | null> {
  return browser.signIn({ email, password, headers: { 'x-forwarded-for': address } });
}

describe('sign-in limits', () => {
  let db: TestDb;
  let server: { url: string; close(): Promise<void> };
  let session: AuthClient;
  let adminId: string;
  let n = 0;

  before(async () => {
    db = await createTestDb();
    adminId = (await createUser({ actorId: null, input: { email: 'root@example.test', name: 'Root', password: 'root-password-1', roles: ['ADMIN'] } })).id;
    server = await serveNextAuth();
    session = new AuthClient(server.url);
  });
  after(async () => {
    await server.close();
    await db.drop();
  });

  async function newUser(): Promise<{ id: string; email: string; password: string }> {
    n += 1;
    const email = `person${n}@example.test`;
    const password = `right-password-${n}`;
    const u = await createUser({ actorId: adminId, input: { email, name: `Person ${n}`, password, roles: ['REVIEWER'] } });
    return { id: u.id, email, password };
  }

  // each test gets its own client address so address counts do not leak between them
  let address = '';
  beforeEach(() => {
    address = `192.0.2.${(n % 200) + 10}`;
  });

  test('five wrong passwords lock the account; then even the right one is refused unchecked, and an admin unlocks it', async () => {
    const u = await newUser();
    for (let i = 0; i < 5; i++) {
      assert.equal(await attempt(session, { email: u.email, password: `wrong-${i}`, address }), 'CredentialsSignin');
    }
    const refused = await attempt(session, { email: u.email.toUpperCase(), password: u.password, address });
    assert.match(refused ?? '', /^SignInThrottled:\d+$/);
    assert.match(signInErrorMessage(refused)!, /^Too many attempts; try again in \d+ seconds?\./);

    const locked = (await listUsers()).find((x) => x.id === u.id)!;
    assert.ok(locked.lockedUntil instanceof Date && locked.lockedUntil.getTime() > Date.now());

    const audit = await db.db.auditLog.findMany({ where: { targetId: { in: [u.email, u.id] }, action: { startsWith: 'auth.' } }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      audit.map((e) => e.action),
      [
        'auth.signin.failure',
        'auth.signin.failure',
        'auth.signin.failure',
        'auth.signin.failure',
        'auth.signin.failure',
        'auth.lockout',
        'auth.signin.refused',
      ],
    );
    assert.equal((audit[0].data as { reason: string }).reason, 'wrong_password');
    assert.ok(!JSON.stringify(audit.map((e) => e.data)).includes(u.password), 'no password reaches the audit log');

    await unlockUser({ actorId: adminId, id: u.id });
    assert.equal((await listUsers()).find((x) => x.id === u.id)!.lockedUntil, null);
    assert.equal(await attempt(session, { email: u.email, password: u.password, address }), null);
    const tail = await db.db.auditLog.findMany({ where: { action: { in: ['auth.unlock', 'auth.signin'] }, targetId: u.id }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      tail.map((e) => [e.action, e.actorId]),
      [
        ['auth.unlock', adminId],
        ['auth.signin', u.id],
      ],
    );
  });

  test('a successful sign-in resets the account count', async () => {
    const u = await newUser();
    for (let i = 0; i < 4; i++) assert.equal(await attempt(session, { email: u.email, password: 'nope', address }), 'CredentialsSignin');
    assert.equal(await attempt(session, { email: u.email, password: u.password, address }), null);
    for (let i = 0; i < 4; i++) assert.equal(await attempt(session, { email: u.email, password: 'nope', address }), 'CredentialsSignin');
    assert.equal(await attempt(session, { email: u.email, password: u.password, address }), null, 'four failures after a success are not five');
    const row = await db.db.signInThrottle.findUnique({ where: { scope_subject: { scope: 'account', subject: u.email } } });
    assert.equal(row, null);
  });

  test('an address that fails twenty times is locked for every account; the spoofable left part of X-Forwarded-For is ignored', async () => {
    const u = await newUser();
    const attacker = '203.0.113.9';
    for (let i = 0; i < 20; i++) {
      // a different made-up account each time, and a different forged left entry
      const code = await attempt(session, { email: `nobody${i}@example.test`, password: 'guess', address: `10.0.0.${i}, ${attacker}` });
      assert.equal(code, 'CredentialsSignin');
    }
    assert.match((await attempt(session, { email: u.email, password: u.password, address: attacker })) ?? '', /^SignInThrottled:/);
    assert.equal(await attempt(session, { email: u.email, password: u.password, address: '203.0.113.10' }), null, 'another address is not locked');
    const lockouts = await db.db.auditLog.findMany({ where: { action: 'auth.lockout', targetId: attacker } });
    assert.equal(lockouts.length, 1);
  });

  test('40 parallel wrong attempts all count: no lost updates', async () => {
    const u = await newUser();
    const codes = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(session, { email: u.email, password: `wrong-${i}`, address: '198.18.0.40' })));
    assert.ok(
      codes.every((c) => c === 'CredentialsSignin' || /^SignInThrottled:/.test(c ?? '')),
      codes.join(','),
    );
    const account = await db.db.signInThrottle.findUniqueOrThrow({ where: { scope_subject: { scope: 'account', subject: u.email } } });
    const client = await db.db.signInThrottle.findUniqueOrThrow({ where: { scope_subject: { scope: 'address', subject: '198.18.0.40' } } });
    assert.equal(account.failures, 40);
    assert.equal(client.failures, 40);
    const entries = await db.db.auditLog.count({ where: { targetId: u.email, action: { in: ['auth.signin.failure', 'auth.signin.refused'] } } });
    assert.equal(entries, 40);
    assert.match((await attempt(session, { email: u.email, password: u.password, address: '198.18.0.41' })) ?? '', /^SignInThrottled:/);
  });
});
