import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import NextAuthImport from 'next-auth';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { createUser, listUsers, unlockUser } from '../../../lib/users/service';
import { getAuthOptions } from '../../../lib/auth/options';
import { signInErrorMessage } from '../../../components/signin/messages';

// Sign-in limits through next-auth's own request handler (CSRF check,
// credentials provider, error codes), with the real database. One trusted
// proxy hop, so X-Forwarded-For's last entry is the client address.
process.env.FLOWFIX_TRUSTED_PROXY_HOPS = '1';

// CommonJS default export, as Node's loader hands it over
const NextAuth = ((NextAuthImport as unknown as { default?: typeof NextAuthImport }).default ?? NextAuthImport) as (...args: unknown[]) => Promise<unknown>;

const HOST = { host: 'localhost:3000' };

interface Answer {
  status: number;
  body: unknown;
  cookies: Record<string, string>;
}

/** next-auth's request handler, called as an API route is (its Node-style req/res entry). */
async function nextAuth(req: { action: string[]; method: string; headers: Record<string, string>; cookies: Record<string, string>; body?: Record<string, string> }): Promise<Answer> {
  const headers = new Map<string, unknown>();
  let status = 200;
  let body: unknown;
  const res = {
    status(code: number) {
      status = code;
      return res;
    },
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader(name: string, value: unknown) {
      headers.set(name.toLowerCase(), value);
      return res;
    },
    json(value: unknown) {
      body = value;
    },
    send(value: unknown) {
      body = value;
    },
    end() {},
  };
  await NextAuth(
    { query: { nextauth: req.action }, method: req.method, headers: req.headers, cookies: req.cookies, body: req.body ?? {} },
    res,
    getAuthOptions(),
  );
  const setCookies = ([] as string[]).concat((headers.get('set-cookie') as string[] | undefined) ?? []);
  const cookies = Object.fromEntries(setCookies.map((c) => c.split(';')[0].split('=')).map(([k, ...v]) => [k, decodeURIComponent(v.join('='))]));
  return { status, body, cookies };
}

async function csrf(): Promise<{ token: string; cookies: Record<string, string> }> {
  const res = await nextAuth({ action: ['csrf'], method: 'GET', headers: HOST, cookies: {} });
  return { token: (res.body as { csrfToken: string }).csrfToken, cookies: res.cookies };
}

/** One sign-in attempt; the next-auth error code, or null when it signed in. */
async function attempt(
  session: { token: string; cookies: Record<string, string> },
  { email, password, address = '198.51.100.7' }: { email: string; password: string; address?: string },
): Promise<string | null> {
  const res = await nextAuth({
    action: ['callback', 'credentials'],
    method: 'POST',
    headers: { ...HOST, 'x-forwarded-for': address },
    cookies: session.cookies,
    body: { email, password, csrfToken: session.token, json: 'true' },
  });
  const url = (res.body as { url?: string } | undefined)?.url;
  assert.ok(url, `next-auth answers a credentials callback with a redirect (got ${res.status} ${JSON.stringify(res.body)})`);
  const error = new URL(url, 'http://localhost:3000').searchParams.get('error');
  if (error === null) assert.ok(Object.keys(res.cookies).some((c) => c.endsWith('next-auth.session-token')), 'a success sets the session cookie');
  return error;
}

describe('sign-in limits', () => {
  let db: TestDb;
  let session: { token: string; cookies: Record<string, string> };
  let adminId: string;
  let n = 0;

  before(async () => {
    db = await createTestDb();
    adminId = (await createUser({ actorId: null, input: { email: 'root@example.test', name: 'Root', password: 'root-password-1', roles: ['ADMIN'] } })).id;
    session = await csrf();
  });
  after(() => db.drop());

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
      ['auth.signin.failure', 'auth.signin.failure', 'auth.signin.failure', 'auth.signin.failure', 'auth.signin.failure', 'auth.lockout', 'auth.signin.refused'],
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
    const codes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => attempt(session, { email: u.email, password: `wrong-${i}`, address: '198.18.0.40' })),
    );
    assert.ok(codes.every((c) => c === 'CredentialsSignin' || /^SignInThrottled:/.test(c ?? '')), codes.join(','));
    const account = await db.db.signInThrottle.findUniqueOrThrow({ where: { scope_subject: { scope: 'account', subject: u.email } } });
    const client = await db.db.signInThrottle.findUniqueOrThrow({ where: { scope_subject: { scope: 'address', subject: '198.18.0.40' } } });
    assert.equal(account.failures, 40);
    assert.equal(client.failures, 40);
    const entries = await db.db.auditLog.count({ where: { targetId: u.email, action: { in: ['auth.signin.failure', 'auth.signin.refused'] } } });
    assert.equal(entries, 40);
    assert.match((await attempt(session, { email: u.email, password: u.password, address: '198.18.0.41' })) ?? '', /^SignInThrottled:/);
  });
});
