import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { DEMO_REPOS } from '@/demo/repos';
import { seedDemo, type SeedRepository } from '@/demo/seed';
import { DEMO_QUEUE_NAME } from '@/demo/grading';
import type { SessionUser } from '@/lib/auth/session';
import { getQueueDetail } from '@/lib/grading/queues';
import { getItemView } from '@/lib/grading/item-view';
import { listDisputed } from '@/lib/grading/disputes';
import { nextItem } from '@/lib/grading/next-item';
import { submitGrade } from '@/lib/grading/labelling';
import { GradeInputSchema } from '@/lib/grading/schemas';

// The demo's grading queue: on the history, with settled and disputed items,
// and work the demo grader can start at once.

const NOW = new Date('2026-11-30T12:00:00Z');
const repositories: SeedRepository[] = DEMO_REPOS.map((spec) => ({
  name: spec.name,
  gitUrl: `/srv/demo/repos/${spec.name}`,
  language: spec.language,
  defaultBranch: 'main',
  settings: spec.settings as Record<string, unknown>,
}));

describe('demo grading queue', () => {
  let db: TestDb;
  before(async () => {
    db = await createTestDb();
    await seedDemo({ db: db.db, repositories, now: NOW });
  });
  after(() => db.drop());

  test('one queue, seeded once, with complete, disputed, in-progress and waiting items', async () => {
    const again = await seedDemo({ db: db.db, repositories, now: NOW });
    assert.equal(again.grading.created, false);
    const queues = await db.db.gradingQueue.findMany({ where: { name: DEMO_QUEUE_NAME } });
    assert.equal(queues.length, 1);
    const manager = (await db.db.user.findUniqueOrThrow({ where: { email: 'manager@demo.flowfix' } })) as unknown as SessionUser;
    const detail = await getQueueDetail({ queueId: queues[0].id, user: manager });
    assert.ok(detail.progress.complete >= 1, JSON.stringify(detail.progress));
    assert.ok(detail.progress.inProgress >= 7, JSON.stringify(detail.progress));
    assert.ok(detail.progress.waiting >= 1, JSON.stringify(detail.progress));
    assert.equal(detail.graders.length, 3);
    const disputed = await listDisputed({ queueId: queues[0].id, user: manager });
    assert.ok(disputed.length >= 1, 'a disputed item waits for the manager');
    for (const item of disputed) assert.ok(new Set(item.labels.map((l) => l.label)).size > 1, 'disputed items disagree');
  });

  test('the demo grader can grade at once, blind; the third agreeing label settles, a disagreeing one disputes', async () => {
    const queue = await db.db.gradingQueue.findFirstOrThrow({ where: { name: DEMO_QUEUE_NAME } });
    const grader = (await db.db.user.findUniqueOrThrow({ where: { email: 'grader@demo.flowfix' } })) as unknown as SessionUser;
    const first = await nextItem({ queueId: queue.id, user: grader });
    assert.ok(first, 'an item is waiting for the demo grader');
    const view = await getItemView({ queueId: queue.id, itemId: first.itemId, user: grader });
    assert.equal(view.others, null);
    assert.equal(view.consensus, null);
    assert.equal(view.decision, null);
    // the first item's two history labels agree on CORRECT
    const agreed = await submitGrade({ queueId: queue.id, itemId: first.itemId, user: grader, input: GradeInputSchema.parse({ label: 'CORRECT' }) });
    assert.deepEqual(agreed, { outcome: 'label' }, 'the answer does not say whether it settled');
    const fixOf = async (itemId: string) => (await db.db.gradingItem.findUniqueOrThrow({ where: { id: itemId } })).fixId;
    assert.equal((await db.db.consensus.findUniqueOrThrow({ where: { fixId: await fixOf(first.itemId) } })).automatic, true);
    const second = (await nextItem({ queueId: queue.id, user: grader }))!;
    const disputed = await submitGrade({
      queueId: queue.id,
      itemId: second.itemId,
      user: grader,
      input: GradeInputSchema.parse({ label: 'IRRELEVANT', rationale: 'Unrelated' }),
    });
    assert.deepEqual(disputed, { outcome: 'label' });
    assert.equal(await db.db.consensus.count({ where: { fixId: await fixOf(second.itemId) } }), 0);
  });
});
