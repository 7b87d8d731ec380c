import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NextRequest } from 'next/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { listChanges, listRepositoryOptions, type ChangeListItem } from '../../../lib/changes/list-changes';
import { encodeCursor } from '../../../lib/http/cursor';
import { TOTAL_COUNT_CAP, type ChangeListFilters } from '../../../common/change-query';
import { AppError } from '../../../lib/errors';
import { sessionCookie } from '../routes/http-helpers';
import { GET } from '../../../app/api/changes/route';
import type { Prisma } from '../../../lib/generated/prisma/client';

// A small, hand-made data set whose every row is known, so each filter's
// answer can be computed independently of the code under test.

const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
const TIE = new Date('2026-05-30T00:00:00.000Z');

let db: TestDb;
let repoIds: Record<string, string>;

type Seed = Omit<Prisma.ChangeCreateManyInput, 'repositoryId' | 'baseRev' | 'headRev'> & { repo: string };

function seedRows(): Seed[] {
  const rows: Seed[] = [
    {
      id: 'c_offbyone',
      repo: 'alpha',
      externalId: 'PR-101',
      title: 'Fix off-by-one in pager',
      author: 'ada',
      branch: 'fix/pager',
      status: 'FIX_READY',
      lastFailureAt: new Date(NOW.getTime() - 1 * HOUR),
      failingTestCount: 2,
      revisionNumber: 3,
    },
    {
      id: 'c_renovate',
      repo: 'alpha',
      externalId: 'PR-102',
      title: 'Bump lodash to 4.17.21',
      author: 'renovate[bot]',
      authorKind: 'BOT',
      branch: 'renovate/lodash',
      status: 'SKIPPED',
      statusReason: 'bot author',
      lastFailureAt: new Date(NOW.getTime() - 2 * HOUR),
    },
    {
      id: 'c_operator',
      repo: 'beta',
      externalId: 'PR-7',
      title: 'Use >= for the retry limit',
      author: 'grace',
      branch: 'feature/retries',
      status: 'NO_FIX',
      lastFailureAt: new Date(NOW.getTime() - 30 * HOUR),
    },
    {
      id: 'c_history',
      repo: 'beta',
      externalId: 'HIST-1',
      title: 'Historical change about parsers',
      author: 'ada',
      branch: 'old/parser',
      status: 'APPLIED',
      origin: 'DEMO_HISTORY',
      lastFailureAt: new Date(NOW.getTime() - 20 * 24 * HOUR),
    },
    {
      id: 'c_percent',
      repo: 'alpha',
      externalId: 'PR-103',
      title: 'Coverage to 100% in utils',
      author: 'linus',
      branch: 'chore/coverage_utils',
      status: 'NEW',
      lastFailureAt: new Date(NOW.getTime() - 3 * HOUR),
    },
    {
      id: 'c_stale',
      repo: 'beta',
      externalId: 'PR-8',
      title: 'Rename config loader',
      author: 'Grace',
      branch: 'refactor/config',
      status: 'STALE',
      lastFailureAt: new Date(NOW.getTime() - 8 * 24 * HOUR),
    },
  ];
  // 23 changes failing at the very same millisecond: the id breaks the tie
  for (let i = 0; i < 23; i += 1) {
    const n = String(i).padStart(2, '0');
    rows.push({
      id: `t_${n}`,
      repo: i % 2 ? 'alpha' : 'beta',
      externalId: `TIE-${n}`,
      title: `Tied change ${n}`,
      author: 'tie-bot',
      authorKind: 'BOT',
      branch: `tie/${n}`,
      status: 'QUEUED',
      lastFailureAt: TIE,
    });
  }
  return rows;
}

const SEEDS = seedRows();

/** The expected order, computed without the code under test. */
function expectedIds(predicate: (s: Seed) => boolean): string[] {
  return SEEDS.filter(predicate)
    .sort((a, b) => (b.lastFailureAt as Date).getTime() - (a.lastFailureAt as Date).getTime() || (a.id! < b.id! ? 1 : -1))
    .map((s) => s.id!);
}

