import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { callRoute, sessionCookie } from '../routes/http-helpers';
import { getChangeDetail } from '../../../lib/changes/detail';
import { diffForEditedFix, getFixById, getFixFiles, listReviewQueue } from '../../../lib/fixes/queries';
import { applyFilePatch, parsePatch } from '../../../lib/diff/apply';
import { AppError } from '../../../lib/errors';
import { GET as getChangeRoute } from '../../../app/api/changes/[id]/route';
import { GET as getFixRoute } from '../../../app/api/fixes/[id]/route';
import { GET as getFilesRoute } from '../../../app/api/fixes/[id]/files/route';
import { GET as getQueueRoute } from '../../../app/api/review-queue/route';
import { FixSummary } from '../../../components/change/fix-summary';
import { FailureEvidence } from '../../../components/change/failure-evidence';
import { CiLog } from '../../../components/change/ci-log';

// The change page's reads over a real database and a real git repository:
// what getChangeDetail returns, the files route that rebuilds both sides of a
// fix from the repository, the edited-fix diff, the review queue, and that
// hostile text (a model's summary, CI's test names and logs) reaches the
// browser inert.

const HOSTILE = '<img src=x onerror=alert(1)><script>alert(2)</script>';

const CART_V1 = [
  "import { roundCents } from './money.js';",
  '',
  'export function total(items) {',
  '  let sum = 0;',
  '  for (const item of items) sum += item.price * item.qty;',
  '  return roundCents(sum * 0.9);',
  '}',
  '',
  'export function count(items) {',
  '  return items.length;',
  '}',
  '',
].join('\n');

let db: TestDb;
let repoDir: string;
let headRev: string;
let fixDiff: string;
let reviewerCookie: string;
let graderCookie: string;

function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: repoDir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: repoDir, GIT_CONFIG_NOSYSTEM: '1' } as unknown as NodeJS.ProcessEnv,
  });
}

before(async () => {
  db = await createTestDb();
  repoDir = mkdtempSync(path.join(tmpdir(), 'flowfix-detail-repo-'));
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  writeFileSync(path.join(repoDir, 'cart.js'), CART_V1);
  writeFileSync(path.join(repoDir, 'notes.md'), 'a\n');
  git('add', '.');
  git('commit', '-q', '-m', 'head');
  headRev = git('rev-parse', 'HEAD').trim();
  // the fix, as a real git diff of the repository
  writeFileSync(path.join(repoDir, 'cart.js'), CART_V1.replace('sum * 0.9', 'sum'));
  writeFileSync(path.join(repoDir, 'added.js'), 'export const added = 1;\n');
  git('add', '-N', 'added.js');
  fixDiff = git('diff');
  git('checkout', '-q', '--', 'cart.js');
  rmSync(path.join(repoDir, 'added.js'));

  const { db: prisma } = db;
  const [reviewer, grader] = await Promise.all([
    prisma.user.create({ data: { email: 'r@example.com', name: 'Riley', roles: ['REVIEWER'] } }),
    prisma.user.create({ data: { email: 'g@example.com', name: 'Grace', roles: ['GRADER'] } }),
  ]);
  reviewerCookie = await sessionCookie(reviewer);
  graderCookie = await sessionCookie(grader);

  const repo = await prisma.repository.create({ data: { name: 'shop', gitUrl: repoDir } });
  await prisma.change.create({
    data: {
      id: 'chg_1',
      repositoryId: repo.id,
      externalId: 'PR-42',
      title: `Discount ${HOSTILE}`,
      author: 'renovate[bot]',
      authorKind: 'BOT',
      branch: 'feature/discount',
      baseRev: headRev,
      headRev,
      status: 'FIX_READY',
      failingTestCount: 2,
    },
  });
  await prisma.changeRevision.create({
    data: {
      id: 'rev_1',
      changeId: 'chg_1',
      number: 1,
      baseRev: headRev,
      headRev,
      branch: 'feature/discount',
      ciLog: `build ok\n${HOSTILE}\nnot ok 1 - total\n`,
      ciUrl: 'https://ci.example.com/1',
    },
  });
  await prisma.failure.createMany({
    data: [
      {
        changeId: 'chg_1',
        revisionId: 'rev_1',
        testId: 'test/cart.test.js::total adds prices',
        testName: `total ${HOSTILE}`,
        message: 'Expected values to be strictly equal:\n\n9 !== 10\n',
        logExcerpt: "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n  actual: 9,\n  expected: 10,\n  operator: 'strictEqual'",
      },
      {
        changeId: 'chg_1',
        revisionId: 'rev_1',
        testId: 'tests/test_fees.py::test_fee',
        testName: 'test_fee',
        message: "assert Decimal('25.00') == Decimal('35.00')",
      },
    ],
  });
  const base = { changeId: 'chg_1', revisionId: 'rev_1', policy: 'offline' };
  await prisma.run.create({
    data: {
      ...base,
      id: 'run_old',
      status: 'NO_FIX',
      exitReason: 'no_candidate',
      createdAt: new Date('2026-05-01T10:00:00Z'),
      startedAt: new Date('2026-05-01T10:00:05Z'),
      finishedAt: new Date('2026-05-01T10:02:05Z'),
    },
  });
  await prisma.run.create({
    data: {
      ...base,
      id: 'run_new',
      status: 'FIXED',
      exitReason: 'fixed',
      toolCalls: 12,
      promptTokens: 1000,
      completionTokens: 200,
      costUsd: 0.05,
      createdAt: new Date('2026-05-02T10:00:00Z'),
      startedAt: new Date('2026-05-02T10:00:05Z'),
      finishedAt: new Date('2026-05-02T10:09:05Z'),
    },
  });
  await prisma.fix.create({
    data: {
      id: 'fix_1',
      runId: 'run_new',
      changeId: 'chg_1',
      revisionId: 'rev_1',
      diff: fixDiff,
      files: ['added.js', 'cart.js'],
      // stored unsanitised on purpose: the read path must not trust the write path
      summaryHtml: `<p>Root cause: <code>total()</code> applies a discount.</p>${HOSTILE}<a href="javascript:alert(3)">x</a>`,
      evidence: {
        targets: ['test/cart.test.js::total adds prices'],
        red: { gate: 'red', passed: true, durationMs: 1200 },
        green: { gate: 'green', passed: true, durationMs: 900, tests: [{ id: 't', status: 'passed' }] },
        regression: { gate: 'regression', passed: true, durationMs: 4000 },
        final: { gate: 'final', passed: true, durationMs: 950 },
        verdicts: [],
      },
      createdAt: new Date('2026-05-02T10:09:05Z'),
    },
  });
});

