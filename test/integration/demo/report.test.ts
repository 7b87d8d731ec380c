import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { POST } from '@/app/api/v1/failures/route';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { buildDemoRepos, type BuiltRepo } from '@/demo/build-repos';
import { collectDemoReport, postFailureReport, reportDemoFailures, type ReportOutcome } from '@/demo/report';
import { seedDemo, seedRepositoriesFrom } from '@/demo/seed';

// The demo reporter end to end, minus the HTTP server: real test runs in
// real worktrees, real JUnit reports, posted through the real ingestion route
// handler with the CI token the seed issued.

const BASE_URL = 'http://localhost:3000';

// hands the request to the route handler in-process instead of over a socket
async function routeFetch(input: string, init: RequestInit): Promise<Response> {
  return POST(new NextRequest(input, init as ConstructorParameters<typeof NextRequest>[1]), { params: Promise.resolve({}) });
}

describe('demo reporter', () => {
  let testDb: TestDb;
  let dataDir: string;
  let repos: BuiltRepo[];
  let token: string;
  let outcomes: ReportOutcome[];

  before(async () => {
    // the demo's reporting as `npm run demo` does it, on the demo's own backend (its real test runs cost minutes: once, not per backend)
    testDb = await createTestDb({ kind: 'pglite' });
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'flowfix-demo-report-'));
    repos = await buildDemoRepos({ dataDir });
    const seeded = await seedDemo({ db: testDb.db, repositories: seedRepositoriesFrom(repos), history: false });
    token = seeded.ciToken;
    outcomes = await reportDemoFailures({ repos, baseUrl: BASE_URL, token, fetchImpl: routeFetch });
  });

  after(async () => {
    await testDb?.drop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  test('posts every demo change as a new failing revision', () => {
    const expected = repos.flatMap((r) => r.changes.map((c) => `${r.spec.name} ${c.spec.externalId}`));
    assert.deepEqual(
      outcomes.map((o) => `${o.repository} ${o.externalId}`),
      expected,
    );
    for (const o of outcomes) assert.equal(o.status, 201, `${o.repository} ${o.externalId}: ${JSON.stringify(o.response ?? o.note)}`);
  });

  test('stores the changes with the failing tests the real runs produced', async () => {
    for (const repo of repos) {
      for (const change of repo.changes) {
        const row = await testDb.db.change.findFirstOrThrow({
          where: { repository: { name: repo.spec.name }, externalId: change.spec.externalId },
          include: { failures: true, revisions: true },
        });
        assert.equal(row.origin, 'CI');
        assert.equal(row.headRev, change.headSha);
        assert.equal(row.baseRev, change.baseSha);
        assert.equal(row.title, change.spec.title);
        assert.equal(row.authorKind, change.spec.authorKind);
        assert.deepEqual(row.failures.map((f) => f.testId).sort(), [...change.spec.failingTests].sort(), `${repo.spec.name} ${change.spec.branch}`);
        assert.match(row.revisions[0].ciLog, /flowfix demo CI/);
      }
    }
  });

  test('the oversized change is recorded with its file count', async () => {
    const row = await testDb.db.change.findFirstOrThrow({ where: { externalId: 'PR-426' } });
    assert.ok(row.filesChanged > 50, `filesChanged ${row.filesChanged}`);
  });

  test('reporting the same revision again is idempotent', async () => {
    const ledger = repos.find((r) => r.spec.name === 'ledger-py')!;
    const collected = await collectDemoReport({ repo: ledger, change: ledger.changes[0] });
    assert.equal(collected.kind, 'failing');
    if (collected.kind !== 'failing') return;
    const before = await testDb.db.failure.count();
    const again = await postFailureReport({ baseUrl: BASE_URL, token, body: collected.body, fetchImpl: routeFetch });
    assert.equal(again.status, 200);
    assert.equal(await testDb.db.failure.count(), before);
  });

  test('a wrong token is refused', async () => {
    const ledger = repos.find((r) => r.spec.name === 'ledger-py')!;
    const collected = await collectDemoReport({ repo: ledger, change: ledger.changes[1] });
    assert.equal(collected.kind, 'failing');
    if (collected.kind !== 'failing') return;
    const refused = await postFailureReport({ baseUrl: BASE_URL, token: 'ffx_not-a-token', body: collected.body, fetchImpl: routeFetch });
    assert.equal(refused.status, 401);
  });
});
