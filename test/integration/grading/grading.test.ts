import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import type { SessionUser } from '../../../lib/auth/session';
import { createQueue, selectFixes } from '../../../lib/grading/queues';
import { listDisputed } from '../../../lib/grading/disputes';
import { nextItem } from '../../../lib/grading/next-item';
import { submitGrade, skipItem } from '../../../lib/grading/labelling';
import { queueAgreement } from '../../../lib/grading/queue-stats';
import { CreateQueueSchema, GradeInputSchema } from '../../../lib/grading/schemas';
import { AppError } from '../../../lib/errors';
import { createFix, createRepo, createUser } from './helpers';

// The grading service on a real database: queues from filters, the lease
// race, one label per fix and grader, skips, consensus, history.

const as = (u: { id: string; email: string; name: string; roles: string[] }): SessionUser => u as unknown as SessionUser;
const grade = (label: string, rationale = 'because') => GradeInputSchema.parse({ label, rationale });

async function rejectsWith(p: Promise<unknown>, code: string, message?: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describe('grading service', () => {
  let db: TestDb;
  let manager: SessionUser;
  let graders: SessionUser[];
  let repoId: string;
  let otherRepoId: string;
  before(async () => {
    db = await createTestDb();
    manager = as(await createUser(db.db, 'Mona Manager', ['MANAGER']));
    graders = [];
    for (let i = 0; i < 20; i++) graders.push(as(await createUser(db.db, `Grader ${String(i).padStart(2, '0')}`)));
    repoId = (await createRepo(db.db)).id;
    otherRepoId = (await createRepo(db.db)).id;
    for (let i = 0; i < 12; i++) await createFix(db.db, { repositoryId: repoId, policy: i % 2 ? 'llm' : 'offline', status: i < 8 ? 'READY' : 'REJECTED' });
  });
  after(() => db.drop());

  const newQueue = (over: Record<string, unknown> = {}) =>
    createQueue({
      actor: manager,
      input: CreateQueueSchema.parse({ name: 'Q', graderIds: graders.slice(0, 3).map((g) => g.id), ...over }),
    });

  /** A queue over n fixes of their own, so no test sees another's labels. */
  const freshQueue = async (n: number, over: Record<string, unknown> = {}) => {
    const fresh = (await createRepo(db.db)).id;
    for (let i = 0; i < n; i++) await createFix(db.db, { repositoryId: fresh });
    return newQueue({ ...over, filter: { repositoryIds: [fresh] } });
  };

  test('a filter that matches nothing is refused, and no queue is created', async () => {
    await rejectsWith(newQueue({ filter: { repositoryIds: [otherRepoId] } }), 'validation', /No fix matches this filter/);
    assert.equal(await db.db.gradingQueue.count(), 0);
  });

  test('filters: repository, policy, status, decision; a sample with its seed is the same queue again', async () => {
    assert.equal((await selectFixes(CreateQueueSchema.parse({ name: 'x', graderIds: ['x'] }).filter)).length, 12);
    const base = CreateQueueSchema.parse({ name: 'x', graderIds: ['x'] }).filter;
    assert.equal((await selectFixes({ ...base, policies: ['llm'] })).length, 6);
    assert.equal((await selectFixes({ ...base, statuses: ['REJECTED'] })).length, 4);
    assert.equal((await selectFixes({ ...base, decisions: ['NONE'] })).length, 12);
    assert.equal((await selectFixes({ ...base, decisions: ['REJECT'] })).length, 0);
    assert.equal((await selectFixes({ ...base, ungradedOnly: true })).length, 12);
    const a = await newQueue({ filter: { sample: 5 } });
    assert.equal(a.items, 5);
    assert.ok(a.seed);
    const again = await selectFixes({ ...base, sample: 5, seed: a.seed! });
    const items = await db.db.gradingItem.findMany({ where: { queueId: a.id }, orderBy: { position: 'asc' } });
    assert.deepEqual(
      items.map((i) => i.fixId),
      again,
    );
    const other = await selectFixes({ ...base, sample: 5, seed: `${a.seed}-other` });
    assert.notDeepEqual(other, again, 'another seed, another sample');
    const q = await db.db.gradingQueue.findUniqueOrThrow({ where: { id: a.id } });
    assert.equal(q.gradersPerFix, 3, 'three graders per fix by default');
    assert.equal(q.showDecisions, false, 'reviewers’ decisions hidden by default');
  });

  test('20 graders asking at once for 5 open slots get exactly 5 reservations', async () => {
    const { id } = await freshQueue(1, { gradersPerFix: 5, graderIds: graders.map((g) => g.id) });
    const results = await Promise.all(graders.map((user) => nextItem({ queueId: id, user })));
    assert.equal(results.filter(Boolean).length, 5);
    assert.equal(await db.db.gradingLease.count({ where: { item: { queueId: id } } }), 5);
  });

  test('an abandoned reservation comes back; the holder keeps theirs on asking again', async () => {
    const { id } = await freshQueue(1, { gradersPerFix: 1 });
    const [a, b] = graders;
    const first = await nextItem({ queueId: id, user: a });
    assert.ok(first);
    assert.equal(await nextItem({ queueId: id, user: b }), null, 'the only slot is reserved');
    assert.equal((await nextItem({ queueId: id, user: a }))?.itemId, first.itemId, 'asking again returns the same item');
    await db.db.gradingLease.updateMany({ where: { graderId: a.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    assert.equal((await nextItem({ queueId: id, user: b }))?.itemId, first.itemId, 'expired: handed to someone else');
    await rejectsWith(
      submitGrade({ queueId: id, itemId: first.itemId, user: a, input: grade('CORRECT') }),
      'conflict',
      /already has its 1 labels or reservations/,
    );
  });

  test('two tabs submitting at once store one label; every change is in the history', async () => {
    const { id } = await freshQueue(1);
    const [a] = graders;
    const item = (await nextItem({ queueId: id, user: a }))!;
    const results = await Promise.all([
      submitGrade({ queueId: id, itemId: item.itemId, user: a, input: grade('INCORRECT', 'tab one') }),
      submitGrade({ queueId: id, itemId: item.itemId, user: a, input: grade('INCORRECT', 'tab two') }),
    ]);
    assert.deepEqual(results.map((r) => r.outcome).sort(), ['label', 'revise']);
    const fixId = (await db.db.gradingItem.findUniqueOrThrow({ where: { id: item.itemId } })).fixId;
    assert.equal(await db.db.grade.count({ where: { fixId, graderId: a.id } }), 1);
    const events = await db.db.gradeEvent.findMany({ where: { fixId }, orderBy: { createdAt: 'asc' } });
    assert.deepEqual(
      events.map((e) => e.kind),
      ['label', 'revise'],
    );
    await submitGrade({ queueId: id, itemId: item.itemId, user: a, input: grade('OVERFITTING', 'on reflection') });
    const grades = await db.db.grade.findMany({ where: { fixId } });
    assert.equal(grades.length, 1);
    assert.equal(grades[0].label, 'OVERFITTING');
    assert.equal(await db.db.gradeEvent.count({ where: { fixId } }), 3);
  });

  test('consensus: unanimous settles automatically; a settled label never changes', async () => {
    const { id } = await freshQueue(1);
    let itemId = '';
    for (const user of graders.slice(0, 3)) {
      itemId = (await nextItem({ queueId: id, user }))!.itemId;
      const r = await submitGrade({ queueId: id, itemId, user, input: grade('CORRECT', '') });
      assert.deepEqual(r, { outcome: 'label' }, 'whether it settled is not the grader’s to know from the answer');
    }
    const fixId = (await db.db.gradingItem.findUniqueOrThrow({ where: { id: itemId } })).fixId;
    const settled = await db.db.consensus.findUniqueOrThrow({ where: { fixId } });
    assert.equal(settled.label, 'CORRECT');
    assert.equal(settled.automatic, true);
    assert.equal(settled.settledById, null, 'the labels settled it: no grader is named as its settler');
    const audit = await db.db.auditLog.findMany({ where: { targetId: fixId }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      audit.map((a) => [a.action, a.actorKind, a.actorId]),
      [
        ['grading.label', 'user', graders[0].id],
        ['grading.label', 'user', graders[1].id],
        ['grading.label', 'user', graders[2].id],
        ['grading.auto_settle', 'system', null],
      ],
    );
    assert.equal(await db.db.gradeReveal.count({ where: { fixId, via: 'settled' } }), 3, 'all three have seen the others once settled');
    await rejectsWith(submitGrade({ queueId: id, itemId, user: graders[0], input: grade('INCORRECT') }), 'conflict', /Your label on this fix is final/);
    assert.equal((await db.db.consensus.findUniqueOrThrow({ where: { fixId } })).label, 'CORRECT');
    assert.equal(await nextItem({ queueId: id, user: graders[0] }), null);
  });

  test('the lead revising while reading the disputed list: the label they saw is the label that stays (final, as the item is complete)', async () => {
    for (let round = 0; round < 3; round++) {
      const [lead, other] = graders.slice(3, 5);
      const { id } = await freshQueue(1, { gradersPerFix: 2, graderIds: [lead.id, other.id], leadGraderId: lead.id });
      const itemId = (await nextItem({ queueId: id, user: lead }))!.itemId;
      await submitGrade({ queueId: id, itemId, user: lead, input: grade('INCORRECT') });
      await submitGrade({ queueId: id, itemId: (await nextItem({ queueId: id, user: other }))!.itemId, user: other, input: grade('OVERFITTING') });
      const [list, revision] = await Promise.allSettled([
        listDisputed({ queueId: id, user: lead }),
        submitGrade({ queueId: id, itemId, user: lead, input: grade('IRRELEVANT') }),
      ]);
      assert.equal(list.status, 'fulfilled');
      const seen = list.value[0].labels.find((l) => l.grader === lead.name)!.label;
      const fixId = (await db.db.gradingItem.findUniqueOrThrow({ where: { id: itemId } })).fixId;
      const stored = (await db.db.grade.findUniqueOrThrow({ where: { fixId_graderId: { fixId, graderId: lead.id } } })).label;
      assert.equal(stored, seen);
      // the item has all its labels: the revision is refused whichever runs first
      assert.equal(revision.status, 'rejected');
      assert.match(String(revision.reason), /Your label on this fix is final/);
      assert.equal(seen, 'INCORRECT');
      // and afterwards, still final
      await rejectsWith(submitGrade({ queueId: id, itemId, user: lead, input: grade('CORRECT', '') }), 'conflict', /final/);
    }
  });

  test('skip with a reason; the skipped item is not handed to that grader again', async () => {
    const fresh = (await createRepo(db.db)).id;
    for (let i = 0; i < 2; i++) await createFix(db.db, { repositoryId: fresh });
    const { id } = await newQueue({ filter: { repositoryIds: [fresh] } });
    const [a] = graders;
    const first = (await nextItem({ queueId: id, user: a }))!;
    await skipItem({ queueId: id, itemId: first.itemId, user: a, reason: 'not my language' });
    const second = (await nextItem({ queueId: id, user: a }))!;
    assert.notEqual(second.itemId, first.itemId);
    assert.equal((await db.db.gradingSkip.findFirstOrThrow({ where: { itemId: first.itemId } })).reason, 'not my language');
  });

  test('closed queues hand out nothing; a grader not seated is refused', async () => {
    const { id } = await freshQueue(1);
    await rejectsWith(nextItem({ queueId: id, user: graders[10] }), 'forbidden');
    await db.db.gradingQueue.update({ where: { id }, data: { status: 'CLOSED' } });
    await rejectsWith(nextItem({ queueId: id, user: graders[0] }), 'conflict', /closed/);
  });

  test('labels: only the four, rationale required for all but correct', () => {
    const bad = GradeInputSchema.safeParse({ label: 'great' });
    assert.equal(bad.error?.issues[0].message, '"great" is not a label: use one of correct, overfitting, incorrect, irrelevant');
    const bare = GradeInputSchema.safeParse({ label: 'incorrect', rationale: '  ' });
    assert.match(bare.error?.issues[0].message ?? '', /rationale is required/);
    assert.equal(GradeInputSchema.parse({ label: 'correct' }).label, 'CORRECT');
    assert.deepEqual(GradeInputSchema.parse({ label: 'OVERFITTING', rationale: 'r', tags: ['unsafe', 'partial', 'unsafe'] }).tags, ['partial', 'unsafe']);
    assert.throws(() => GradeInputSchema.parse({ label: 'CORRECT', tags: ['nice'] }));
  });

  test('agreement of a queue: figures from its labels, n/a where undefined', async () => {
    const fresh = (await createRepo(db.db)).id;
    for (let i = 0; i < 2; i++) await createFix(db.db, { repositoryId: fresh });
    const { id } = await newQueue({ gradersPerFix: 2, filter: { repositoryIds: [fresh] } });
    const empty = await queueAgreement({ queueId: id, user: manager });
    assert.equal(empty.fleissKappa, null);
    assert.equal(empty.krippendorffAlpha, null);
    const [a, b] = graders;
    const labels: Record<string, string[]> = { [a.id]: ['CORRECT', 'INCORRECT'], [b.id]: ['CORRECT', 'CORRECT'] };
    for (const user of [a, b]) {
      for (let k = 0; k < 2; k++) {
        const next = (await nextItem({ queueId: id, user }))!;
        const pos = (await db.db.gradingItem.findUniqueOrThrow({ where: { id: next.itemId } })).position;
        await submitGrade({ queueId: id, itemId: next.itemId, user, input: grade(labels[user.id][pos], 'r') });
      }
    }
    const stats = await queueAgreement({ queueId: id, user: manager });
    assert.equal(stats.rated, 2);
    assert.equal(stats.percentAgreement, 0.5);
    assert.equal(stats.pairs.length, 1);
    assert.equal(stats.pairs[0].shared, 2);
    assert.ok(stats.krippendorffAlpha !== null && Number.isFinite(stats.krippendorffAlpha));
    const base = CreateQueueSchema.parse({ name: 'x', graderIds: ['x'] }).filter;
    assert.equal((await selectFixes({ ...base, repositoryIds: [fresh] })).length, 2);
    assert.equal((await selectFixes({ ...base, repositoryIds: [fresh], ungradedOnly: true })).length, 0, 'labelled fixes are left out');
  });
});