after(async () => {
  await db?.drop();
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
});

describe('getChangeDetail', () => {
  test('returns the change, failures with expected/actual, runs newest first and the fix', async () => {
    const d = await getChangeDetail({ id: 'chg_1' });
    assert.equal(d.change.externalId, 'PR-42');
    assert.equal(d.change.authorKind, 'BOT');
    assert.equal(d.change.repository.name, 'shop');
    assert.equal(d.revision?.ciUrl, 'https://ci.example.com/1');
    assert.deepEqual(
      d.runs.map((r) => [r.id, r.status, r.durationMs, r.fixId]),
      [
        ['run_new', 'FIXED', 9 * 60_000, 'fix_1'],
        ['run_old', 'NO_FIX', 2 * 60_000, null],
      ],
    );
    const node = d.failures.find((f) => f.testId.startsWith('test/cart'))!;
    assert.deepEqual(node.expectedActual, { expected: '10', actual: '9', operator: 'strictEqual' });
    const py = d.failures.find((f) => f.testId.startsWith('tests/'))!;
    assert.deepEqual(py.expectedActual, { expected: "Decimal('35.00')", actual: "Decimal('25.00')", operator: '==' });
    assert.equal(d.fixes.length, 1);
    const fix = d.fixes[0];
    assert.deepEqual(
      fix.evidence.gates.map((g) => [g.gate, g.passed, g.durationMs]),
      [
        ['red', true, 1200],
        ['green', true, 900],
        ['regression', true, 4000],
        ['final', true, 950],
      ],
    );
    assert.equal(fix.run.toolCalls, 12);
    assert.equal(fix.diffStat.files, 2);
    assert.equal(fix.onLatestRevision, true);
  });

  test('sanitises the summary again on the way out', async () => {
    const { summaryHtml } = await getFixById({ id: 'fix_1' });
    assert.match(summaryHtml, /<code>total\(\)<\/code>/);
    assert.doesNotMatch(summaryHtml, /<img|<script|onerror|javascript:/i);
  });

  test('an unknown change is not found', async () => {
    await assert.rejects(getChangeDetail({ id: 'nope' }), (err: unknown) => err instanceof AppError && err.code === 'not_found');
  });
});

