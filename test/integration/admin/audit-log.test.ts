import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NextRequest } from 'next/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { GET as auditRoute } from '../../../app/api/admin/audit/route';
import { GET as exportRoute } from '../../../app/api/admin/audit/export/route';
import { POST as unlockRoute } from '../../../app/api/admin/users/[id]/unlock/route';
import { createUser, updateUser } from '../../../lib/users/service';
import { issueCiToken, revokeCiToken } from '../../../lib/tokens/ci-tokens';
import { authorizeCredentials } from '../../../lib/auth/options';

// The admin audit log over its routes: filters by actor, action and period,
// keyset pages that together are the whole filtered log, and exports (CSV,
// JSON) holding exactly what the filter shows.

interface Entry {
  id: string;
  action: string;
  actor: { id: string } | null;
  createdAt: string;
  targetId: string | null;
  targetName: string | null;
}
interface Page {
  entries: Entry[];
  nextCursor: string | null;
  actions: string[];
}

describe('admin audit log', () => {
  let db: TestDb;
  let admin: { id: string; email: string };
  let other: { id: string };
  let cookie = '';

  before(async () => {
    db = await createTestDb();
    admin = await createUser({ actorId: null, input: { email: 'root@audit.test', name: 'Root', password: 'root-password-1', roles: ['ADMIN'] } });
    other = await createUser({ actorId: null, input: { email: 'other@audit.test', name: 'Other', password: 'other-password-1', roles: ['ADMIN'] } });
    cookie = await sessionCookie(admin);
    // real actions, by two admins
    const ada = await createUser({ actorId: admin.id, input: { email: 'ada@audit.test', name: 'Ada', password: 'ada-password-1', roles: [] } });
    await updateUser({ actorId: admin.id, id: ada.id, input: { roles: ['REVIEWER'] } });
    await updateUser({ actorId: other.id, id: ada.id, input: { disabled: true } });
    const issued = await issueCiToken({ actorId: other.id, input: { name: 'ci', allRepositories: true } });
    await revokeCiToken({ actorId: other.id, id: issued.record.id });
    assert.equal(await authorizeCredentials({ email: 'ada@audit.test', password: 'wrong-password' }), null);
    assert.ok(await authorizeCredentials({ email: 'root@audit.test', password: 'root-password-1' }));
  });
  after(() => db.drop());

  async function page(query: string): Promise<{ status: number; json: Page }> {
    const res = await callRoute({ handler: auditRoute, url: `/api/admin/audit?${query}`, cookie });
    return { status: res.status, json: res.json as Page };
  }

  async function download(query: string): Promise<{ status: number; type: string | null; disposition: string | null; text: string }> {
    const res = await exportRoute(new NextRequest(`http://localhost:3000/api/admin/audit/export?${query}`, { headers: { cookie } }), {
      params: Promise.resolve({}),
    });
    return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), text: await res.text() };
  }

  test('filters by actor, by action or action family, and by period', async () => {
    const byOther = await page(`actor=${other.id}`);
    assert.equal(byOther.status, 200);
    assert.deepEqual(
      byOther.json.entries.map((e) => e.action),
      ['token.revoke', 'token.issue', 'user.update'],
    );
    assert.ok(byOther.json.entries.every((e) => e.actor?.id === other.id));

    const auth = await page('action=auth.');
    assert.deepEqual(
      auth.json.entries.map((e) => e.action),
      ['auth.signin', 'auth.signin.failure'],
    );
    const exact = await page('action=auth.signin');
    assert.deepEqual(
      exact.json.entries.map((e) => e.action),
      ['auth.signin'],
    );
    assert.ok(auth.json.actions.includes('token.issue') && auth.json.actions.includes('auth.signin.failure'), 'the actions the log holds, for the filter');

    const all = await page('limit=200');
    const newest = all.json.entries[0];
    const onlyNewest = await page(`from=${encodeURIComponent(newest.createdAt)}&to=${encodeURIComponent(newest.createdAt)}`);
    assert.ok(onlyNewest.json.entries.some((e) => e.id === newest.id));
    assert.ok(onlyNewest.json.entries.every((e) => e.createdAt === newest.createdAt));
    assert.equal((await page('from=2000-01-01&to=2000-01-31')).json.entries.length, 0);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(
      (await page(`from=${today}&to=${today}&limit=200`)).json.entries.length,
      all.json.entries.length,
      'a bare day as "to" includes that whole day',
    );
  });

  test('keyset pages, newest first, together are the whole filtered log without repeats', async () => {
    const all = (await page('limit=200')).json.entries.map((e) => e.id);
    assert.ok(all.length >= 8);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { json: Page } = await page(`limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(res.json.entries.length <= 3);
      seen.push(...res.json.entries.map((e) => e.id));
      cursor = res.json.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, all);
    assert.deepEqual(
      [...all].sort((a, b) => Number(BigInt(b) - BigInt(a))),
      all,
    );
  });

  test('bad filters are a clear 422', async () => {
    for (const q of ['from=yesterday', 'cursor=abc', 'action=DROP%20TABLE', 'from=2026-02-01&to=2026-01-01', 'limit=5000']) {
      const res = await callRoute({ handler: auditRoute, url: `/api/admin/audit?${q}`, cookie });
      assert.equal(res.status, 422, q);
    }
    assert.equal((await download('format=xml')).status, 422);
  });

  test('CSV and JSON exports hold exactly the filtered entries; in the same order', async () => {
    const shown = (await page(`actor=${admin.id}&limit=200`)).json.entries;
    const csv = await download(`format=csv&actor=${admin.id}`);
    assert.equal(csv.status, 200);
    assert.match(csv.type ?? '', /^text\/csv/);
    assert.match(csv.disposition ?? '', /^attachment; filename="flowfix-audit-.*\.csv"$/);
    const lines = csv.text.trimEnd().split('\r\n');
    assert.equal(lines[0], 'id,createdAt,actorKind,actorId,actorEmail,action,targetType,targetId,data,targetName');
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(',')[0]),
      shown.map((e) => e.id),
    );

    const json = await download(`format=json&actor=${admin.id}`);
    assert.equal(json.status, 200);
    const parsed = JSON.parse(json.text) as { entries: Entry[] };
    assert.deepEqual(
      parsed.entries.map((e) => e.id),
      shown.map((e) => e.id),
    );
  });

  test('targets are named: a user by name and e-mail, a CI token by its name, in the page and both exports', async () => {
    const ada = await db.db.user.findUniqueOrThrow({ where: { email: 'ada@audit.test' } });
    const updates = (await page('action=user.update')).json.entries;
    assert.ok(updates.length >= 2);
    for (const e of updates) assert.equal(e.targetName, 'Ada <ada@audit.test>', JSON.stringify(e));
    const tokens = (await page('action=token.')).json.entries;
    assert.ok(tokens.length >= 2);
    for (const e of tokens) assert.equal(e.targetName, 'ci', JSON.stringify(e));

    const csv = (await download('format=csv&action=user.update')).text.trimEnd().split('\r\n');
    for (const line of csv.slice(1)) {
      assert.ok(line.includes(ada.id), line);
      assert.ok(line.endsWith(',Ada <ada@audit.test>'), line);
    }
    const json = JSON.parse((await download('format=json&action=user.update')).text) as { entries: Entry[] };
    assert.deepEqual([...new Set(json.entries.map((e) => e.targetName))], ['Ada <ada@audit.test>']);
  });

  test('a change, its fix and its repository are named by repository and change id; a target gone from the database keeps its id', async () => {
    const repository = await db.db.repository.create({ data: { name: 'acme/shop', gitUrl: '/nonexistent', language: 'javascript' } });
    const change = await db.db.change.create({
      data: { repositoryId: repository.id, externalId: 'PR-7', title: 'Totals', author: 'Dev', branch: 'b', baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40) },
    });
    const revision = await db.db.changeRevision.create({
      data: { changeId: change.id, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: 'b' },
    });
    const run = await db.db.run.create({ data: { changeId: change.id, revisionId: revision.id, policy: 'offline', status: 'FIXED' } });
    const fix = await db.db.fix.create({
      data: { runId: run.id, changeId: change.id, revisionId: revision.id, diff: '', files: [], summaryHtml: '', evidence: {} },
    });
    const { writeAudit } = await import('../../../lib/audit');
    for (const [targetType, targetId] of [
      ['repository', repository.id],
      ['change', change.id],
      ['fix', fix.id],
      ['run', run.id],
      ['fix', 'gone'],
    ]) {
      await writeAudit({ actorId: admin.id, actorKind: 'user', action: 'test.target_name', targetType, targetId });
    }
    const named = (await page('action=test.target_name')).json.entries.map((e) => [e.targetId, e.targetName]).reverse();
    assert.deepEqual(named, [
      [repository.id, 'acme/shop'],
      [change.id, 'acme/shop PR-7'],
      [fix.id, 'fix of acme/shop PR-7'],
      [run.id, 'run of acme/shop PR-7'],
      ['gone', null],
    ]);
  });

  test('the unlock route is audited with the admin as actor', async () => {
    const ada = await db.db.user.findUniqueOrThrow({ where: { email: 'ada@audit.test' } });
    const res = await callRoute({ handler: unlockRoute, url: `/api/admin/users/${ada.id}/unlock`, method: 'POST', cookie, params: { id: ada.id } });
    assert.equal(res.status, 200);
    const unlocks = (await page('action=auth.unlock')).json.entries;
    assert.deepEqual(
      unlocks.map((e) => [e.actor?.id, e.targetId]),
      [[admin.id, ada.id]],
    );
    const missing = await callRoute({ handler: unlockRoute, url: '/api/admin/users/nope/unlock', method: 'POST', cookie, params: { id: 'nope' } });
    assert.equal(missing.status, 404);
  });
});