const ids = (items: ChangeListItem[]) => items.map((i) => i.id);
const list = (filters: Partial<ChangeListFilters>, extra: { cursor?: string; limit?: number } = {}) =>
  listChanges({ filters: { history: 'include', ...filters }, now: NOW, limit: 100, ...extra });

async function allPages(filters: Partial<ChangeListFilters>, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await list(filters, { cursor, limit });
    pages.push(ids(page.items));
    cursor = page.nextCursor ?? undefined;
    assert.ok(pages.length < 100, 'pagination must end');
  } while (cursor);
  return pages;
}

before(async () => {
  db = await createTestDb();
  repoIds = {};
  for (const name of ['alpha', 'beta', 'empty-repo']) {
    repoIds[name] = (await db.db.repository.create({ data: { name, gitUrl: `/srv/${name}.git` } })).id;
  }
  await db.db.change.createMany({
    data: SEEDS.map(({ repo, ...s }) => ({ ...s, repositoryId: repoIds[repo]!, baseRev: 'base', headRev: 'head' })),
  });
});

after(async () => {
  await db?.drop();
});

describe('listChanges', () => {
  test('orders by latest failure, newest first, then by id descending', async () => {
    const page = await list({});
    assert.deepEqual(
      ids(page.items),
      expectedIds(() => true),
    );
    assert.equal(page.nextCursor, null);
    assert.deepEqual(page.total, { count: SEEDS.length, capped: false });
  });

  test('returns what a row of the triage table shows', async () => {
    const [first] = (await list({ q: 'PR-101' })).items;
    assert.deepEqual(first, {
      id: 'c_offbyone',
      externalId: 'PR-101',
      title: 'Fix off-by-one in pager',
      url: null,
      branch: 'fix/pager',
      repository: { id: repoIds.alpha, name: 'alpha' },
      status: 'FIX_READY',
      statusReason: null,
      author: 'ada',
      authorKind: 'HUMAN',
      isHistory: false,
      lastFailureAt: new Date(NOW.getTime() - HOUR).toISOString(),
      ageMs: HOUR,
      failingTestCount: 2,
      revisionNumber: 3,
      activeRun: null,
    });
    const [skipped] = (await list({ q: 'lodash' })).items;
    assert.equal(skipped?.statusReason, 'bot author');
    assert.equal(skipped?.authorKind, 'BOT');
  });

  test('cursor pages across a tie on lastFailureAt: no duplicates, no gaps', async () => {
    for (const limit of [1, 4, 7, 23]) {
      const pages = await allPages({}, limit);
      const flat = pages.flat();
      assert.deepEqual(
        flat,
        expectedIds(() => true),
        `limit ${limit}`,
      );
      assert.equal(new Set(flat).size, flat.length);
      assert.ok(
        pages.slice(0, -1).every((p) => p.length === limit),
        'every page but the last is full',
      );
    }
  });

  test('the cursor keeps working with filters applied', async () => {
    const pages = await allPages({ status: ['QUEUED'], repo: 'alpha' }, 5);
    assert.deepEqual(
      pages.flat(),
      expectedIds((s) => s.status === 'QUEUED' && s.repo === 'alpha'),
    );
  });

  test('a page after the cursor starts strictly after it, and the last page has no cursor', async () => {
    const first = await list({}, { limit: 3 });
    assert.ok(first.nextCursor);
    assert.equal(first.items.length, 3);
    const second = await list({}, { limit: 3, cursor: first.nextCursor });
    assert.equal(second.total, null, 'no count work after the first page');
    assert.deepEqual(ids(second.items), expectedIds(() => true).slice(3, 6));
    // a cursor on the last row of all yields an empty last page
    const lastId = expectedIds(() => true).at(-1)!;
    const lastSeed = SEEDS.find((s) => s.id === lastId)!;
    const end = await list({}, { cursor: encodeCursor({ at: lastSeed.lastFailureAt as Date, id: lastId }) });
    assert.deepEqual(end.items, []);
    assert.equal(end.nextCursor, null);
  });

  test('filters by one or several statuses', async () => {
    assert.deepEqual(ids((await list({ status: ['SKIPPED'] })).items), ['c_renovate']);
    assert.deepEqual(
      ids((await list({ status: ['FIX_READY', 'NO_FIX', 'STALE'] })).items),
      expectedIds((s) => ['FIX_READY', 'NO_FIX', 'STALE'].includes(s.status as string)),
    );
  });

  test('filters by repository name; an unknown or empty repository gives an empty list', async () => {
    assert.deepEqual(
      ids((await list({ repo: 'beta' })).items),
      expectedIds((s) => s.repo === 'beta'),
    );
    assert.deepEqual((await list({ repo: 'no-such-repo' })).items, []);
    assert.deepEqual((await list({ repo: 'empty-repo' })).total, { count: 0, capped: false });
  });

  test('filters by author kind and by exact author', async () => {
    assert.deepEqual(
      ids((await list({ kind: 'BOT' })).items),
      expectedIds((s) => s.authorKind === 'BOT'),
    );
    assert.deepEqual(
      ids((await list({ kind: 'HUMAN' })).items),
      expectedIds((s) => s.authorKind !== 'BOT'),
    );
    assert.deepEqual(ids((await list({ author: 'ada' })).items), ['c_offbyone', 'c_history']);
  });

  test('filters by exact status reason (the Insights funnel links here)', async () => {
    assert.deepEqual(ids((await list({ reason: 'bot author' })).items), ['c_renovate']);
    assert.deepEqual(ids((await list({ status: ['SKIPPED'], reason: 'bot author' })).items), ['c_renovate']);
    assert.deepEqual((await list({ reason: 'bot' })).items, [], 'exact, not a substring');
  });

  test('includes or hides demo history', async () => {
    const all = (await list({})).items;
    assert.equal(all.find((i) => i.id === 'c_history')?.isHistory, true);
    assert.deepEqual(
      ids((await list({ history: 'exclude' })).items),
      expectedIds((s) => s.origin !== 'DEMO_HISTORY'),
    );
  });

  test('a text search reports no total (counting matches of a common word is not bounded in cost)', async () => {
    const page = await list({ q: 'Tied change' }, { limit: 5 });
    assert.equal(page.total, null);
    assert.equal(page.items.length, 5);
    assert.ok(page.nextCursor);
  });

  test('searches title, external id, author and branch, case-insensitively', async () => {
    assert.deepEqual(ids((await list({ q: 'OFF-BY-ONE' })).items), ['c_offbyone']);
    assert.deepEqual(ids((await list({ q: 'pr-7' })).items), ['c_operator']);
    assert.deepEqual(ids((await list({ q: 'renovate' })).items), ['c_renovate']);
    assert.deepEqual(ids((await list({ q: 'feature/retr' })).items), ['c_operator']);
    // "grace" and "Grace" are two authors; search finds both
    assert.deepEqual(ids((await list({ q: 'grace' })).items), ['c_operator', 'c_stale']);
    assert.deepEqual((await list({ q: 'zzzz-no-such-change' })).items, []);
  });

  test('search treats % and _ literally, not as wildcards', async () => {
    assert.deepEqual(ids((await list({ q: '100%' })).items), ['c_percent']);
    assert.deepEqual(ids((await list({ q: '%' })).items), ['c_percent']);
    assert.deepEqual(ids((await list({ q: 'coverage_utils' })).items), ['c_percent']);
    assert.deepEqual(
      (await list({ q: '_' })).items.map((i) => i.id),
      ['c_percent'],
    );
  });

  test('filters by age of the latest failure', async () => {
    assert.deepEqual(ids((await list({ maxAge: '24h' })).items), ['c_offbyone', 'c_renovate', 'c_percent']);
    assert.deepEqual(ids((await list({ minAge: '7d' })).items), ['c_stale', 'c_history']);
    assert.deepEqual(
      ids((await list({ minAge: '1d', maxAge: '7d' })).items),
      expectedIds((s) => {
        const age = NOW.getTime() - (s.lastFailureAt as Date).getTime();
        return age >= 24 * HOUR && age <= 7 * 24 * HOUR;
      }),
    );
  });

  test('combines filters with AND', async () => {
    assert.deepEqual(ids((await list({ repo: 'alpha', kind: 'HUMAN', maxAge: '2h' })).items), ['c_offbyone']);
    assert.deepEqual((await list({ repo: 'beta', status: ['SKIPPED'] })).items, []);
  });

  test('an invalid cursor is a validation error (422), before any query', async () => {
    await assert.rejects(
      () => list({}, { cursor: 'definitely-not-a-cursor' }),
      (err: unknown) => err instanceof AppError && err.status === 422,
    );
  });

  test('lists repositories for the filter', async () => {
    assert.deepEqual(
      (await listRepositoryOptions()).map((r) => r.name),
      ['alpha', 'beta', 'empty-repo'],
    );
  });
});