describe('hostile text renders inert', () => {
  test('the summary component renders only the sanitised markup', async () => {
    const fix = await getFixById({ id: 'fix_1' });
    const html = renderToStaticMarkup(createElement(FixSummary, { html: fix.summaryHtml }));
    assert.doesNotMatch(html, /<img|<script|onerror=|javascript:/i);
    assert.match(html, /Root cause/);
  });

  test('test names and messages are escaped text', async () => {
    const d = await getChangeDetail({ id: 'chg_1' });
    const html = renderToStaticMarkup(createElement(FailureEvidence, { failures: d.failures, testCounts: d.testCounts }));
    assert.doesNotMatch(html, /<img|<script/i);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;&lt;script&gt;/);
  });

  test('the log component is collapsed and never parses the log as markup', async () => {
    const d = await getChangeDetail({ id: 'chg_1' });
    const html = renderToStaticMarkup(createElement(CiLog, { log: d.revision!.ciLog, truncatedBytes: 0 }));
    assert.doesNotMatch(html, /<img|<script/i);
    // collapsed by default: the lines are not even rendered until opened
    assert.doesNotMatch(html, /not ok 1/);
  });
});

describe('what the change page says about counts', () => {
  test('an empty log says so, one line is one line, a final newline starts none', () => {
    const render = (log: string) => renderToStaticMarkup(createElement(CiLog, { log, truncatedBytes: 0 }));
    assert.match(render(''), /\(empty\)/);
    assert.doesNotMatch(render(''), /1 lines/);
    assert.match(render('only line\n'), /\(1 line\)/);
    assert.match(render('a\nb'), /\(2 lines\)/);
  });

  test('the whole report is counted beside the failures', () => {
    const html = renderToStaticMarkup(
      createElement(FailureEvidence, {
        failures: [],
        testCounts: { reports: 1, tests: 412, passed: 404, failed: 2, errored: 1, skipped: 5, durationMs: 41_000 },
      }),
    );
    assert.match(html, /3 of 412 tests failed · 1 errored · 5 skipped/);
  });
});

describe('getFixFiles', () => {
  test('rebuilds both sides from the repository at the fix revision', async () => {
    const files = await getFixFiles({ id: 'fix_1' });
    const cart = files.find((f) => f.path === 'cart.js')!;
    assert.equal(cart.complete, true);
    assert.equal(cart.language, 'javascript');
    assert.equal(cart.original, CART_V1);
    assert.equal(cart.modified, CART_V1.replace('sum * 0.9', 'sum'));
    const added = files.find((f) => f.path === 'added.js')!;
    assert.deepEqual([added.status, added.original, added.modified], ['added', '', 'export const added = 1;\n']);
  });

  test('falls back to the hunks when the revision is not in the repository', async () => {
    await db.db.changeRevision.update({ where: { id: 'rev_1' }, data: { headRev: 'f'.repeat(40) } });
    try {
      const cart = (await getFixFiles({ id: 'fix_1' })).find((f) => f.path === 'cart.js')!;
      assert.equal(cart.complete, false);
      assert.match(cart.original, /roundCents\(sum \* 0\.9\)/);
      assert.match(cart.modified, /roundCents\(sum\);/);
      // lines stay at their real line numbers
      assert.equal(cart.original.split('\n')[5], '  return roundCents(sum * 0.9);');
      await assert.rejects(
        diffForEditedFix({ id: 'fix_1', files: [{ path: 'cart.js', modified: 'x\n' }] }),
        (err: unknown) => err instanceof AppError && err.code === 'conflict',
      );
    } finally {
      await db.db.changeRevision.update({ where: { id: 'rev_1' }, data: { headRev } });
    }
  });

  test('an edited file turns back into a diff that applies to the original', async () => {
    const edited = CART_V1.replace('sum * 0.9', 'sum * 1');
    const { diff, stat } = await diffForEditedFix({ id: 'fix_1', files: [{ path: 'cart.js', modified: edited }] });
    const patches = parsePatch(diff);
    const cart = patches.find((p) => p.newPath === 'cart.js')!;
    assert.equal(applyFilePatch({ original: CART_V1, patch: cart }), edited);
    // the files the reviewer did not touch keep the fix's version
    assert.ok(patches.some((p) => p.newPath === 'added.js' && p.status === 'added'));
    assert.equal(stat.files, 2);
    await assert.rejects(diffForEditedFix({ id: 'fix_1', files: [{ path: 'other.js', modified: 'x' }] }), AppError);
  });
});

