import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { listRunModels } from '../../../lib/insights/options';
import { GET as getOptions } from '../../../app/api/insights/options/route';

// The Insights filter's model list: the distinct models runs used, the most
// recently used first, without the runs that used none (offline policy). On
// PGlite and on PostgreSQL (FLOWFIX_TEST_DB).

const MIN = 60_000;
const T0 = Date.parse('2026-11-10T09:00:00Z');

let db: TestDb;
let managerCookie: string;
let reviewerCookie: string;
let adminCookie: string;

async function addRuns(models: Array<{ model: string | null; atMin: number }>): Promise<void> {
  const repo = await db.db.repository.create({ data: { name: `repo-${Math.random().toString(36).slice(2, 8)}`, gitUrl: '/srv/r.git' } });
  const change = await db.db.change.create({
    data: {
      repositoryId: repo.id,
      externalId: 'C1',
      title: 'change',
      author: 'Dana',
      branch: 'b',
      baseRev: 'a'.repeat(40),
      headRev: 'b'.repeat(40),
      createdAt: new Date(T0),
      lastFailureAt: new Date(T0),
    },
  });
  const revision = await db.db.changeRevision.create({
    data: { changeId: change.id, number: 1, baseRev: 'a'.repeat(40), headRev: 'b'.repeat(40), branch: 'b', createdAt: new Date(T0) },
  });
  await db.db.run.createMany({
    data: models.map(({ model, atMin }) => ({
      changeId: change.id,
      revisionId: revision.id,
      policy: model ? 'llm' : 'offline',
      model,
      status: 'NO_FIX' as const,
      createdAt: new Date(T0 + atMin * MIN),
    })),
  });
}

before(async () => {
  db = await createTestDb();
  const manager = await db.db.user.create({ data: { email: 'm@example.test', name: 'Max', roles: ['MANAGER'] } });
  const reviewer = await db.db.user.create({ data: { email: 'r@example.test', name: 'Rae', roles: ['REVIEWER'] } });
  const admin = await db.db.user.create({ data: { email: 'a@example.test', name: 'Ada', roles: ['ADMIN'] } });
  managerCookie = await sessionCookie(manager);
  reviewerCookie = await sessionCookie(reviewer);
  adminCookie = await sessionCookie(admin);
});

after(async () => {
  await db?.drop();
});

test('no run yet: no model to offer', async () => {
  assert.deepEqual(await listRunModels({ db: db.db }), []);
});

test('each model once, the most recently used first; runs without a model leave none', async () => {
  // gpt-4.1 ran first and last; claude-x in between; o3 once, before claude-x
  await addRuns([
    { model: 'gpt-4.1', atMin: 0 },
    { model: 'o3', atMin: 5 },
    { model: 'claude-x', atMin: 10 },
    { model: null, atMin: 30 },
    { model: '', atMin: 31 },
    { model: 'gpt-4.1', atMin: 20 },
  ]);
  assert.deepEqual(await listRunModels({ db: db.db }), ['gpt-4.1', 'claude-x', 'o3']);
  // a model used again moves to the front, across changes and repositories
  await addRuns([{ model: 'o3', atMin: 60 }]);
  assert.deepEqual(await listRunModels({ db: db.db }), ['o3', 'gpt-4.1', 'claude-x']);
});

test('GET /api/insights/options: managers and admins get the list; reviewers 403, anonymous 401', async () => {
  const res = await callRoute({ handler: getOptions, url: '/api/insights/options', cookie: managerCookie });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, { models: await listRunModels({ db: db.db }) });
  assert.equal(res.headers.get('cache-control'), 'private, no-store');
  assert.equal((await callRoute({ handler: getOptions, url: '/api/insights/options', cookie: adminCookie })).status, 200);
  assert.equal((await callRoute({ handler: getOptions, url: '/api/insights/options', cookie: reviewerCookie })).status, 403);
  assert.equal((await callRoute({ handler: getOptions, url: '/api/insights/options' })).status, 401);
});