describe('total is bounded', () => {
  test(`counts up to ${TOTAL_COUNT_CAP} and then says "more"`, async () => {
    const repo = await db.db.repository.create({ data: { name: 'bulk', gitUrl: '/srv/bulk.git' } });
    await db.db.change.createMany({
      data: Array.from({ length: TOTAL_COUNT_CAP + 5 }, (_, i) => ({
        repositoryId: repo.id,
        externalId: `BULK-${i}`,
        title: `bulk ${i}`,
        author: 'bulk',
        branch: 'bulk',
        baseRev: 'b',
        headRev: 'h',
        lastFailureAt: new Date(NOW.getTime() - 40 * 24 * HOUR - i * 1000),
      })),
    });
    const page = await list({ repo: 'bulk' }, { limit: 10 });
    assert.deepEqual(page.total, { count: TOTAL_COUNT_CAP, capped: true });
    assert.equal(page.items.length, 10);
    assert.ok(page.nextCursor);
  });
});

describe('GET /api/changes', () => {
  let cookie: string;
  let graderCookie: string;

  before(async () => {
    const user = await db.db.user.create({ data: { email: 'r@example.test', name: 'Rae', roles: ['MANAGER'] } });
    cookie = await sessionCookie(user);
    const grader = await db.db.user.create({ data: { email: 'g@example.test', name: 'Gil', roles: ['GRADER'] } });
    graderCookie = await sessionCookie(grader);
  });

  const get = (qs: string, headers: Record<string, string> = {}) =>
    GET(new NextRequest(`http://localhost/api/changes?${qs}`, { headers }), { params: Promise.resolve({}) });

  test('a grader who holds no other role is refused: the list shows reviewers’ outcomes', async () => {
    assert.equal((await get('limit=5', { cookie: graderCookie })).status, 403);
  });

  test('the roles that browse changes read a page; the cursor it returns leads on', async () => {
    const res = await get('status=QUEUED&limit=5', { cookie });
    assert.equal(res.status, 200);
    const page = (await res.json()) as { items: ChangeListItem[]; nextCursor: string | null };
    assert.deepEqual(ids(page.items), expectedIds((s) => s.status === 'QUEUED').slice(0, 5));
    const next = await get(`status=QUEUED&limit=5&cursor=${page.nextCursor}`, { cookie });
    assert.deepEqual(ids(((await next.json()) as { items: ChangeListItem[] }).items), expectedIds((s) => s.status === 'QUEUED').slice(5, 10));
  });

  test('422 for an invalid cursor or filter', async () => {
    for (const qs of ['cursor=bogus', 'status=BOGUS', 'limit=1000', 'kind=alien', 'minAge=5y']) {
      const res = await get(qs, { cookie });
      assert.equal(res.status, 422, qs);
      const body = (await res.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'validation');
    }
  });

  test('401 without a session', async () => {
    const res = await get('');
    assert.equal(res.status, 401);
  });
});
