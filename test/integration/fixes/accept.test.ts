import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { acceptFix, reconcileApplyingFix, reconcileStuckApplies } from '../../../lib/fixes/apply';
import { rejectFix } from '../../../lib/fixes/decisions';
import { applyFixCommit } from '../../../lib/git/apply-fix';
import { AppError } from '../../../lib/errors';
import {
  BRANCH,
  BUGGY,
  FIXED,
  buildBareRemote,
  buildWorkingRepo,
  commitInfo,
  createFixFor,
  createUser,
  fixDiff,
  git,
  moveBranch,
  showFile,
  tmpDir,
} from './helpers';

// Accepting a fix writes one commit on the change's branch in a real git
// repository — a working repository on disk and a bare one reached by a
// file:// URL — refuses when the branch moved, and applies exactly once when
// ten reviewers accept at the same moment. FLOWFIX_TEST_DB picks the backend.

let db: TestDb;
let root: string;

before(async () => {
  db = await createTestDb();
  root = tmpDir();
});
after(async () => {
  await db.drop();
  fs.rmSync(root, { recursive: true, force: true });
});

async function conflictOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AppError, `expected an AppError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to be refused');
}

function fixCommitsOnBranch(dir: string, since: string, fixId: string): string[] {
  return git(dir, 'log', '--format=%H %B', `${since}..refs/heads/${BRANCH}`)
    .split('\n')
    .filter((l) => l.includes(`Flowfix-Fix: ${fixId}`));
}

function assertFixCommit({
  dir,
  headRev,
  fixId,
  runId,
  reviewer,
}: {
  dir: string;
  headRev: string;
  fixId: string;
  runId: string;
  reviewer: { name: string; email: string };
}) {
  const info = commitInfo(dir, `refs/heads/${BRANCH}`);
  assert.equal(info.author, reviewer.name);
  assert.equal(info.authorEmail, reviewer.email);
  assert.equal(info.committer, 'flowfix');
  assert.deepEqual(info.parents, [headRev]);
  assert.match(info.message, /^Fix failing tests of PR-\d+: Start totals at one\n/);
  assert.match(info.message, /The total started at 1 instead of 0\./);
  assert.match(info.message, /\nFixed-by: flowfix\n/);
  assert.match(info.message, new RegExp(`\\nFlowfix-Fix: ${fixId}\\n`));
  assert.match(info.message, new RegExp(`\\nFlowfix-Run: ${runId}\\s*$`));
  assert.equal(showFile(dir, `refs/heads/${BRANCH}`, 'cart.js'), FIXED);
}

describe('accept on a working repository on the server (a local path)', () => {
  test('commits on the branch as the reviewer, records APPLIED and ACCEPT, and leaves the work tree alone', async () => {
    const repo = buildWorkingRepo(tmpDir());
    // an uncommitted edit in the work tree must survive untouched
    fs.writeFileSync(path.join(repo.dir, 'README.md'), '# shop (local edit)\n');
    const statusBefore = git(repo.dir, 'status', '--porcelain');
    const headBefore = git(repo.dir, 'rev-parse', 'HEAD');
    const reviewer = await createUser(db.db, 'Ana Reviewer', ['REVIEWER']);
    const { fix, run, change } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });

    const result = await acceptFix({ fixId: fix.id, userId: reviewer.id, surface: 'DASHBOARD' });

    assert.equal(git(repo.dir, 'rev-parse', `refs/heads/${BRANCH}`), result.commit);
    assertFixCommit({ dir: repo.dir, headRev: repo.headRev, fixId: fix.id, runId: run.id, reviewer });
    assert.equal(git(repo.dir, 'rev-parse', 'HEAD'), headBefore);
    assert.equal(git(repo.dir, 'symbolic-ref', '--short', 'HEAD'), 'main');
    assert.equal(git(repo.dir, 'status', '--porcelain'), statusBefore);
    assert.equal(fs.readFileSync(path.join(repo.dir, 'cart.js'), 'utf8'), FIXED, 'main’s checked-out file is as it was');
    assert.equal(git(repo.dir, 'worktree', 'list', '--porcelain').split('\n\n').filter(Boolean).length, 1, 'no worktree left behind');

    const after = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
    assert.equal(after.status, 'APPLIED');
    assert.equal(after.appliedCommit, result.commit);
    assert.equal(after.appliedById, reviewer.id);
    assert.ok(after.appliedAt);
    assert.equal(after.applyClaim, null);
    const decisions = await db.db.decision.findMany({ where: { fixId: fix.id } });
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.surface, d.userId, d.commit]),
      [['ACCEPT', 'DASHBOARD', reviewer.id, result.commit]],
    );
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: change.id } })).status, 'APPLIED');
    const audit = await db.db.auditLog.findMany({ where: { targetType: 'fix', targetId: fix.id } });
    assert.deepEqual(
      audit.map((a) => [a.action, a.actorId]),
      [['fix.accept', reviewer.id]],
    );
    assert.equal((audit[0].data as { commit: string }).commit, result.commit);
  });

  test('a branch checked out in the work tree is refused and the fix stays READY', async () => {
    const repo = buildWorkingRepo(tmpDir());
    git(repo.dir, 'checkout', '-q', BRANCH);
    const reviewer = await createUser(db.db, 'Cleo', ['REVIEWER']);
    const { fix } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });
    const err = await conflictOf(acceptFix({ fixId: fix.id, userId: reviewer.id, surface: 'DASHBOARD' }));
    assert.equal(err.code, 'conflict');
    assert.match(err.message, /is checked out in .* on the server/);
    assert.equal(git(repo.dir, 'rev-parse', BRANCH), repo.headRev);
    assert.equal(fs.readFileSync(path.join(repo.dir, 'cart.js'), 'utf8'), BUGGY);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'READY');
  });

  test('a diff that does not apply is refused with git’s reason and the fix stays READY', async () => {
    const repo = buildWorkingRepo(tmpDir());
    const reviewer = await createUser(db.db, 'Dora', ['ADMIN']);
    const bad = fixDiff().replace(`-${BUGGY.trimEnd()}`, '-export const nothing = 1;');
    const { fix } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev, diff: bad });
    const err = await conflictOf(acceptFix({ fixId: fix.id, userId: reviewer.id, surface: 'DASHBOARD' }));
    assert.match(err.message, /The fix was not applied: the fix does not apply to [0-9a-f]{12}/);
    assert.equal(git(repo.dir, 'rev-parse', BRANCH), repo.headRev);
    const row = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
    assert.deepEqual([row.status, row.applyClaimedById], ['READY', null]);
    assert.equal(await db.db.decision.count({ where: { fixId: fix.id } }), 0);
  });
});

describe('accept on a bare repository reached by a file:// URL', () => {
  test('pushes the commit to the branch with the reviewer as author and the trailers', async () => {
    const dir = tmpDir();
    const repo = buildWorkingRepo(dir);
    const { bare, url } = buildBareRemote(dir, repo.dir);
    const reviewer = await createUser(db.db, 'Bo Remote', ['REVIEWER']);
    const { fix, run } = await createFixFor(db.db, { gitUrl: url, headRev: repo.headRev, baseRev: repo.baseRev });

    const result = await acceptFix({ fixId: fix.id, userId: reviewer.id, surface: 'API' });

    assert.equal(git(bare, 'rev-parse', `refs/heads/${BRANCH}`), result.commit);
    assertFixCommit({ dir: bare, headRev: repo.headRev, fixId: fix.id, runId: run.id, reviewer });
    const row = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
    assert.deepEqual([row.status, row.appliedCommit], ['APPLIED', result.commit]);
    const decision = await db.db.decision.findFirstOrThrow({ where: { fixId: fix.id } });
    assert.deepEqual([decision.kind, decision.surface], ['ACCEPT', 'API']);
  });

  test('a moved branch is refused with 409, the fix becomes STALE, the branch and the diff are kept', async () => {
    const dir = tmpDir();
    const repo = buildWorkingRepo(dir);
    const { bare, url } = buildBareRemote(dir, repo.dir);
    const moved = moveBranch(url, dir);
    const reviewer = await createUser(db.db, 'Eve', ['REVIEWER']);
    const { fix, change } = await createFixFor(db.db, { gitUrl: url, headRev: repo.headRev, baseRev: repo.baseRev });

    const err = await conflictOf(acceptFix({ fixId: fix.id, userId: reviewer.id, surface: 'DASHBOARD' }));
    assert.equal(err.status, 409);
    assert.equal(
      err.message,
      `The branch ${BRANCH} moved from ${repo.headRev.slice(0, 12)} to ${moved.slice(0, 12)} since flowfix ran; the fix was not applied and is now stale`,
    );
    assert.equal(git(bare, 'rev-parse', `refs/heads/${BRANCH}`), moved);
    const row = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
    assert.equal(row.status, 'STALE');
    assert.equal(row.diff, fixDiff());
    assert.equal(row.appliedCommit, null);
    assert.equal(await db.db.decision.count({ where: { fixId: fix.id } }), 0);
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: change.id } })).status, 'STALE');
    assert.ok(await db.db.auditLog.findFirst({ where: { action: 'fix.stale', targetId: fix.id } }));
    const again = await conflictOf(acceptFix({ fixId: fix.id, userId: reviewer.id, surface: 'DASHBOARD' }));
    assert.match(again.message, /This fix is stale/);
  });
});

describe('a moved branch on a local repository', () => {
  test('is refused and left where the developer put it', async () => {
    const repo = buildWorkingRepo(tmpDir());
    const moved = moveBranch(repo.dir, path.dirname(repo.dir));
    const reviewer = await createUser(db.db, 'Fay', ['REVIEWER']);
    const { fix } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });
    const err = await conflictOf(acceptFix({ fixId: fix.id, userId: reviewer.id, surface: 'DASHBOARD' }));
    assert.match(err.message, /moved from [0-9a-f]{12} to [0-9a-f]{12} since flowfix ran; the fix was not applied and is now stale/);
    assert.equal(git(repo.dir, 'rev-parse', BRANCH), moved);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'STALE');
  });
});

describe('ten reviewers accepting the same fix at once', () => {
  for (const kind of ['local', 'file://'] as const) {
    test(`exactly one commit and one ACCEPT; the others get 409 naming the winner (${kind})`, async () => {
      const dir = tmpDir();
      const repo = buildWorkingRepo(dir);
      const target =
        kind === 'local'
          ? { gitUrl: repo.dir, inspect: repo.dir }
          : (() => {
              const { bare, url } = buildBareRemote(dir, repo.dir);
              return { gitUrl: url, inspect: bare };
            })();
      const reviewers = await Promise.all(Array.from({ length: 10 }, (_, i) => createUser(db.db, `Reviewer ${i}`, ['REVIEWER'])));
      const { fix } = await createFixFor(db.db, { gitUrl: target.gitUrl, headRev: repo.headRev, baseRev: repo.baseRev });

      const outcomes = await Promise.allSettled(reviewers.map((r) => acceptFix({ fixId: fix.id, userId: r.id, surface: 'DASHBOARD' })));

      const won = outcomes.filter((o) => o.status === 'fulfilled');
      assert.equal(won.length, 1, JSON.stringify(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))));
      const row = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
      const winner = reviewers.find((r) => r.id === row.appliedById)!;
      assert.ok(winner);
      for (const o of outcomes) {
        if (o.status === 'fulfilled') continue;
        assert.ok(o.reason instanceof AppError);
        assert.equal(o.reason.status, 409);
        assert.match(o.reason.message, new RegExp(`^${winner.name} accepted this fix at \\d\\d:\\d\\d UTC`));
      }
      assert.equal(fixCommitsOnBranch(target.inspect, repo.headRev, fix.id).length, 1);
      assert.equal(git(target.inspect, 'rev-list', '--count', `${repo.headRev}..refs/heads/${BRANCH}`), '1');
      assert.equal(await db.db.decision.count({ where: { fixId: fix.id, kind: 'ACCEPT' } }), 1);
      assert.equal(await db.db.auditLog.count({ where: { action: 'fix.accept', targetId: fix.id } }), 1);
    });
  }
});

describe('a crash between the push and the database write', () => {
  test('the commit found on the branch by its trailer is recorded as the accept of whoever claimed it', async () => {
    const repo = buildWorkingRepo(tmpDir());
    const ana = await createUser(db.db, 'Ana Crash', ['REVIEWER']);
    const bob = await createUser(db.db, 'Bob Later', ['REVIEWER']);
    const { fix, run } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });
    // what Ana's accept did before the process died: the claim, then the commit on the branch
    const claimedAt = new Date(Date.now() - 60 * 60 * 1000);
    await db.db.fix.update({
      where: { id: fix.id },
      data: { status: 'APPLYING', applyClaimedById: ana.id, applyClaimedAt: claimedAt, applyClaim: { kind: 'ACCEPT', surface: 'DASHBOARD' } },
    });
    const pushed = await applyFixCommit({
      gitUrl: repo.dir,
      branch: BRANCH,
      expectedHead: repo.headRev,
      diff: fix.diff,
      author: { name: ana.name, email: ana.email },
      message: `Fix\n\nFlowfix-Fix: ${fix.id}\nFlowfix-Run: ${run.id}\n`,
      fixId: fix.id,
    });
    assert.equal(pushed.outcome, 'applied');

    // Bob's accept settles the dead claim instead of applying twice
    const err = await conflictOf(acceptFix({ fixId: fix.id, userId: bob.id, surface: 'DASHBOARD' }));
    assert.match(err.message, /^Ana Crash accepted this fix at \d\d:\d\d UTC as [0-9a-f]{12}/);
    const row = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
    assert.equal(row.status, 'APPLIED');
    assert.equal(row.appliedById, ana.id);
    assert.equal(row.appliedCommit, pushed.outcome === 'applied' ? pushed.commit : '');
    assert.equal(git(repo.dir, 'rev-list', '--count', `${repo.headRev}..${BRANCH}`), '1');
    const decisions = await db.db.decision.findMany({ where: { fixId: fix.id } });
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.userId]),
      [['ACCEPT', ana.id]],
    );
    const audit = await db.db.auditLog.findFirstOrThrow({ where: { action: 'fix.accept', targetId: fix.id } });
    assert.equal((audit.data as { reconciled?: boolean }).reconciled, true);
  });

  test('a dead claim whose commit never landed goes back to READY and the next accept applies', async () => {
    const repo = buildWorkingRepo(tmpDir());
    const ana = await createUser(db.db, 'Ana Died', ['REVIEWER']);
    const bob = await createUser(db.db, 'Bob Next', ['REVIEWER']);
    const { fix } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });
    await db.db.fix.update({
      where: { id: fix.id },
      data: { status: 'APPLYING', applyClaimedById: ana.id, applyClaimedAt: new Date(), applyClaim: { kind: 'ACCEPT', surface: 'DASHBOARD' } },
    });
    // a fresh claim is an apply in progress: others are told, nothing is released
    assert.equal(await reconcileApplyingFix({ fixId: fix.id }), 'in_progress');
    const busy = await conflictOf(acceptFix({ fixId: fix.id, userId: bob.id, surface: 'DASHBOARD' }));
    assert.match(busy.message, /^Ana Died accepted this fix at \d\d:\d\d UTC; it is being applied/);

    const later = new Date(Date.now() + 60 * 60 * 1000);
    assert.deepEqual(await reconcileStuckApplies({ now: later }), { [fix.id]: 'released' });
    const result = await acceptFix({ fixId: fix.id, userId: bob.id, surface: 'DASHBOARD' });
    assert.equal(commitInfo(repo.dir, BRANCH).author, 'Bob Next');
    assert.equal(git(repo.dir, 'rev-parse', BRANCH), result.commit);
  });
});

describe('reject', () => {
  test('stores the reason and closes the fix and the change; an accept afterwards is told who rejected', async () => {
    const repo = buildWorkingRepo(tmpDir());
    const gia = await createUser(db.db, 'Gia', ['REVIEWER']);
    const hal = await createUser(db.db, 'Hal', ['REVIEWER']);
    const { fix, change } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });
    await rejectFix({ fixId: fix.id, userId: gia.id, reason: 'TESTS_TAMPERED', text: 'It edits the assertion' });
    const decision = await db.db.decision.findFirstOrThrow({ where: { fixId: fix.id } });
    assert.deepEqual([decision.kind, decision.reason, decision.reasonText, decision.userId], ['REJECT', 'TESTS_TAMPERED', 'It edits the assertion', gia.id]);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'REJECTED');
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: change.id } })).status, 'REJECTED');
    const audit = await db.db.auditLog.findFirstOrThrow({ where: { action: 'fix.reject', targetId: fix.id } });
    assert.equal((audit.data as { reason: string }).reason, 'TESTS_TAMPERED');
    const err = await conflictOf(acceptFix({ fixId: fix.id, userId: hal.id, surface: 'DASHBOARD' }));
    assert.match(err.message, /^Gia rejected this fix at \d\d:\d\d UTC/);
    assert.equal(git(repo.dir, 'rev-parse', BRANCH), repo.headRev);
  });

  test('OTHER needs text; graders and managers may not decide', async () => {
    const repo = buildWorkingRepo(tmpDir());
    const ivy = await createUser(db.db, 'Ivy', ['REVIEWER']);
    const grader = await createUser(db.db, 'Gus Grader', ['GRADER', 'MANAGER']);
    const { fix } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });
    await assert.rejects(rejectFix({ fixId: fix.id, userId: ivy.id, reason: 'OTHER' }), /Say why in a few words/);
    const forbidden = await conflictOf(acceptFix({ fixId: fix.id, userId: grader.id, surface: 'DASHBOARD' }));
    assert.equal(forbidden.status, 403);
    await assert.rejects(rejectFix({ fixId: fix.id, userId: grader.id, reason: 'WRONG_FIX' }), (e: AppError) => e.status === 403);
    await rejectFix({ fixId: fix.id, userId: ivy.id, reason: 'OTHER', text: 'Duplicate of PR-2' });
    const decision = await db.db.decision.findFirstOrThrow({ where: { fixId: fix.id } });
    assert.deepEqual([decision.reason, decision.reasonText], ['OTHER', 'Duplicate of PR-2']);
  });
});
