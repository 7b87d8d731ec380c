import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { stopRunQueue } from '../../../lib/queue';
import { startWorker, type RunWorker } from '../../../agent/worker/worker';
import { editAccept } from '../../../lib/fixes/edit-accept';
import { getFixById, getFixFiles } from '../../../lib/fixes/queries';
import { getChangeDetail } from '../../../lib/changes/detail';
import { makeRepo, tsSettings } from '../../helpers/agent-repos';

type Repo = ReturnType<typeof makeRepo>;
import { TERMINAL, waitFor } from '../runs/helpers';
import { createUser, git, tmpDir } from './helpers';

// Edit then accept where the reviewer renames the failing test to match the
// fix's new expectation (the change switched to banker's rounding on
// purpose; the fix updates the stale expectation; the reviewer also renames
// "rounds half a cent up" to "rounds half a cent to even"). The re-validation
// run (the real worker, the real pipeline, a real git repository and test
// runner) must judge the edit on the renamed test, say which tests failed and
// why when it refuses, and the page must show the diff that was committed.

const BRANCH = 'pr/418-bankers-rounding';
const TARGET = 'test::money > rounds half a cent up';
const RENAMED = 'test::money > rounds half a cent to even';

const MONEY_BASE = `export function roundCents(cents: number): number {
  return Math.sign(cents) * Math.round(Math.abs(cents));
}
`;
const MONEY_HEAD = `export function roundCents(cents: number): number {
  const floor = Math.floor(cents);
  const fraction = cents - floor;
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
`;
const MONEY_TEST = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { roundCents } from '../src/money.ts';

