import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { POST as previewRoute } from '@/app/api/fixes/[id]/preview/route';
import { POST as rejectRoute } from '@/app/api/fixes/[id]/reject/route';
import { POST as acceptRoute } from '@/app/api/fixes/[id]/accept/route';
import { POST as editAcceptRoute } from '@/app/api/fixes/[id]/edit-accept/route';
import { issuePersonalToken } from '../../../lib/tokens/personal-tokens';
import { createFixFor, createUser } from './helpers';

// The surface a decision is recorded with comes from how the caller
// authenticated, never from what the body says; and an edited diff whose
// paths leave the workspace is refused at the route, before any run exists.

describe('decision surface and edited-diff paths', () => {
  let db: TestDb;
  let reviewer: { id: string; email: string; name: string };
  let cookie = '';
  let bearer = '';

  before(async () => {
    db = await createTestDb();
    reviewer = await createUser(db.db, 'Rae Viewer', ['REVIEWER']);
    cookie = await sessionCookie(reviewer);
    bearer = `Bearer ${(await issuePersonalToken({ userId: reviewer.id, input: { name: 'laptop', scope: 'decide' } })).token}`;
  });
  after(() => db.drop());

  const newFix = () => createFixFor(db.db, { gitUrl: '/nonexistent/shop', headRev: 'a'.repeat(40), baseRev: 'b'.repeat(40) });

  test('a dashboard session records DASHBOARD, a personal token CLI', async () => {
    const { fix } = await newFix();
    const viaCookie = await callRoute({ handler: previewRoute, url: `/api/fixes/${fix.id}/preview`, method: 'POST', cookie, body: {}, params: { id: fix.id } });
    assert.equal(viaCookie.status, 200);
    const viaToken = await callRoute({
      handler: previewRoute,
      url: `/api/fixes/${fix.id}/preview`,
      method: 'POST',
      authorization: bearer,
      body: {},
      params: { id: fix.id },
    });
    assert.equal(viaToken.status, 200);
    const rejected = await callRoute({
      handler: rejectRoute,
      url: `/api/fixes/${fix.id}/reject`,
      method: 'POST',
      authorization: bearer,
      body: { reason: 'WRONG_FIX' },
      params: { id: fix.id },
    });
    assert.equal(rejected.status, 200);
    const decisions = await db.db.decision.findMany({ where: { fixId: fix.id }, orderBy: { createdAt: 'asc' } });
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.surface]),
      [
        ['PREVIEW', 'DASHBOARD'],
        ['PREVIEW', 'CLI'],
        ['REJECT', 'CLI'],
      ],
    );
    const audit = await db.db.auditLog.findMany({ where: { targetId: fix.id }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      audit.map((e) => [e.action, (e.data as { surface?: string }).surface]),
      [
        ['fix.preview', 'DASHBOARD'],
        ['fix.preview', 'CLI'],
        ['fix.reject', 'CLI'],
      ],
    );
  });

  test('a surface in the body is refused with a clear 422 on every decision route, and nothing is recorded', async () => {
    const { fix } = await newFix();
    const cases = [
      { handler: previewRoute, path: 'preview', body: { surface: 'CLI' } },
      { handler: rejectRoute, path: 'reject', body: { reason: 'WRONG_FIX', surface: 'API' } },
      { handler: acceptRoute, path: 'accept', body: { mode: 'local', surface: 'DASHBOARD' } },
      {
        handler: editAcceptRoute,
        path: 'edit-accept',
        body: { diff: 'diff --git a/cart.js b/cart.js\n--- a/cart.js\n+++ b/cart.js\n@@ -1 +1 @@\n-a\n+b\n', surface: 'API' },
      },
    ];
    for (const c of cases) {
      const res = await callRoute({ handler: c.handler, url: `/api/fixes/${fix.id}/${c.path}`, method: 'POST', cookie, body: c.body, params: { id: fix.id } });
      assert.equal(res.status, 422, `${c.path}: ${JSON.stringify(res.json)}`);
      assert.match(JSON.stringify(res.json), /surface is set by the server/, c.path);
    }
    assert.equal(await db.db.decision.count({ where: { fixId: fix.id } }), 0);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'READY');
  });

  test('an edited diff with a path outside the workspace is a 422 before any run is queued', async () => {
    const { fix, change } = await newFix();
    const escapes = [
      ['../outside.js', '../outside.js'],
      ['/etc/passwd', '/etc/passwd'],
      ['cart.js', '../../cart.js'],
      ['.git/hooks/post-checkout', '.git/hooks/post-checkout'],
    ];
    for (const [from, to] of escapes) {
      const diff = `diff --git a/${from} b/${to}\n--- a/${from}\n+++ b/${to}\n@@ -1 +1 @@\n-a\n+b\n`;
      const res = await callRoute({
        handler: editAcceptRoute,
        url: `/api/fixes/${fix.id}/edit-accept`,
        method: 'POST',
        cookie,
        body: { diff },
        params: { id: fix.id },
      });
      assert.equal(res.status, 422, `${to}: ${JSON.stringify(res.json)}`);
      assert.match(JSON.stringify(res.json), /outside the repository|inside \.git/, to);
    }
    const renameOut = 'diff --git a/cart.js b/cart.js\nsimilarity index 100%\nrename from cart.js\nrename to ../cart.js\n';
    const res = await callRoute({
      handler: editAcceptRoute,
      url: `/api/fixes/${fix.id}/edit-accept`,
      method: 'POST',
      cookie,
      body: { diff: renameOut + '--- a/cart.js\n+++ b/cart.js\n' },
      params: { id: fix.id },
    });
    assert.equal(res.status, 422, JSON.stringify(res.json));
    assert.equal(await db.db.run.count({ where: { changeId: change.id, trigger: 'REVALIDATE' } }), 0);
  });
});
