import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createTestDb, type TestDb, type TestDbKind } from '../../helpers/test-db';
import { counts, jsonRequest, metadata, multipartRequest, seed, send, type Seeded } from './helpers';

// 50 duplicate posts of the same revision at once (a CI retry storm, or every
// shard of a job uploading) must leave exactly one change, one revision and
// one failure set, on the embedded database and on a PostgreSQL server alike.

const XML = fs.readFileSync('test/fixtures/junit/pytest.xml');
const DUPLICATES = 50;

for (const kind of ['pglite', 'postgres'] as TestDbKind[]) {
  describe(`50 concurrent duplicate posts (${kind})`, () => {
    let db: TestDb;
    let seeded: Seeded;

    before(async () => {
      db = await createTestDb({ kind });
      seeded = await seed(db.db);
    });
    after(async () => {
      await db.drop();
    });

    test('exactly one change, revision and failure set; one 201, the rest 200', async () => {
      const meta = metadata({ change: { externalId: `storm-${kind}` } });
      const answers = await Promise.all(
        Array.from({ length: DUPLICATES }, (_, i) =>
          send(
            i % 2 === 0
              ? multipartRequest({ token: seeded.tokens.scoped, meta, junit: [XML], log: 'pytest -x\n' })
              : jsonRequest({ token: seeded.tokens.scoped, body: { ...meta, junit: XML.toString('utf8'), log: 'pytest -x\n' } }),
          ),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      const refused = answers.find((a) => a.status >= 300);
      assert.deepEqual(statuses, [...Array(DUPLICATES - 1).fill(200), 201], JSON.stringify(refused?.body));
      assert.equal(new Set(answers.map((a) => a.body.revisionId)).size, 1);
      assert.ok(answers.every((a) => a.body.failures === 4));
      const c = await counts(db.db);
      assert.deepEqual(c, { changes: 1, revisions: 1, failures: 4, audits: DUPLICATES });
      const change = await db.db.change.findFirstOrThrow();
      assert.equal(change.failingTestCount, 4);
      assert.equal(change.revisionNumber, 1);
    });

    test('concurrent posts of two different revisions of one change: numbered 1 and 2, one current', async () => {
      const base = { change: { externalId: `race-${kind}` } };
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          send(
            jsonRequest({
              token: seeded.tokens.scoped,
              body: metadata({ ...base, headRev: i % 2 === 0 ? 'd'.repeat(40) : 'e'.repeat(40), junit: XML.toString('utf8') }),
            }),
          ),
        ),
      );
      assert.equal(answers.filter((a) => a.status === 201).length, 2, JSON.stringify(answers.map((a) => a.status)));
      assert.equal(answers.filter((a) => a.status === 200).length, 18);
      const change = await db.db.change.findFirstOrThrow({ where: { externalId: `race-${kind}` }, include: { revisions: true } });
      assert.deepEqual(change.revisions.map((r) => r.number).sort(), [1, 2]);
      const current = change.revisions.filter((r) => r.supersededAt === null);
      assert.equal(current.length, 1);
      assert.equal(current[0].headRev, change.headRev);
      assert.equal(current[0].number, change.revisionNumber);
    });
  });
}
