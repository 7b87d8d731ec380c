import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { issueCiToken, listCiTokens, revokeCiToken } from '../../../lib/tokens/ci-tokens';
import { assertTokenCoversRepository, authenticateToken } from '../../../lib/tokens/auth';
import { AppError } from '../../../lib/errors';

function isAppError(code: AppError['code']) {
  return (err: unknown) => err instanceof AppError && err.code === code;
}

describe('admin: CI tokens', () => {
  let db: TestDb;
  let adminId: string;
  let repoA: string;
  let repoB: string;

  before(async () => {
    db = await createTestDb();
    adminId = (await db.db.user.create({ data: { email: 'admin@example.test', name: 'Admin', roles: ['ADMIN'] } })).id;
    repoA = (await db.db.repository.create({ data: { name: 'alpha', gitUrl: '/srv/git/alpha' } })).id;
    repoB = (await db.db.repository.create({ data: { name: 'beta', gitUrl: '/srv/git/beta' } })).id;
  });
  after(() => db.drop());

  test('issuing returns the plain token once and stores only its sha256', async () => {
    const { token, record } = await issueCiToken({ actorId: adminId, input: { name: 'ci main', allRepositories: true } });
    assert.match(token, /^ffx_[A-Za-z0-9_-]{43}$/);
    assert.equal(record.prefix, token.slice(0, 10));
    assert.equal('token' in record, false);
    assert.equal('tokenHash' in record, false);

    const row = await db.db.ciToken.findUniqueOrThrow({ where: { id: record.id } });
    assert.equal(row.tokenHash, createHash('sha256').update(token).digest('hex'));
    // the plain token is nowhere in the row or the audit log
    const audit = await db.db.auditLog.findMany({ where: { targetId: record.id } });
    assert.deepEqual(
      audit.map((a) => [a.action, a.actorId]),
      [['token.issue', adminId]],
    );
    const stored = JSON.stringify({ row, audit: audit.map((a) => ({ ...a, id: String(a.id) })) });
    assert.ok(!stored.includes(token));
    assert.ok(!stored.includes(token.slice(10)), 'not even the secret part');

    // the listing never exposes it either
    const listed = (await listCiTokens()).find((t) => t.id === record.id);
    assert.ok(listed);
    assert.ok(!JSON.stringify(listed).includes(token.slice(10)));
    assert.equal(listed.createdBy?.id, adminId);

    // and it authenticates
    const principal = await authenticateToken(`Bearer ${token}`);
    assert.equal(principal.tokenId, record.id);
    assert.equal(principal.allRepositories, true);
  });

  test('two issues never return the same token', async () => {
    const one = await issueCiToken({ actorId: adminId, input: { name: 'a', allRepositories: true } });
    const two = await issueCiToken({ actorId: adminId, input: { name: 'a', allRepositories: true } });
    assert.notEqual(one.token, two.token);
  });

  test('revoking makes authenticateToken throw 401, once audited, and is idempotent', async () => {
    const { token, record } = await issueCiToken({ actorId: adminId, input: { name: 'to revoke', allRepositories: true } });
    await authenticateToken(`Bearer ${token}`);
    const revoked = await revokeCiToken({ actorId: adminId, id: record.id });
    assert.ok(revoked.revokedAt instanceof Date);
    await assert.rejects(authenticateToken(`Bearer ${token}`), (err: unknown) => isAppError('unauthenticated')(err) && (err as AppError).status === 401);
    const again = await revokeCiToken({ actorId: adminId, id: record.id });
    assert.equal(again.revokedAt?.getTime(), revoked.revokedAt.getTime());
    const audit = await db.db.auditLog.findMany({ where: { targetId: record.id, action: 'token.revoke' } });
    assert.equal(audit.length, 1);
  });

  test('revoking an unknown token is a 404', async () => {
    await assert.rejects(revokeCiToken({ actorId: adminId, id: 'nope' }), isAppError('not_found'));
  });

  test('a scoped token covers exactly its repositories', async () => {
    const { token, record } = await issueCiToken({
      actorId: adminId,
      input: { name: 'alpha only', allRepositories: false, repositoryIds: [repoA, repoA] },
    });
    assert.deepEqual(record.repositories, [{ id: repoA, name: 'alpha' }]);
    const principal = await authenticateToken(`Bearer ${token}`);
    assert.equal(principal.allRepositories, false);
    assert.deepEqual(principal.repositoryIds, [repoA]);
    assert.doesNotThrow(() => assertTokenCoversRepository(principal, repoA));
    assert.throws(() => assertTokenCoversRepository(principal, repoB), isAppError('forbidden'));
  });

  test('scope validation: none chosen, unknown or archived repositories are refused and nothing is stored', async () => {
    const before = await db.db.ciToken.count();
    await assert.rejects(issueCiToken({ actorId: adminId, input: { name: 'empty', allRepositories: false, repositoryIds: [] } }), { name: 'ZodError' });
    await assert.rejects(
      issueCiToken({ actorId: adminId, input: { name: 'ghost', allRepositories: false, repositoryIds: [repoA, 'ghost'] } }),
      isAppError('validation'),
    );
    const archived = await db.db.repository.create({ data: { name: 'old', gitUrl: '/srv/git/old', archivedAt: new Date() } });
    await assert.rejects(
      issueCiToken({ actorId: adminId, input: { name: 'old', allRepositories: false, repositoryIds: [archived.id] } }),
      isAppError('validation'),
    );
    assert.equal(await db.db.ciToken.count(), before);
  });

  test('an expired token is refused', async () => {
    const { token, record } = await issueCiToken({
      actorId: adminId,
      input: { name: 'short-lived', allRepositories: true, expiresAt: new Date(Date.now() + 60_000).toISOString() },
    });
    await authenticateToken(`Bearer ${token}`);
    await db.db.ciToken.update({ where: { id: record.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await assert.rejects(authenticateToken(`Bearer ${token}`), isAppError('unauthenticated'));
  });

  test('a token expires in 90 days unless the admin chooses another expiry or none, and the audit says which', async () => {
    const day = 24 * 3600_000;
    const byDefault = await issueCiToken({ actorId: adminId, input: { name: 'default expiry', allRepositories: false, repositoryIds: [repoA] } });
    assert.ok(byDefault.record.expiresAt, 'an expiry was set');
    const days = (byDefault.record.expiresAt.getTime() - Date.now()) / day;
    assert.ok(days > 89.9 && days <= 90, `${days} days`);

    const chosen = new Date(Date.now() + 7 * day);
    const week = await issueCiToken({
      actorId: adminId,
      input: { name: 'a week', allRepositories: false, repositoryIds: [repoA], expiresAt: chosen.toISOString() },
    });
    assert.equal(week.record.expiresAt?.getTime(), chosen.getTime());

    const never = await issueCiToken({ actorId: adminId, input: { name: 'never', allRepositories: true, expiresAt: null } });
    assert.equal(never.record.expiresAt, null);
    await authenticateToken(`Bearer ${never.token}`);

    const audit = await db.db.auditLog.findMany({ where: { targetId: { in: [byDefault.record.id, never.record.id] } }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      audit.map((a) => (a.data as { expiresAt: string | null }).expiresAt),
      [byDefault.record.expiresAt.toISOString(), null],
    );
  });
});
