import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { createUser, listUsers, updateUser } from '../../../lib/users/service';
import { verifyPassword } from '../../../lib/auth/password';
import { authorizeCredentials } from '../../../lib/auth/options';
import { AppError } from '../../../lib/errors';

function isAppError(code: AppError['code']) {
  return (err: unknown) => err instanceof AppError && err.code === code;
}

describe('admin: users', () => {
  let db: TestDb;
  let adminId: string;

  before(async () => {
    db = await createTestDb();
    const admin = await createUser({
      actorId: null,
      input: { email: 'root@example.test', name: 'Root', password: 'root-password-1', roles: ['ADMIN'] },
    });
    adminId = admin.id;
  });
  after(() => db.drop());

  test('creating a user stores a scrypt hash, not the password, and the password verifies', async () => {
    const created = await createUser({
      actorId: adminId,
      input: { email: '  Ada@Example.TEST ', name: 'Ada', password: 'correct horse battery', roles: ['REVIEWER', 'GRADER'] },
    });
    assert.equal(created.email, 'ada@example.test');
    assert.deepEqual(created.roles, ['REVIEWER', 'GRADER']);
    assert.equal(created.hasPassword, true);
    assert.equal('passwordHash' in created, false, 'the view never carries the hash');

    const row = await db.db.user.findUniqueOrThrow({ where: { id: created.id } });
    assert.ok(row.passwordHash);
    assert.notEqual(row.passwordHash, 'correct horse battery');
    assert.ok(!row.passwordHash.includes('correct horse battery'));
    assert.match(row.passwordHash, /^scrypt\$/);
    assert.equal(await verifyPassword('correct horse battery', row.passwordHash), true);
    assert.equal(await verifyPassword('wrong password here', row.passwordHash), false);
    // and the user can sign in with it
    assert.equal((await authorizeCredentials({ email: 'ada@example.test', password: 'correct horse battery' }))?.id, created.id);
  });

  test('each admin mutation writes an audit entry without the password', async () => {
    const created = await createUser({
      actorId: adminId,
      input: { email: 'audited@example.test', name: 'Audited', password: 'audited-password', roles: [] },
    });
    await updateUser({ actorId: adminId, id: created.id, input: { roles: ['MANAGER'], password: 'another-password-2' } });
    const entries = await db.db.auditLog.findMany({ where: { targetId: created.id }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      entries.map((e) => [e.action, e.actorId]),
      [
        ['user.create', adminId],
        ['user.update', adminId],
      ],
    );
    const serialized = JSON.stringify(entries.map((e) => e.data));
    assert.ok(!serialized.includes('audited-password') && !serialized.includes('another-password-2'));
    assert.deepEqual((entries[1].data as { roles: unknown }).roles, { from: [], to: ['MANAGER'] });
  });

  test('a duplicate email is a conflict (409), whatever its case', async () => {
    await assert.rejects(
      createUser({ actorId: adminId, input: { email: 'ADA@example.test', name: 'Ada 2', password: 'x'.repeat(12), roles: [] } }),
      (err: unknown) => isAppError('conflict')(err) && (err as AppError).status === 409,
    );
    const count = await db.db.user.count({ where: { email: 'ada@example.test' } });
    assert.equal(count, 1);
  });

  test('invalid input is rejected: short password, bad email, unknown role', async () => {
    for (const input of [
      { email: 'short@example.test', name: 'S', password: 'short', roles: [] },
      { email: 'not-an-email', name: 'S', password: 'long-enough-pw', roles: [] },
      { email: 'role@example.test', name: 'S', password: 'long-enough-pw', roles: ['ROOT'] },
    ]) {
      await assert.rejects(createUser({ actorId: adminId, input: input as never }), { name: 'ZodError' });
    }
  });

  test('roles can be changed and a disabled user can no longer sign in', async () => {
    const u = await createUser({
      actorId: adminId,
      input: { email: 'temp@example.test', name: 'Temp', password: 'temp-password-1', roles: ['REVIEWER'] },
    });
    const changed = await updateUser({ actorId: adminId, id: u.id, input: { roles: ['GRADER', 'GRADER', 'MANAGER'] } });
    assert.deepEqual(changed.roles, ['GRADER', 'MANAGER']);

    const disabled = await updateUser({ actorId: adminId, id: u.id, input: { disabled: true } });
    assert.ok(disabled.disabledAt instanceof Date);
    assert.equal(await authorizeCredentials({ email: 'temp@example.test', password: 'temp-password-1' }), null);

    const enabled = await updateUser({ actorId: adminId, id: u.id, input: { disabled: false } });
    assert.equal(enabled.disabledAt, null);
    assert.ok(await authorizeCredentials({ email: 'temp@example.test', password: 'temp-password-1' }));
  });

  test('an admin cannot remove their own admin role or disable themselves', async () => {
    await assert.rejects(updateUser({ actorId: adminId, id: adminId, input: { roles: ['REVIEWER'] } }), isAppError('conflict'));
    await assert.rejects(updateUser({ actorId: adminId, id: adminId, input: { disabled: true } }), isAppError('conflict'));
    const me = await db.db.user.findUniqueOrThrow({ where: { id: adminId } });
    assert.deepEqual(me.roles, ['ADMIN']);
    assert.equal(me.disabledAt, null);
    // adding a role to yourself is fine
    const more = await updateUser({ actorId: adminId, id: adminId, input: { roles: ['ADMIN', 'MANAGER'] } });
    assert.deepEqual(more.roles, ['ADMIN', 'MANAGER']);
  });

  test('the last enabled admin cannot be demoted or disabled by anyone', async () => {
    const second = await createUser({
      actorId: adminId,
      input: { email: 'second-admin@example.test', name: 'Second', password: 'second-password', roles: ['ADMIN'] },
    });
    // with two admins, the second may demote the first
    await updateUser({ actorId: second.id, id: adminId, input: { roles: ['MANAGER'] } });
    // now `second` is the only enabled admin: even another actor (e.g. a stale session) cannot demote them
    await assert.rejects(
      updateUser({ actorId: adminId, id: second.id, input: { roles: [] } }),
      (err: unknown) => isAppError('conflict')(err) && /last enabled admin/.test((err as Error).message),
    );
    await assert.rejects(updateUser({ actorId: adminId, id: second.id, input: { disabled: true } }), isAppError('conflict'));
    // a disabled admin does not count: re-grant ADMIN to the first, disable them, the guard still holds
    await updateUser({ actorId: second.id, id: adminId, input: { roles: ['ADMIN'] } });
    await updateUser({ actorId: second.id, id: adminId, input: { disabled: true } });
    await assert.rejects(updateUser({ actorId: 'someone-else', id: second.id, input: { roles: ['GRADER'] } }), isAppError('conflict'));
    await updateUser({ actorId: second.id, id: adminId, input: { disabled: false } });
  });

  test('two admins demoting each other at the same moment: exactly one succeeds', async () => {
    const a = await createUser({ actorId: null, input: { email: 'race-a@example.test', name: 'A', password: 'race-password-a', roles: ['ADMIN'] } });
    const b = await createUser({ actorId: null, input: { email: 'race-b@example.test', name: 'B', password: 'race-password-b', roles: ['ADMIN'] } });
    // leave only a and b as enabled admins
    // (filtered in JS: the PGlite adapter cannot bind an enum for `roles: { has }`)
    const others = (await listUsers()).filter((u) => u.roles.includes('ADMIN') && u.id !== a.id && u.id !== b.id);
    for (const o of others) await updateUser({ actorId: a.id, id: o.id, input: { roles: [] } });
    const results = await Promise.allSettled([
      updateUser({ actorId: a.id, id: b.id, input: { roles: ['REVIEWER'] } }),
      updateUser({ actorId: b.id, id: a.id, input: { roles: ['REVIEWER'] } }),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(results.map((r) => r.status)));
    const admins = (await listUsers()).filter((u) => u.roles.includes('ADMIN') && !u.disabledAt);
    assert.equal(admins.length, 1);
  });

  test('updating a user that does not exist is a 404', async () => {
    await assert.rejects(updateUser({ actorId: adminId, id: 'nope', input: { name: 'x' } }), isAppError('not_found'));
  });

  test('listUsers returns every user without password hashes', async () => {
    const users = await listUsers();
    assert.ok(users.length >= 5);
    assert.ok(users.every((u) => !('passwordHash' in u)));
    assert.ok(users.some((u) => u.email === 'root@example.test'));
  });
});
