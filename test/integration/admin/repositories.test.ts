import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { listRepositories, registerRepository, setRepositoryArchived, updateRepository } from '../../../lib/repositories/service';
import { resolveEffectiveSettings } from '../../../common/settings';
import { AppError } from '../../../lib/errors';

function isAppError(code: AppError['code']) {
  return (err: unknown) => err instanceof AppError && err.code === code;
}

describe('admin: repositories', () => {
  let db: TestDb;
  let adminId: string;

  before(async () => {
    db = await createTestDb();
    adminId = (await db.db.user.create({ data: { email: 'admin@example.test', name: 'Admin', roles: ['ADMIN'] } })).id;
  });
  after(() => db.drop());

  test('register stores the admin values without defaults, validated, and audits', async () => {
    const repo = await registerRepository({
      actorId: adminId,
      input: {
        name: 'shop',
        gitUrl: '/srv/git/shop',
        defaultBranch: 'main',
        language: 'python',
        settings: { test: '  pytest {ids} --junitxml=junit.xml ', junitReport: 'junit.xml', timeLimits: { testSeconds: 120 } },
        filterPolicy: { pre: { botAuthor: false } },
        modelSettings: { policy: 'tiered' },
      },
    });
    const row = await db.db.repository.findUniqueOrThrow({ where: { id: repo.id } });
    assert.deepEqual(row.settings, {
      test: 'pytest {ids} --junitxml=junit.xml',
      junitReport: 'junit.xml',
      timeLimits: { testSeconds: 120 },
      language: 'python',
    });
    assert.deepEqual(row.filterPolicy, { pre: { botAuthor: false } });
    assert.deepEqual(row.modelSettings, { policy: 'tiered' });
    assert.equal(row.language, 'python');
    // the effective view fills in defaults
    assert.equal((repo.effective?.settings.timeLimits as { buildSeconds: number }).buildSeconds, 600);
    assert.equal((repo.effective?.modelSettings as { temperature: number }).temperature, 0.1);
    // and a .flowfix.json value the admin did not set still shows through at run time
    const effective = resolveEffectiveSettings({
      adminSettings: row.settings,
      adminFilterPolicy: row.filterPolicy,
      flowfixFileText: JSON.stringify({ settings: { build: 'make' }, filterPolicy: { post: { maxFixLines: 50 } } }),
    });
    assert.equal(effective.settings.build, 'make');
    assert.equal(effective.settings.test, 'pytest {ids} --junitxml=junit.xml');
    assert.equal(effective.filterPolicy.post.maxFixLines, 50);
    assert.equal(effective.filterPolicy.pre.botAuthor, false);

    const audit = await db.db.auditLog.findMany({ where: { targetId: repo.id } });
    assert.deepEqual(
      audit.map((a) => [a.action, a.actorId]),
      [['repository.register', adminId]],
    );
  });

  test('invalid and unknown settings are refused with the path, and nothing is stored', async () => {
    const count = await db.db.repository.count();
    await assert.rejects(
      registerRepository({ actorId: adminId, input: { name: 'bad1', gitUrl: '/x', settings: { timeLimits: { testSeconds: -1 } } } }),
      (err: unknown) => isAppError('validation')(err) && JSON.stringify((err as AppError).details).includes('settings.timeLimits.testSeconds'),
    );
    await assert.rejects(
      registerRepository({ actorId: adminId, input: { name: 'bad2', gitUrl: '/x', modelSettings: { polcy: 'llm' } } }),
      (err: unknown) => isAppError('validation')(err) && JSON.stringify((err as AppError).details).includes('modelSettings.polcy'),
    );
    await assert.rejects(
      registerRepository({ actorId: adminId, input: { name: 'bad3', gitUrl: '/x', filterPolicy: { pre: { botAuthr: true } } } }),
      (err: unknown) => isAppError('validation')(err) && JSON.stringify((err as AppError).details).includes('filterPolicy.pre.botAuthr'),
    );
    assert.equal(await db.db.repository.count(), count);
  });

  test('names, git locations and branches are checked', async () => {
    for (const input of [
      { name: '../etc', gitUrl: '/srv/x' },
      { name: 'ok', gitUrl: '--upload-pack=touch /tmp/pwned' },
      { name: 'ok', gitUrl: 'relative/path' },
      { name: 'ok', gitUrl: '/srv/x', defaultBranch: '-rf' },
      { name: 'ok', gitUrl: '/srv/x', defaultBranch: 'a..b' },
      { name: 'ok', gitUrl: '/srv/x', language: 'cobol' },
    ]) {
      await assert.rejects(registerRepository({ actorId: adminId, input: input as never }), { name: 'ZodError' }, JSON.stringify(input));
    }
    for (const gitUrl of ['https://git.example.com/a/b.git', 'git@github.com:acme/web.git', 'ssh://git@host/x', 'file:///srv/x']) {
      const r = await registerRepository({ actorId: adminId, input: { name: `ok-${gitUrl.length}`, gitUrl } });
      assert.equal(r.gitUrl, gitUrl);
    }
  });

  test('a duplicate name is a 409', async () => {
    await assert.rejects(registerRepository({ actorId: adminId, input: { name: 'shop', gitUrl: '/srv/other' } }), isAppError('conflict'));
  });

  test('update changes only what was sent, keeps language in sync, and audits the change', async () => {
    const repo = await registerRepository({
      actorId: adminId,
      input: { name: 'web', gitUrl: '/srv/git/web', settings: { test: 'npm test -- {files}' } },
    });
    const updated = await updateRepository({ actorId: adminId, id: repo.id, input: { defaultBranch: 'trunk', language: 'javascript' } });
    assert.equal(updated.defaultBranch, 'trunk');
    assert.equal(updated.gitUrl, '/srv/git/web');
    assert.deepEqual(updated.settings, { test: 'npm test -- {files}', language: 'javascript' });
    const withModel = await updateRepository({ actorId: adminId, id: repo.id, input: { modelSettings: { policy: 'llm', model: 'gpt-x' } } });
    assert.deepEqual(withModel.modelSettings, { policy: 'llm', model: 'gpt-x' });
    await assert.rejects(updateRepository({ actorId: adminId, id: repo.id, input: { name: 'shop' } }), isAppError('conflict'));
    await assert.rejects(updateRepository({ actorId: adminId, id: 'nope', input: { name: 'zzz' } }), isAppError('not_found'));
    const audit = await db.db.auditLog.findMany({ where: { targetId: repo.id }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      audit.map((a) => a.action),
      ['repository.register', 'repository.update', 'repository.update'],
    );
    assert.deepEqual((audit[1].data as { changed: string[] }).changed, ['defaultBranch', 'language', 'settings']);
  });

  test('archive and unarchive, each audited once', async () => {
    const repo = await registerRepository({ actorId: adminId, input: { name: 'legacy', gitUrl: '/srv/git/legacy' } });
    const archived = await setRepositoryArchived({ actorId: adminId, id: repo.id, archived: true });
    assert.ok(archived.archivedAt);
    const again = await setRepositoryArchived({ actorId: adminId, id: repo.id, archived: true });
    assert.equal(again.archivedAt?.getTime(), archived.archivedAt.getTime());
    assert.ok(!(await listRepositories({ includeArchived: false })).some((r) => r.id === repo.id));
    assert.ok((await listRepositories()).some((r) => r.id === repo.id));
    const back = await setRepositoryArchived({ actorId: adminId, id: repo.id, archived: false });
    assert.equal(back.archivedAt, null);
    const actions = (await db.db.auditLog.findMany({ where: { targetId: repo.id }, orderBy: { id: 'asc' } })).map((a) => a.action);
    assert.deepEqual(actions, ['repository.register', 'repository.archive', 'repository.unarchive']);
  });
});
