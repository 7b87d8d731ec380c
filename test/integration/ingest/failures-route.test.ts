import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { parseJunitXml } from '@/lib/junit/parse';
import { counts, jsonRequest, metadata, multipartRequest, seed, send, URL_FAILURES, type Seeded } from './helpers';

// POST /api/v1/failures through the real route handler against a real,
// migrated database (FLOWFIX_TEST_DB=pglite|postgres).

const FIXTURES = 'test/fixtures/junit';
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));
const PRODUCERS = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.xml'));

const FAILING_XML = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="cart" tests="2" failures="1">
  <testcase classname="cart" name="total" time="0.01"><failure message="expected 3, got 4">AssertionError: expected 3, got 4
    at cart.test.js:5:3</failure></testcase>
  <testcase classname="cart" name="passes" time="0.01"/>
</testsuite></testsuites>`;

let db: TestDb;
let seeded: Seeded;

before(async () => {
  db = await createTestDb();
});
after(async () => {
  await db.drop();
});
beforeEach(async () => {
  await db.db.$executeRawUnsafe('TRUNCATE "AuditLog", "Failure", "Fix", "Run", "ChangeRevision", "Change", "CiTokenScope", "CiToken", "Repository" CASCADE');
  seeded = await seed(db.db);
});

describe('each JUnit producer, uploaded as a CI step would (multipart)', () => {
  for (const producer of PRODUCERS) {
    test(producer, async () => {
      const xml = fixture(producer);
      const expected = parseJunitXml(xml)
        .results.filter((r) => r.status === 'failed' || r.status === 'error')
        .map((r) => r.id)
        .sort();
      const res = await send(multipartRequest({ token: seeded.tokens.scoped, meta: metadata({ change: { externalId: producer } }), junit: [xml] }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.created, true);
      assert.equal(res.body.revisionNumber, 1);
      assert.equal(res.body.failures, expected.length);
      const stored = await db.db.failure.findMany({ where: { changeId: res.body.changeId as string }, orderBy: { testId: 'asc' } });
      assert.deepEqual(
        stored.map((f) => f.testId),
        expected,
      );
      for (const f of stored) {
        assert.ok(f.message.length > 0 || f.logExcerpt.length > 0, `${f.testId} has neither message nor excerpt`);
        assert.equal(f.ciUrl, 'https://ci.example.com/build/1');
      }
      const change = await db.db.change.findUniqueOrThrow({ where: { id: res.body.changeId as string } });
      assert.equal(change.failingTestCount, expected.length);
      // ingestion triages the new revision: nothing filters it out, so an AUTO run waits
      assert.equal(change.status, 'QUEUED');
    });
  }

  test('a report split over several junit parts (shards) is one failure set', async () => {
    const res = await send(multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [fixture('jest-junit.xml'), fixture('pytest.xml')] }));
    assert.equal(res.status, 201);
    assert.equal(res.body.failures, 2 + 4);
  });
});

describe('nothing in an upload is lost', () => {
  test('jest-junit repeating a name in a broken suite: all 6 failures stored, under distinct ids', async () => {
    const res = await send(multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [fixture('jest-junit-duplicates.xml')] }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.failures, 6);
    const stored = await db.db.failure.findMany({ where: { changeId: res.body.changeId as string } });
    assert.equal(new Set(stored.map((f) => f.testId)).size, 6);
    assert.equal(stored.filter((f) => f.testName === 'cart totals each line').length, 3);
  });

  test('a case with a failure and an error stores both kinds and messages', async () => {
    const res = await send(multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [fixture('failure-and-error.xml')] }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const refund = await db.db.failure.findFirstOrThrow({ where: { testName: 'balanceAfterRefund' } });
    assert.equal(refund.kind, 'error');
    assert.deepEqual(refund.problems, [
      { kind: 'failure', message: 'expected:<40> but was:<50>' },
      { kind: 'error', message: 'Connection pool closed during teardown' },
    ]);
    const { getChangeDetail } = await import('@/lib/changes/detail');
    const detail = await getChangeDetail({ id: res.body.changeId as string });
    assert.deepEqual(
      detail.failures.find((f) => f.testName === 'balanceAfterRefund')?.problems.map((p) => p.kind),
      ['failure', 'error'],
    );
  });

  test("the whole report's counts are stored per revision, a repost counted once, shards added up", async () => {
    const meta = metadata();
    const first = await send(multipartRequest({ token: seeded.tokens.scoped, meta, junit: [fixture('jest-junit-duplicates.xml')] }));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const repost = await send(multipartRequest({ token: seeded.tokens.scoped, meta, junit: [fixture('jest-junit-duplicates.xml')] }));
    assert.equal(repost.status, 200, JSON.stringify(repost.body));
    const shard = await send(multipartRequest({ token: seeded.tokens.scoped, meta, junit: [fixture('failure-and-error.xml')] }));
    assert.equal(shard.status, 200, JSON.stringify(shard.body));
    const reports = await db.db.testReport.findMany({ where: { revisionId: first.body.revisionId as string } });
    assert.equal(reports.length, 2);
    const { getChangeDetail } = await import('@/lib/changes/detail');
    const detail = await getChangeDetail({ id: first.body.changeId as string });
    assert.deepEqual(detail.testCounts, { reports: 2, tests: 11, passed: 2, failed: 6, errored: 2, skipped: 1, durationMs: 2146 });
  });

  test('a JSON-only upload has no counts to show', async () => {
    const res = await send(
      jsonRequest({ token: seeded.tokens.scoped, body: { ...metadata(), tests: [{ name: 'total', classname: 'cart', message: 'boom' }] } }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const { getChangeDetail } = await import('@/lib/changes/detail');
    assert.equal((await getChangeDetail({ id: res.body.changeId as string })).testCounts, null);
  });
});

describe('stored change, revision and failure', () => {
  test('JSON body with a test list, an inline JUnit report and a log', async () => {
    const res = await send(
      jsonRequest({
        token: seeded.tokens.all,
        body: metadata({
          junit: FAILING_XML,
          tests: [{ name: 'renders', classname: 'ui', file: 'ui.test.ts', line: 7, message: 'boom', details: 'stack', durationMs: 12.6 }],
          log: 'npm test\n2 failing\n',
          headCommittedAt: '2026-11-01T10:00:00Z',
          diffStat: { files: 3, additions: 10, deletions: 4 },
        }),
      }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const change = await db.db.change.findUniqueOrThrow({
      where: { id: res.body.changeId as string },
      include: { revisions: true, failures: { orderBy: { testId: 'asc' } } },
    });
    assert.equal(change.externalId, 'PR-1');
    assert.equal(change.title, 'Fix the cart total');
    assert.equal(change.author, 'Ada Lovelace');
    assert.equal(change.authorEmail, 'ada@example.com');
    assert.equal(change.authorKind, 'HUMAN');
    assert.equal(change.branch, 'feature/cart');
    assert.equal(change.headRev, 'b'.repeat(40));
    assert.equal(change.baseRev, 'a'.repeat(40));
    assert.equal(change.filesChanged, 3);
    assert.equal(change.linesChanged, 14);
    assert.equal(change.failingTestCount, 2);
    assert.equal(change.origin, 'CI');
    assert.equal(change.revisions.length, 1);
    assert.equal(change.revisions[0].ciLog, 'npm test\n2 failing\n');
    assert.equal(change.revisions[0].logTruncatedBytes, 0);
    assert.deepEqual(
      change.failures.map((f) => [f.testId, f.testName, f.file, f.line, f.message, f.durationMs]),
      [
        ['cart::total', 'total', null, null, 'expected 3, got 4', 10],
        ['ui::renders', 'renders', 'ui.test.ts', 7, 'boom', 13],
      ],
    );
    assert.match(change.failures[0].logExcerpt, /cart\.test\.js:5:3/);
    const audit = await db.db.auditLog.findFirstOrThrow({ where: { action: 'failure.ingest' } });
    assert.equal(audit.actorKind, 'token');
    assert.equal(audit.targetId, change.id);
    assert.equal((audit.data as { tokenId: string }).tokenId, (await db.db.ciToken.findFirstOrThrow({ where: { name: 'ci-all' } })).id);
  });

  test('a bot author is recognised from its name', async () => {
    const res = await send(
      jsonRequest({
        token: seeded.tokens.scoped,
        body: metadata({ junit: FAILING_XML, change: { author: 'dependabot[bot]', authorEmail: undefined } }),
      }),
    );
    assert.equal(res.status, 201);
    const change = await db.db.change.findUniqueOrThrow({ where: { id: res.body.changeId as string } });
    assert.equal(change.authorKind, 'BOT');
  });

  test('reposting the same revision is idempotent: 200, one record of each', async () => {
    const meta = metadata();
    const first = await send(multipartRequest({ token: seeded.tokens.scoped, meta, junit: [FAILING_XML], log: 'log' }));
    const second = await send(multipartRequest({ token: seeded.tokens.scoped, meta, junit: [FAILING_XML], log: 'log' }));
    const third = await send(jsonRequest({ token: seeded.tokens.scoped, body: { ...meta, junit: FAILING_XML } }));
    assert.equal(first.status, 201);
    assert.equal(second.status, 200);
    assert.equal(third.status, 200);
    assert.deepEqual(
      [second.body, third.body].map((b) => [b.changeId, b.revisionId, b.revisionNumber, b.failures, b.created]),
      [
        [first.body.changeId, first.body.revisionId, 1, 1, false],
        [first.body.changeId, first.body.revisionId, 1, 1, false],
      ],
    );
    const c = await counts(db.db);
    assert.deepEqual({ changes: c.changes, revisions: c.revisions, failures: c.failures }, { changes: 1, revisions: 1, failures: 1 });
  });

  test('a repost of the same revision adds tests another shard reported', async () => {
    const meta = metadata();
    await send(multipartRequest({ token: seeded.tokens.scoped, meta, junit: [FAILING_XML] }));
    const again = await send(multipartRequest({ token: seeded.tokens.scoped, meta, junit: [fixture('surefire.xml')] }));
    assert.equal(again.status, 200);
    assert.equal(again.body.failures, 3);
    const change = await db.db.change.findFirstOrThrow();
    assert.equal(change.failingTestCount, 3);
  });
});

describe('refusals: clear 4xx and nothing stored', () => {
  async function assertRefused(req: NextRequest, status: number, message: RegExp) {
    const before = await counts(db.db);
    const res = await send(req);
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.match(res.body.error?.message ?? '', message);
    assert.deepEqual(await counts(db.db), before);
    return res;
  }

  test('no token, unknown token, revoked token, expired token → 401', async () => {
    await assertRefused(jsonRequest({ body: metadata({ junit: FAILING_XML }) }), 401, /CI token is required/);
    await assertRefused(jsonRequest({ token: 'ffx_unknown', body: metadata({ junit: FAILING_XML }) }), 401, /Unknown CI token/);
    await assertRefused(jsonRequest({ token: seeded.tokens.revoked, body: metadata({ junit: FAILING_XML }) }), 401, /revoked/);
    await assertRefused(jsonRequest({ token: seeded.tokens.expired, body: metadata({ junit: FAILING_XML }) }), 401, /expired/);
  });

  test('an unknown and an out-of-scope repository answer a token exactly alike (404), so a token cannot learn which repositories exist', async () => {
    const outOfScope = await assertRefused(
      jsonRequest({ token: seeded.tokens.unscoped, body: metadata({ junit: FAILING_XML }) }),
      404,
      /No repository "shop" this CI token may report to/,
    );
    const unknown = await assertRefused(
      jsonRequest({ token: seeded.tokens.unscoped, body: metadata({ junit: FAILING_XML, repository: 'nope' }) }),
      404,
      /No repository "nope" this CI token may report to/,
    );
    const shape = (name: string) => ({ error: { code: 'not_found', message: `No repository "${name}" this CI token may report to` } });
    assert.deepEqual(outOfScope.body, shape('shop'));
    assert.deepEqual(unknown.body, shape('nope'));
    await assertRefused(
      jsonRequest({ token: seeded.tokens.all, body: metadata({ repository: 'nope', junit: FAILING_XML }) }),
      404,
      /No repository "nope" this CI token may report to/,
    );
  });

  test('unsupported content type → 415', async () => {
    const req = new NextRequest(URL_FAILURES, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.tokens.scoped}`, 'content-type': 'text/xml' },
      body: FAILING_XML,
    });
    await assertRefused(req, 415, /text\/xml is not supported/);
  });

  test('malformed JSON → 400', async () => {
    await assertRefused(jsonRequest({ token: seeded.tokens.scoped, body: '{"repository": "shop",' }), 400, /not valid JSON/);
  });

  test('a metadata part that is not JSON → 400; no metadata part → 400', async () => {
    const form = new FormData();
    form.set('metadata', 'repository=shop');
    const req = new NextRequest(URL_FAILURES, { method: 'POST', headers: { authorization: `Bearer ${seeded.tokens.scoped}` }, body: form });
    await assertRefused(req, 400, /`metadata` part is not valid JSON/);
    const bare = new FormData();
    bare.set('junit', new Blob([FAILING_XML]), 'r.xml');
    const req2 = new NextRequest(URL_FAILURES, { method: 'POST', headers: { authorization: `Bearer ${seeded.tokens.scoped}` }, body: bare });
    await assertRefused(req2, 400, /needs a `metadata` part/);
  });

  test('invalid metadata (missing head revision, javascript: URL) → 422 naming the fields', async () => {
    const meta = metadata({ junit: FAILING_XML, change: { url: 'javascript:alert(1)' } });
    delete meta.headRev;
    const res = await assertRefused(jsonRequest({ token: seeded.tokens.scoped, body: meta }), 422, /Invalid input/);
    const details = (res.body.error as unknown as { details: Array<{ path: string }> }).details;
    const paths = details.map((d) => d.path).sort();
    assert.deepEqual(paths, ['change.url', 'headRev']);
  });

  test('an upload in which nothing failed → 422 "nothing failed"', async () => {
    const passing = '<testsuite name="s"><testcase classname="a" name="ok"/><testcase classname="a" name="skip"><skipped/></testcase></testsuite>';
    await assertRefused(multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [passing] }), 422, /Nothing failed: none of the 2 tests/);
    await assertRefused(jsonRequest({ token: seeded.tokens.scoped, body: metadata() }), 422, /Nothing failed: the upload holds no test results/);
  });

  test('malformed XML → 400', async () => {
    await assertRefused(
      multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: ['<testsuite><testcase name="a"><failure>'] }),
      400,
      /not well-formed XML/,
    );
  });

  test('a good report next to a malformed one stores nothing', async () => {
    await assertRefused(
      multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [FAILING_XML, '<testsuite><oops></testsuite>'] }),
      400,
      /not well-formed XML/,
    );
  });

  test('XXE (external entity) → 400', async () => {
    const xxe = `<?xml version="1.0"?>
<!DOCTYPE testsuite [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<testsuite name="s"><testcase classname="a" name="b"><failure message="&xxe;">&xxe;</failure></testcase></testsuite>`;
    const res = await assertRefused(multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [xxe] }), 400, /DOCTYPE/);
    assert.doesNotMatch(JSON.stringify(res.body), /root:/);
  });

  test('billion laughs (entity expansion) → 400', async () => {
    const entities = Array.from({ length: 10 }, (_, i) => (i === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`)).join('\n');
    const bomb = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${entities}\n]>\n<testsuite><testcase classname="a" name="b"><failure message="&lol9;"/></testcase></testsuite>`;
    await assertRefused(jsonRequest({ token: seeded.tokens.scoped, body: metadata({ junit: bomb }) }), 400, /DOCTYPE/);
  });

  test('an upload over the limit announced by Content-Length → 413 before reading', async () => {
    const req = new NextRequest(URL_FAILURES, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${seeded.tokens.scoped}`,
        'content-type': 'application/json',
        'content-length': String(21 * 1024 * 1024),
      },
      body: '{}',
    });
    await assertRefused(req, 413, /limit is 20971520 bytes/);
  });

  test('a streamed upload with no Content-Length is cut off at the limit → 413', async () => {
    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 64 MiB if nobody stops reading
        if (sent >= 64) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const req = new NextRequest(URL_FAILURES, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.tokens.scoped}`, 'content-type': 'multipart/form-data; boundary=x' },
      body,
      duplex: 'half',
    } as ConstructorParameters<typeof NextRequest>[1]);
    assert.equal(req.headers.get('content-length'), null);
    await assertRefused(req, 413, /more than 20971520 bytes/);
    assert.ok(sent <= 22, `read ${sent} MiB before refusing`);
  });

  test('a real multipart upload just over 20 MB → 413', async () => {
    const big = new Uint8Array(20 * 1024 * 1024 + 1).fill(0x61);
    await assertRefused(multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [FAILING_XML], log: big }), 413, /limit/);
  });
});

