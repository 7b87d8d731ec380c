import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { authorizeCredentials, getAuthOptions } from '../../../lib/auth/options';
import { hashPassword } from '../../../lib/auth/password';
import { codeReviewIdentity } from '../../../lib/users/code-review';
import * as usersRoute from '../../../app/api/admin/users/route';
import * as userRoute from '../../../app/api/admin/users/[id]/route';
import * as myTokensRoute from '../../../app/api/me/tokens/route';
import * as gradingOptionsRoute from '../../../app/api/grading/options/route';
import { createQueue } from '../../../lib/grading/queues';

// The users a code host's `/flowfix apply|reject` decides as
// (`login@github-<hostid>.code-review.invalid`): role-less identities for the
// record, never accounts. They cannot sign in by password (none can be set,
// and one forced into the row is ignored) or by single sign-on (no match by
// subject or email, and none is provisioned in their domain); a session made
// for one is not honoured; the admin's users list labels them and refuses
// them a role or a password; grading never offers them.

describe('code-review identities can never sign in or grade', () => {
  let db: TestDb;
  let adminCookie = '';
  let admin: { id: string; email: string; name: string; roles: string[] };
  let shadow: { id: string; email: string; name: string };

  before(async () => {
    db = await createTestDb();
    const row = await db.db.user.create({ data: { email: 'admin@shadow.test', name: 'Admin', roles: ['ADMIN', 'MANAGER'] } });
    admin = { ...row, roles: row.roles };
    adminCookie = await sessionCookie(row);
    const host = await db.db.codeHost.create({ data: { kind: 'GITHUB', name: 'gh', apiBaseUrl: 'https://api.github.com', webhookSecretCipher: 'x' } });
    shadow = await codeReviewIdentity({ host, login: 'Octocat' });
  });
  after(() => db.drop());

  test('made for a host login: no role, no password, in the reserved domain, marked as a code-review identity', async () => {
    const row = await db.db.user.findUniqueOrThrow({ where: { id: shadow.id } });
    assert.match(row.email, /^octocat@github-[a-z0-9]+\.code-review\.invalid$/);
    assert.deepEqual([row.roles, row.passwordHash, row.oidcSubject, row.kind, row.name], [[], null, null, 'CODE_REVIEW', 'Octocat (GitHub)']);
    const host = await db.db.codeHost.findFirstOrThrow();
    assert.equal((await codeReviewIdentity({ host, login: 'octocat' })).id, shadow.id, 'the same login is the same identity');
  });

  test('no password sign-in, even with a password hash forced into the row', async () => {
    assert.equal(await authorizeCredentials({ email: shadow.email, password: 'anything-at-all' }), null);
    await db.db.user.update({ where: { id: shadow.id }, data: { passwordHash: await hashPassword('forced-password-1') } });
    assert.equal(await authorizeCredentials({ email: shadow.email, password: 'forced-password-1' }), null);
    const audit = await db.db.auditLog.findFirstOrThrow({ where: { action: 'auth.signin.failure', targetId: shadow.email }, orderBy: { createdAt: 'desc' } });
    assert.equal((audit.data as { reason?: string }).reason, 'code_review_identity');
    await db.db.user.update({ where: { id: shadow.id }, data: { passwordHash: null } });
  });

  test('no single sign-on: not matched by email, and no account provisioned in the reserved domain', async () => {
    const signIn = getAuthOptions().callbacks!.signIn!;
    const attempt = (email: string, sub: string) =>
      signIn({
        user: { id: sub, email, name: 'Someone' },
        account: { provider: 'oidc', type: 'oauth', providerAccountId: sub },
        profile: { email, sub },
      } as never);
    assert.equal(await attempt(shadow.email, 'idp-subject-1'), false);
    assert.equal((await db.db.user.findUniqueOrThrow({ where: { id: shadow.id } })).oidcSubject, null, 'the identity was not taken over');
    assert.equal(await attempt('someone-else@github-zzz.code-review.invalid', 'idp-subject-2'), false);
    assert.equal(await db.db.user.count({ where: { email: 'someone-else@github-zzz.code-review.invalid' } }), 0);
    // an ordinary address still signs in (and is provisioned with no role)
    assert.equal(await attempt('new.person@example.test', 'idp-subject-3'), true);
  });

  test('a session cookie minted for one is not honoured', async () => {
    const res = await callRoute({ handler: myTokensRoute.GET, url: '/api/me/tokens', cookie: await sessionCookie(shadow) });
    assert.equal(res.status, 401);
  });

  test('the admin users list labels them; a role, a password or an email in their domain is refused', async () => {
    const list = await callRoute({ handler: usersRoute.GET, url: '/api/admin/users', cookie: adminCookie });
    const users = (list.json as { users: Array<{ id: string; kind: string; codeReviewHost: string | null }> }).users;
    assert.deepEqual(
      users.filter((u) => u.id === shadow.id).map((u) => [u.kind, u.codeReviewHost]),
      [['CODE_REVIEW', 'GitHub']],
    );
    assert.equal(users.find((u) => u.id === admin.id)?.kind, 'PERSON');

    const role = await callRoute({
      handler: userRoute.PATCH,
      url: `/api/admin/users/${shadow.id}`,
      method: 'PATCH',
      cookie: adminCookie,
      params: { id: shadow.id },
      body: { roles: ['GRADER'] },
    });
    assert.equal(role.status, 409, JSON.stringify(role.json));
    assert.match(JSON.stringify(role.json), /code-review identity/);
    const password = await callRoute({
      handler: userRoute.PATCH,
      url: `/api/admin/users/${shadow.id}`,
      method: 'PATCH',
      cookie: adminCookie,
      params: { id: shadow.id },
      body: { password: 'a-new-password-1' },
    });
    assert.equal(password.status, 409);
    const row = await db.db.user.findUniqueOrThrow({ where: { id: shadow.id } });
    assert.deepEqual([row.roles, row.passwordHash], [[], null]);
    // disabling stays possible (it changes nothing they could do, and keeps the record)
    const disable = await callRoute({
      handler: userRoute.PATCH,
      url: `/api/admin/users/${shadow.id}`,
      method: 'PATCH',
      cookie: adminCookie,
      params: { id: shadow.id },
      body: { disabled: true },
    });
    assert.equal(disable.status, 200);
    await db.db.user.update({ where: { id: shadow.id }, data: { disabledAt: null } });

    const create = await callRoute({
      handler: usersRoute.POST,
      url: '/api/admin/users',
      method: 'POST',
      cookie: adminCookie,
      body: { email: 'mallory@github-abc.code-review.invalid', name: 'M', password: 'long-enough-pass', roles: ['ADMIN'] },
    });
    assert.equal(create.status, 422, JSON.stringify(create.json));
  });

  test('grading never offers them as graders, nor takes one, even with a role forced into the row', async () => {
    await db.db.user.update({ where: { id: shadow.id }, data: { roles: ['GRADER'] } });
    const options = await callRoute({ handler: gradingOptionsRoute.GET, url: '/api/grading/options', cookie: adminCookie });
    assert.equal(options.status, 200, JSON.stringify(options.json));
    const graders = (options.json as { graders: Array<{ id: string }> }).graders.map((g) => g.id);
    assert.ok(graders.includes(admin.id));
    assert.ok(!graders.includes(shadow.id));
    await assert.rejects(
      createQueue({
        actor: { id: admin.id, email: admin.email, name: admin.name, roles: ['ADMIN', 'MANAGER'] },
        input: { name: 'q', gradersPerFix: 1, graderIds: [shadow.id], filter: {}, instructions: '' } as never,
      }),
      (err: Error) => /grader/.test(err.message),
    );
  });
});