describe('listReviewQueue', () => {
  test('lists READY fixes newest first, pages with a cursor, and gives plain-text summaries', async () => {
    const { db: prisma } = db;
    for (const [i, status] of (['READY', 'APPLIED', 'READY'] as const).entries()) {
      await prisma.run.create({ data: { id: `run_q${i}`, changeId: 'chg_1', revisionId: 'rev_1', policy: 'offline', status: 'FIXED' } });
      await prisma.fix.create({
        data: {
          id: `fix_q${i}`,
          runId: `run_q${i}`,
          changeId: 'chg_1',
          revisionId: 'rev_1',
          diff: fixDiff,
          files: ['cart.js'],
          status,
          summaryHtml: `<p>q${i} &amp; <b>bold</b></p>`,
          createdAt: new Date(Date.UTC(2026, 4, 3 + i)),
        },
      });
    }
    const first = await listReviewQueue({ limit: 2 });
    assert.deepEqual(
      first.items.map((i) => i.fixId),
      ['fix_q2', 'fix_q0'],
    );
    assert.equal(first.items[0].summaryText, 'q2 & bold');
    assert.ok(first.nextCursor);
    const second = await listReviewQueue({ limit: 2, cursor: first.nextCursor! });
    assert.deepEqual(
      second.items.map((i) => i.fixId),
      ['fix_1'],
    );
    assert.equal(second.nextCursor, null);
    assert.match(second.items[0].summaryText, /^Root cause: total\(\) applies a discount\./);
    assert.doesNotMatch(second.items[0].summaryText, /onerror|<script/);
  });
});

describe('routes', () => {
  test('GET /api/changes/:id answers the roles that browse changes, 403 a grader who holds no other role, 404 an unknown change, 401 signed out', async () => {
    const ok = await callRoute({ handler: getChangeRoute, url: '/api/changes/chg_1', cookie: reviewerCookie, params: { id: 'chg_1' } });
    assert.equal(ok.status, 200);
    assert.equal((ok.json as { change: { id: string } }).change.id, 'chg_1');
    const missing = await callRoute({ handler: getChangeRoute, url: '/api/changes/x', cookie: reviewerCookie, params: { id: 'x' } });
    assert.equal(missing.status, 404);
    // reviewers' decisions are on this page: graders grade blind
    const grader = await callRoute({ handler: getChangeRoute, url: '/api/changes/chg_1', cookie: graderCookie, params: { id: 'chg_1' } });
    assert.equal(grader.status, 403);
    const anon = await callRoute({ handler: getChangeRoute, url: '/api/changes/chg_1', params: { id: 'chg_1' } });
    assert.equal(anon.status, 401);
  });

  test('GET /api/fixes/:id and /files', async () => {
    const fix = await callRoute({ handler: getFixRoute, url: '/api/fixes/fix_1', cookie: reviewerCookie, params: { id: 'fix_1' } });
    assert.equal(fix.status, 200);
    assert.doesNotMatch((fix.json as { summaryHtml: string }).summaryHtml, /onerror/);
    const files = await callRoute({ handler: getFilesRoute, url: '/api/fixes/fix_1/files', cookie: reviewerCookie, params: { id: 'fix_1' } });
    assert.equal(files.status, 200);
    assert.deepEqual((files.json as { files: Array<{ path: string }> }).files.map((f) => f.path).sort(), ['added.js', 'cart.js']);
    const none = await callRoute({ handler: getFilesRoute, url: '/api/fixes/x/files', cookie: reviewerCookie, params: { id: 'x' } });
    assert.equal(none.status, 404);
  });

  test('GET /api/review-queue validates its query', async () => {
    const ok = await callRoute({ handler: getQueueRoute, url: '/api/review-queue?limit=1', cookie: reviewerCookie });
    assert.equal(ok.status, 200);
    assert.equal((ok.json as { items: unknown[] }).items.length, 1);
    const bad = await callRoute({ handler: getQueueRoute, url: '/api/review-queue?cursor=garbage', cookie: reviewerCookie });
    assert.equal(bad.status, 422);
  });
});
