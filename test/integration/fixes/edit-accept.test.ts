import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { requestRun } from '../../../lib/runs/service';
import { stopRunQueue } from '../../../lib/queue';
import { startWorker, type RunWorker } from '../../../agent/worker/worker';
import { editAccept } from '../../../lib/fixes/edit-accept';
import { AppError } from '../../../lib/errors';
import { seedWorld, TERMINAL, waitFor, type RunWorld } from '../runs/helpers';
import { TS_CART_HEAD } from '../../helpers/agent-repos';
import { createUser, git, tmpDir } from './helpers';

// Edit, then accept, end to end: the agent's fix comes from a real run; the
// reviewer's edit goes back through the gates as a REVALIDATE run executed by
// the real worker; a passing edit lands on the branch as an EDIT_ACCEPT, a
// failing one leaves the fix READY with the run saying why.

const BRANCH = 'feature/total';

let db: TestDb;
let worker: RunWorker;
const worlds: RunWorld[] = [];
let scratch: string;

before(async () => {
  db = await createTestDb();
  worker = await startWorker({ concurrency: 1, leaseMs: 10_000, heartbeatMs: 500, pollMs: 100 });
  scratch = tmpDir('flowfix-edit-');
});
after(async () => {
  await worker?.stop({ graceMs: 0 });
  await stopRunQueue();
  await db?.drop();
  worlds.forEach((w) => w.repo.cleanup());
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function finishedRun(runId: string) {
  return waitFor(
    async () => {
      const r = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
      return TERMINAL.includes(r.status) ? r : undefined;
    },
    { what: `run ${runId} to finish`, timeoutMs: 180_000 },
  );
}

/** A world whose change lives on BRANCH (not checked out) with a READY fix from a real offline run. */
async function worldWithFix() {
  const world = await seedWorld({ db: db.db });
  worlds.push(world);
  git(world.repo.dir, 'branch', BRANCH, world.repo.head);
  git(world.repo.dir, 'checkout', '-q', '--detach', world.repo.base);
  const { runId } = await requestRun({ changeId: world.changeId, trigger: 'MANUAL', policy: 'offline' });
  const run = await finishedRun(runId);
  assert.equal(run.status, 'FIXED', `${run.exitReason}: ${run.exitDetail}`);
  const fix = await db.db.fix.findUniqueOrThrow({ where: { runId } });
  assert.equal(fix.status, 'READY');
  return { world, fix };
}

/** The diff of src/cart.ts from the change's head to `line` in place of the broken one. */
function editedDiff(world: RunWorld, line: string): string {
  const dir = fs.mkdtempSync(path.join(scratch, 'edit-'));
  git(dir, 'clone', '-q', world.repo.dir, 'c');
  const c = path.join(dir, 'c');
  git(c, 'checkout', '-q', world.repo.head);
  fs.writeFileSync(path.join(c, 'src/cart.ts'), TS_CART_HEAD.replace('sum += item.price + item.qty;', line));
  return `${git(c, 'diff')}\n`;
}

describe(`edit then accept (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  test('a passing edit is re-validated by a REVALIDATE run and applied as EDIT_ACCEPT with the edit recorded', async () => {
    const { world, fix } = await worldWithFix();
    const reviewer = await createUser(db.db, 'Edda Editor', ['REVIEWER']);
    const diff = editedDiff(world, 'sum += item.qty * item.price;');

    const { runId } = await editAccept({ fixId: fix.id, userId: reviewer.id, surface: 'DASHBOARD', diff });
    const run = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
    assert.deepEqual([run.trigger, run.sourceFixId, run.inputDiff, run.requestedById], ['REVALIDATE', fix.id, diff, reviewer.id]);

    const done = await finishedRun(runId);
    assert.equal(done.status, 'FIXED', `${done.exitReason}: ${done.exitDetail}`);
    const applied = await waitFor(
      async () => {
        const f = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
        return f.status === 'APPLIED' ? f : undefined;
      },
      { what: 'the edited fix to be applied' },
    );
    assert.equal(applied.appliedById, reviewer.id);
    const tip = git(world.repo.dir, 'rev-parse', BRANCH);
    assert.equal(applied.appliedCommit, tip);
    assert.equal(git(world.repo.dir, 'rev-parse', `${BRANCH}^`), world.repo.head);
    assert.match(git(world.repo.dir, 'show', `${BRANCH}:src/cart.ts`), /sum \+= item\.qty \* item\.price;/);
    assert.match(git(world.repo.dir, 'log', '-1', '--format=%an|%cn|%B', BRANCH), new RegExp(`^Edda Editor\\|flowfix\\|[\\s\\S]*Flowfix-Fix: ${fix.id}`));
    const decisions = await db.db.decision.findMany({ where: { fixId: fix.id } });
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.editedDiff, d.runId, d.commit]),
      [['EDIT_ACCEPT', diff, runId, tip]],
    );
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: world.changeId } })).status, 'APPLIED');
    assert.ok(await db.db.auditLog.findFirst({ where: { action: 'fix.edit_accept', targetId: fix.id } }));
    // the re-validation's own fix row is not a second fix to review
    const extra = await db.db.fix.findMany({ where: { runId } });
    assert.ok(
      extra.every((f) => f.status !== 'READY'),
      JSON.stringify(extra.map((f) => f.status)),
    );
  });

  test('a failing edit leaves the fix READY and the branch alone; the run says why', async () => {
    const { world, fix } = await worldWithFix();
    const reviewer = await createUser(db.db, 'Finn', ['REVIEWER']);
    const diff = editedDiff(world, 'sum += item.price - item.qty;');

    const { runId } = await editAccept({ fixId: fix.id, userId: reviewer.id, diff });
    const done = await finishedRun(runId);
    assert.notEqual(done.status, 'FIXED');
    assert.match(
      done.exitDetail ?? '',
      /^the target tests do not pass with the edited fix: failing: test::cart > total multiplies price by quantity \(|compile gate/,
    );
    await waitFor(async () => (await db.db.auditLog.findFirst({ where: { action: 'fix.edit_accept.failed', targetId: fix.id } })) ?? undefined, {
      what: 'the failed re-validation to be recorded',
    });
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'READY');
    assert.equal(git(world.repo.dir, 'rev-parse', BRANCH), world.repo.head);
    assert.equal(await db.db.decision.count({ where: { fixId: fix.id, kind: { not: 'PREVIEW' } } }), 0);
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: world.changeId } })).status, 'FIX_READY');
  });

  test('an edit that is not a diff is refused before any run; graders cannot edit-accept', async () => {
    const world = worlds[0];
    const fixRow = await db.db.fix.findFirstOrThrow({ where: { changeId: world.changeId, run: { trigger: 'MANUAL' } } });
    const reviewer = await createUser(db.db, 'Gil', ['REVIEWER']);
    const grader = await createUser(db.db, 'Gus', ['GRADER']);
    const runsBefore = await db.db.run.count();
    // the fix was applied by the first test: deciding again is a conflict naming who did
    await assert.rejects(
      editAccept({ fixId: fixRow.id, userId: reviewer.id, diff: 'hello' }),
      (e: AppError) => e.status === 409 && /Edda Editor accepted/.test(e.message),
    );
    await assert.rejects(editAccept({ fixId: fixRow.id, userId: grader.id, diff: 'x' }), (e: AppError) => e.status === 403);
    const second = worlds[1];
    const ready = await db.db.fix.findFirstOrThrow({ where: { changeId: second.changeId, status: 'READY' } });
    await assert.rejects(editAccept({ fixId: ready.id, userId: reviewer.id, diff: 'not a diff at all' }), /not a unified diff/);
    assert.equal(await db.db.run.count(), runsBefore);
  });
});