describe('money', () => {
  test('rounds half a cent up', () => {
    assert.equal(roundCents(12.5), 13);
  });

  test('rounds fractions to the nearest cent', () => {
    assert.equal(roundCents(12.4), 12);
    assert.equal(roundCents(12.6), 13);
  });
});
`;

let db: TestDb;
let worker: RunWorker;
let scratch: string;
const repos: Repo[] = [];

before(async () => {
  db = await createTestDb();
  worker = await startWorker({ concurrency: 1, leaseMs: 10_000, heartbeatMs: 500, pollMs: 100 });
  scratch = tmpDir('flowfix-edit-renamed-');
});
after(async () => {
  await worker?.stop({ graceMs: 0 });
  await stopRunQueue();
  await db?.drop();
  repos.forEach((r) => r.cleanup());
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The diff of test/money.test.ts from the change's head to `text`. */
function testDiff(repo: Repo, text: string): string {
  const dir = fs.mkdtempSync(path.join(scratch, 'edit-'));
  git(dir, 'clone', '-q', repo.dir, 'c');
  const c = path.join(dir, 'c');
  git(c, 'checkout', '-q', BRANCH);
  fs.writeFileSync(path.join(c, 'test/money.test.ts'), text);
  return `${git(c, 'diff')}\n`;
}

/** A repository whose change deliberately rounds halves to even, and a READY fix updating the stale expectation. */
async function worldWithStaleExpectationFix() {
  const repo = makeRepo('flowfix-bankers-');
  repos.push(repo);
  repo.write('package.json', JSON.stringify({ name: 'money', private: true, type: 'module' }) + '\n');
  repo.write('.gitignore', 'junit.xml\n');
  repo.write('src/money.ts', MONEY_BASE);
  repo.write('test/money.test.ts', MONEY_TEST);
  const base = repo.commit('money with tests');
  repo.git('checkout', '-q', '-b', BRANCH);
  repo.write('src/money.ts', MONEY_HEAD);
  const head = repo.commit("Round half cents to even (banker's rounding)");
  repo.git('checkout', '-q', 'main');

  const repository = await db.db.repository.create({
    data: {
      name: `money-${Math.random().toString(36).slice(2, 8)}`,
      gitUrl: repo.dir,
      language: 'typescript',
      settings: { ...tsSettings(), build: undefined },
    },
  });
  const change = await db.db.change.create({
    data: {
      repositoryId: repository.id,
      externalId: 'PR-418',
      title: "Round half cents to even (banker's rounding)",
      description: 'Switch roundCents to round-half-to-even so totals agree with the ledger. This deliberately changes how exact halves round.',
      author: 'dev',
      branch: BRANCH,
      baseRev: base,
      headRev: head,
      status: 'FIX_READY',
      failingTestCount: 1,
    },
  });
  const revision = await db.db.changeRevision.create({ data: { changeId: change.id, number: 1, baseRev: base, headRev: head, branch: BRANCH } });
  await db.db.failure.create({
    data: { changeId: change.id, revisionId: revision.id, testId: TARGET, testName: 'money > rounds half a cent up', message: '12 !== 13' },
  });
  const run = await db.db.run.create({
    data: { changeId: change.id, revisionId: revision.id, policy: 'offline', status: 'FIXED', exitReason: 'fixed', finishedAt: new Date() },
  });
  // the agent's fix: the stale expectation updated (one line)
  const diff = testDiff(repo, MONEY_TEST.replace('roundCents(12.5), 13', 'roundCents(12.5), 12'));
  const fix = await db.db.fix.create({
    data: {
      runId: run.id,
      changeId: change.id,
      revisionId: revision.id,
      diff,
      files: ['test/money.test.ts'],
      summaryHtml: '<p>The test expected halves rounded up.</p>',
      evidence: {},
    },
  });
  return { repo, head, changeId: change.id, fix };
}

async function finishedRun(runId: string) {
  return waitFor(
    async () => {
      const r = await db.db.run.findUniqueOrThrow({ where: { id: runId } });
      return TERMINAL.includes(r.status) ? r : undefined;
    },
    { what: `run ${runId} to finish`, timeoutMs: 240_000 },
  );
}

describe(`edit then accept, the failing test renamed (${process.env.FLOWFIX_TEST_DB ?? 'pglite'})`, () => {
  test('the re-validation follows the renamed test, the edit is committed, and the page shows the committed diff', async () => {
    const { repo, head, changeId, fix } = await worldWithStaleExpectationFix();
    const reviewer = await createUser(db.db, 'Rena Reviewer', ['REVIEWER']);
    const edited = MONEY_TEST.replace("'rounds half a cent up'", "'rounds half a cent to even'").replace('roundCents(12.5), 13', 'roundCents(12.5), 12');
    const diff = testDiff(repo, edited);

    const { runId } = await editAccept({ fixId: fix.id, userId: reviewer.id, diff });
    const done = await finishedRun(runId);
    assert.equal(done.status, 'FIXED', `${done.exitReason}: ${done.exitDetail}`);
    const events = await db.db.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    const logs = events.filter((e) => e.type === 'log').map((e) => String((e.payload as { text?: unknown }).text));
    assert.ok(
      logs.some((t) => t === `the edit renamed 1 target test(s): ${TARGET} → ${RENAMED} (test/money.test.ts)`),
      logs.join('\n'),
    );
    // GREEN and the final rerun judged the renamed test; the head without the fix, the test as the head names it
    const gates = events.filter((e) => e.type === 'gate').map((e) => e.payload as { gate: string; passed: boolean; tests?: Array<{ id: string }> });
    assert.deepEqual(
      gates
        .filter((g) => g.gate === 'final')
        .map((g) => [g.passed, g.tests?.map((t) => t.id)])
        .at(0),
      [true, [RENAMED]],
    );
    const proof = events.find((e) => e.type === 'proof')?.payload as { status: string; withoutFix: { runs: number; failed: number } } | undefined;
    assert.equal(proof?.status, 'proven', JSON.stringify(proof));
    assert.equal(proof?.withoutFix.failed, proof?.withoutFix.runs);

    const applied = await waitFor(
      async () => {
        const f = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
        return f.status === 'APPLIED' ? f : undefined;
      },
      { what: 'the edited fix to be applied' },
    );
    assert.match(git(repo.dir, 'show', `${BRANCH}:test/money.test.ts`), /'rounds half a cent to even'/);
    assert.equal(git(repo.dir, 'rev-parse', `${BRANCH}^`), head);

    // the applied fix shows what was committed: the reviewer's edit, not the agent's diff
    const view = await getFixById({ id: fix.id });
    assert.deepEqual(view.diffStat, { files: 1, additions: 2, deletions: 2 });
    assert.ok(view.changes.files[0]!.hunks.some((h) => h.lines.some((l) => l.type === '+' && l.text.includes("'rounds half a cent to even'"))));
    assert.deepEqual(view.edited, { runId });
    assert.equal(view.appliedCommit, applied.appliedCommit);
    const [file] = await getFixFiles({ id: fix.id, diffOf: 'committed' });
    assert.match(file!.modified, /'rounds half a cent to even'/);
    // graders still see the agent's own diff
    const [agents] = await getFixFiles({ id: fix.id });
    assert.doesNotMatch(agents!.modified, /to even/);

    // the re-validation's own fix row is not a second fix, and nothing is listed as dropped
    const detail = await getChangeDetail({ id: changeId });
    assert.deepEqual(
      detail.fixes.map((f) => [f.id, f.status]),
      [[fix.id, 'APPLIED']],
    );
  });

  test('a renamed test that still fails: refused, with the test and its message on the change and the fix', async () => {
    const { repo, changeId, fix } = await worldWithStaleExpectationFix();
    const reviewer = await createUser(db.db, 'Wren Wrong', ['REVIEWER']);
    const edited = MONEY_TEST.replace("'rounds half a cent up'", "'rounds half a cent to even'").replace('roundCents(12.5), 13', 'roundCents(12.5), 14');

    const { runId } = await editAccept({ fixId: fix.id, userId: reviewer.id, diff: testDiff(repo, edited) });
    const done = await finishedRun(runId);
    assert.equal(done.status, 'NO_FIX');
    assert.match(done.exitDetail ?? '', new RegExp(`^the target tests do not pass with the edited fix: failing: ${RENAMED} \\([^)]*12 !== 14[^)]*\\)`));
    const change = await waitFor(
      async () => {
        const c = await db.db.change.findUniqueOrThrow({ where: { id: changeId } });
        return c.statusReason?.startsWith('the edited fix did not pass re-validation') ? c : undefined;
      },
      { what: 'the refusal on the change' },
    );
    assert.equal(change.status, 'FIX_READY');
    assert.match(change.statusReason!, /rounds half a cent to even \([^)]*12 !== 14/);
    assert.doesNotMatch(change.statusReason!, /no_candidate/);

    const view = await getFixById({ id: fix.id });
    assert.equal(view.status, 'READY');
    assert.equal(view.edited, null);
    assert.deepEqual(view.diffStat, { files: 1, additions: 1, deletions: 1 });
    assert.equal(view.revalidation?.runId, runId);
    assert.equal(view.revalidation?.status, 'NO_FIX');
    assert.match(view.revalidation?.message ?? '', /12 !== 14/);

    // the reviewer corrects the edit: the earlier refusal is no longer the change's word, and the new edit is applied
    const second = await editAccept({
      fixId: fix.id,
      userId: reviewer.id,
      diff: testDiff(repo, edited.replace('roundCents(12.5), 14', 'roundCents(12.5), 12')),
    });
    assert.notEqual(second.runId, runId);
    assert.equal((await db.db.change.findUniqueOrThrow({ where: { id: changeId } })).statusReason, null);
    const pending = await getFixById({ id: fix.id });
    assert.equal(pending.revalidation?.runId, second.runId);
    assert.equal(pending.revalidation?.message, null);
    assert.equal((await finishedRun(second.runId)).status, 'FIXED');
    await waitFor(async () => (await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status === 'APPLIED', {
      what: 'the corrected edit to be applied',
    });
    assert.deepEqual((await getFixById({ id: fix.id })).edited, { runId: second.runId });
  });
});