describe('dirty input is repaired, not refused', () => {
  test('a huge log is truncated keeping head and tail with a marker', async () => {
    const head = 'HEAD-OF-LOG\n';
    const tail = '\nTAIL-OF-LOG: 1 failing';
    const log = head + 'x'.repeat(3 * 1024 * 1024) + tail;
    const res = await send(multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [FAILING_XML], log }));
    assert.equal(res.status, 201);
    const rev = await db.db.changeRevision.findUniqueOrThrow({ where: { id: res.body.revisionId as string } });
    assert.ok(rev.ciLog.startsWith(head));
    assert.ok(rev.ciLog.endsWith(tail));
    assert.ok(Buffer.byteLength(rev.ciLog) <= 256 * 1024);
    const match = /\[… flowfix cut (\d+) bytes of this log …\]/.exec(rev.ciLog);
    assert.ok(match, 'marker present');
    assert.equal(Number(match[1]), rev.logTruncatedBytes);
    assert.ok(rev.logTruncatedBytes > 3 * 1024 * 1024 - 256 * 1024);
  });

  test('invalid UTF-8 in a report and a log becomes U+FFFD', async () => {
    const xml = Buffer.concat([
      Buffer.from('<testsuite name="s"><testcase classname="enc" name="bytes"><failure message="bad '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(' here">trace '),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('</failure></testcase></testsuite>'),
    ]);
    const log = Buffer.concat([Buffer.from('start '), Buffer.from([0x80, 0x81]), Buffer.from(' end')]);
    const res = await send(multipartRequest({ token: seeded.tokens.scoped, meta: metadata(), junit: [xml], log }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const failure = await db.db.failure.findFirstOrThrow();
    assert.equal(failure.message, 'bad \uFFFD\uFFFD here');
    assert.match(failure.logExcerpt, /trace \uFFFD\(/);
    const rev = await db.db.changeRevision.findFirstOrThrow();
    assert.equal(rev.ciLog, 'start \uFFFD\uFFFD end');
  });

  test('invalid UTF-8 inside a JSON body becomes U+FFFD', async () => {
    const text = JSON.stringify(metadata({ tests: [{ name: 'utf', classname: 'enc', message: 'MARK' }] }));
    const [a, b] = text.split('MARK');
    const body = Buffer.concat([Buffer.from(a), Buffer.from([0xe2, 0x82]), Buffer.from(b)]);
    const res = await send(jsonRequest({ token: seeded.tokens.scoped, body: new Uint8Array(body) }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal((await db.db.failure.findFirstOrThrow()).message, '\uFFFD');
  });

  test('NUL bytes are removed from JSON fields, reports and logs', async () => {
    const res = await send(
      multipartRequest({
        token: seeded.tokens.scoped,
        meta: metadata({
          change: { title: 'Ti\u0000tle', description: 'de\u0000sc' },
          tests: [{ name: 'n\u0000ul', classname: 'c', message: 'm\u0000sg', details: 'd\u0000' }],
        }),
        log: 'lo\u0000g',
      }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const change = await db.db.change.findFirstOrThrow({ include: { failures: true, revisions: true } });
    assert.equal(change.title, 'Title');
    assert.equal(change.description, 'desc');
    assert.equal(change.failures[0].testName, 'nul');
    assert.equal(change.failures[0].message, 'msg');
    assert.equal(change.failures[0].logExcerpt, 'd');
    assert.equal(change.revisions[0].ciLog, 'log');
  });

  test('very long messages and test ids are capped', async () => {
    const res = await send(
      jsonRequest({
        token: seeded.tokens.scoped,
        body: metadata({ tests: [{ name: 'n'.repeat(5000), classname: 'c', message: 'm'.repeat(100_000), details: 'd'.repeat(500_000) }] }),
      }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const f = await db.db.failure.findFirstOrThrow();
    assert.ok(f.testId.length <= 1000);
    assert.ok(f.message.length < 9000);
    assert.match(f.message, /characters cut/);
    assert.ok(f.logExcerpt.length < 70_000);
  });
});

describe('revisions of a change', () => {
  async function seedWork(revisionId: string, changeId: string) {
    const runs = {} as Record<string, string>;
    for (const status of ['QUEUED', 'RUNNING', 'FIXED'] as const) {
      const run = await db.db.run.create({ data: { changeId, revisionId, policy: 'offline', status } });
      runs[status] = run.id;
    }
    const fix = await db.db.fix.create({ data: { runId: runs.FIXED, changeId, revisionId, diff: 'diff', files: ['a.ts'] } });
    return { runs, fixId: fix.id };
  }

  test('a newer revision supersedes the older one and stales its pending work', async () => {
    const first = await send(jsonRequest({ token: seeded.tokens.scoped, body: metadata({ junit: FAILING_XML, headCommittedAt: '2026-11-01T10:00:00Z' }) }));
    const changeId = first.body.changeId as string;
    const work = await seedWork(first.body.revisionId as string, changeId);
    await db.db.change.update({ where: { id: changeId }, data: { status: 'FIX_READY' } });

    const second = await send(
      jsonRequest({
        token: seeded.tokens.scoped,
        body: metadata({
          headRev: 'c'.repeat(40),
          headCommittedAt: '2026-11-01T11:00:00Z',
          tests: [
            { name: 'other', classname: 'x' },
            { name: 'again', classname: 'x' },
          ],
          change: { title: 'Fix the cart total (v2)' },
        }),
      }),
    );
    assert.equal(second.status, 201);
    assert.equal(second.body.revisionNumber, 2);
    assert.equal(second.body.superseded, false);
    assert.equal(second.body.changeId, changeId);

    const change = await db.db.change.findUniqueOrThrow({ where: { id: changeId } });
    assert.deepEqual(
      [change.status, change.headRev, change.revisionNumber, change.failingTestCount, change.title],
      ['QUEUED', 'c'.repeat(40), 2, 2, 'Fix the cart total (v2)'],
    );
    const old = await db.db.changeRevision.findUniqueOrThrow({ where: { id: first.body.revisionId as string } });
    assert.ok(old.supersededAt);
    const runs = await db.db.run.findMany({ where: { changeId } });
    const byId = new Map(runs.map((r) => [r.id, r]));
    assert.ok(byId.get(work.runs.QUEUED)?.cancelRequestedAt);
    assert.ok(byId.get(work.runs.RUNNING)?.cancelRequestedAt);
    assert.equal(byId.get(work.runs.FIXED)?.cancelRequestedAt, null);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: work.fixId } })).status, 'STALE');
    const current = await db.db.changeRevision.findUniqueOrThrow({ where: { id: second.body.revisionId as string } });
    assert.equal(current.supersededAt, null);
  });

  test('a late report of an older revision does not roll the change back', async () => {
    const newer = await send(
      jsonRequest({
        token: seeded.tokens.scoped,
        body: metadata({ headRev: 'c'.repeat(40), junit: FAILING_XML, headCommittedAt: '2026-11-01T11:00:00Z' }),
      }),
    );
    const older = await send(
      jsonRequest({
        token: seeded.tokens.scoped,
        body: metadata({
          headRev: 'b'.repeat(40),
          headCommittedAt: '2026-11-01T10:00:00Z',
          tests: [
            { name: 'a', classname: 'x' },
            { name: 'b', classname: 'x' },
            { name: 'c', classname: 'x' },
          ],
          change: { title: 'old title' },
        }),
      }),
    );
    assert.equal(older.status, 201);
    assert.equal(older.body.superseded, true);
    const change = await db.db.change.findUniqueOrThrow({ where: { id: newer.body.changeId as string } });
    assert.deepEqual([change.headRev, change.revisionNumber, change.failingTestCount, change.title], ['c'.repeat(40), 1, 1, 'Fix the cart total']);
    const late = await db.db.changeRevision.findUniqueOrThrow({ where: { id: older.body.revisionId as string } });
    assert.ok(late.supersededAt);
    const current = await db.db.changeRevision.findUniqueOrThrow({ where: { id: newer.body.revisionId as string } });
    assert.equal(current.supersededAt, null);
    // and a repost of the superseded revision stays a no-op for the change
    const repost = await send(jsonRequest({ token: seeded.tokens.scoped, body: metadata({ headRev: 'b'.repeat(40), junit: FAILING_XML }) }));
    assert.equal(repost.status, 200);
    assert.equal(repost.body.superseded, true);
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: change.id } })).headRev, 'c'.repeat(40));
  });
});
