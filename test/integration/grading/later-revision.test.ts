import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import type { SessionUser } from '../../../lib/auth/session';
import { createQueue } from '../../../lib/grading/queues';
import { getItemView } from '../../../lib/grading/item-view';
import { nextItem } from '../../../lib/grading/next-item';
import { CreateQueueSchema } from '../../../lib/grading/schemas';
import { createUser } from './helpers';

// The grading page beside the fix shows what the developer did next: their
// own later revision of the same change, read from the real repository.

describe('the grading page reads the change and the developer’s next revision from git', () => {
  let db: TestDb;
  let dir: string;
  const revs: Record<'base' | 'head' | 'later', string> = { base: '', head: '', later: '' };

  before(async () => {
    db = await createTestDb();
    dir = mkdtempSync(path.join(tmpdir(), 'flowfix-later-'));
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } as unknown as NodeJS.ProcessEnv }).trim();
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'dev@example.com');
    git('config', 'user.name', 'Dev');
    const commit = (file: string, text: string, message: string) => {
      writeFileSync(path.join(dir, file), text);
      git('add', '--all');
      git('commit', '-q', '-m', message);
      return git('rev-parse', 'HEAD');
    };
    revs.base = commit('cart.js', 'export const total = (xs) => xs.reduce((a, x) => a + x, 0);\n', 'base');
    revs.head = commit('cart.js', 'export const total = (xs) => xs.reduce((a, x) => a + x, 1);\n', 'start totals at one (the change)');
    revs.later = commit('cart.js', 'export const total = (xs) => xs.reduce((a, x) => a + x.price, 0);\n', 'the developer’s own next push');
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the change’s own diff and the later revision’s diff come from the repository', async () => {
    const d = db.db;
    const manager = (await createUser(d, 'Mona Manager', ['MANAGER'])) as unknown as SessionUser;
    const grader = (await createUser(d, 'Gil Grader')) as unknown as SessionUser;
    const repo = await d.repository.create({ data: { name: 'cart-later', gitUrl: dir, language: 'javascript' } });
    const change = await d.change.create({
      data: {
        repositoryId: repo.id,
        externalId: 'PR-9',
        title: 'Totals',
        description: 'd',
        author: 'dev',
        branch: 'totals',
        baseRev: revs.base,
        headRev: revs.later,
        status: 'FIX_READY',
      },
    });
    const first = await d.changeRevision.create({ data: { changeId: change.id, number: 1, baseRev: revs.base, headRev: revs.head, branch: 'totals' } });
    await d.changeRevision.create({ data: { changeId: change.id, number: 2, baseRev: revs.base, headRev: revs.later, branch: 'totals' } });
    const run = await d.run.create({
      data: { changeId: change.id, revisionId: first.id, policy: 'offline', status: 'FIXED', exitReason: 'fixed', finishedAt: new Date() },
    });
    await d.fix.create({
      data: { runId: run.id, changeId: change.id, revisionId: first.id, diff: 'diff --git a/cart.js b/cart.js\n', files: ['cart.js'], status: 'STALE' },
    });
    const queue = await createQueue({
      actor: manager,
      input: CreateQueueSchema.parse({ name: 'later', graderIds: [grader.id], gradersPerFix: 1, filter: { repositoryIds: [repo.id] } }),
    });
    const handed = await nextItem({ queueId: queue.id, user: grader });
    assert.ok(handed, 'an item is handed out');
    const view = await getItemView({ queueId: queue.id, itemId: handed.itemId, user: grader });

    assert.match(view.change.diff ?? '', /^-export const total = \(xs\) => xs\.reduce\(\(a, x\) => a \+ x, 0\);$/m);
    assert.match(view.change.diff ?? '', /^\+export const total = \(xs\) => xs\.reduce\(\(a, x\) => a \+ x, 1\);$/m);
    assert.ok(view.laterRevision, 'the later revision is known');
    assert.equal(view.laterRevision.number, 2);
    assert.equal(view.laterRevision.headRev, revs.later);
    assert.match(view.laterRevision.diff ?? '', /^-export const total = \(xs\) => xs\.reduce\(\(a, x\) => a \+ x, 1\);$/m);
    assert.match(view.laterRevision.diff ?? '', /^\+export const total = \(xs\) => xs\.reduce\(\(a, x\) => a \+ x\.price, 0\);$/m);
  });
});
