import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { serveRoutes, type ServedRoute } from '../../helpers/route-server';
import { POST as previewRoute } from '@/app/api/fixes/[id]/preview/route';
import { GET as patchRoute } from '@/app/api/fixes/[id]/patch/route';
import { POST as acceptRoute } from '@/app/api/fixes/[id]/accept/route';
import { issuePersonalToken, revokePersonalToken } from '../../../lib/tokens/personal-tokens';
import { issueCiToken } from '../../../lib/tokens/ci-tokens';
import { BRANCH, BUGGY, FIXED, buildWorkingRepo, createFixFor, createUser, git, tmpDir } from '../fixes/helpers';

// `flowfix fix show|apply` end to end: the real bin/flowfix.mjs in a child
// process, in a developer's clone, talking to a node:http server that hands
// each request to the real route handlers and database, authenticated with a
// personal token.

const BIN = path.resolve('bin/flowfix.mjs');

const ROUTES: ServedRoute[] = [
  { method: 'POST', pattern: /^\/api\/fixes\/([^/]+)\/preview$/, handler: previewRoute },
  { method: 'GET', pattern: /^\/api\/fixes\/([^/]+)\/patch$/, handler: patchRoute },
  { method: 'POST', pattern: /^\/api\/fixes\/([^/]+)\/accept$/, handler: acceptRoute },
];

let db: TestDb;
let server: http.Server;
let serverUrl: string;
let root: string;

function run(args: string[], opts: { cwd: string; env?: Record<string, string> }) {
  // the CLI must work with none of the server's variables set
  const env = { ...process.env, DATABASE_URL: 'postgresql://nowhere.invalid/x', GIT_CONFIG_GLOBAL: '/dev/null', ...opts.env };
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: opts.cwd, env }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

before(async () => {
  db = await createTestDb();
  root = tmpDir('flowfix-cli-fix-');
  ({ server, url: serverUrl } = await serveRoutes(ROUTES));
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.drop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A change with a READY fix on a server-side repository, and a developer's clone of its branch. */
async function setup(name: string) {
  const dir = fs.mkdtempSync(path.join(root, 'case-'));
  const repo = buildWorkingRepo(dir);
  const { fix } = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });
  await db.db.fix.update({
    where: { id: fix.id },
    data: {
      summaryHtml: '<p>The total started at <code>1</code>; <script>alert(1)</script>it must start at <code>0</code>.</p>',
      evidence: { red: { passed: true, durationMs: 1200 }, green: { passed: true, durationMs: 900 }, targets: ['cart::total'] },
    },
  });
  const clone = path.join(dir, 'clone');
  git(dir, 'clone', '-q', '--branch', BRANCH, repo.dir, clone);
  const reviewer = await createUser(db.db, name, ['REVIEWER']);
  const { token } = await issuePersonalToken({ userId: reviewer.id, input: { name: 'laptop', scope: 'decide' } });
  return { repo, fix, clone, reviewer, token };
}

describe('flowfix fix show', () => {
  test('prints the root cause as text, the evidence and the diff, and records a PREVIEW with surface CLI', async () => {
    const { fix, clone, reviewer, token } = await setup('Sam Show');
    const res = await run(['fix', 'show', fix.id], { cwd: clone, env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: token } });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`^Fix ${fix.id} — ready\\nChange PR-\\d+: Start totals at one\\n`));
    assert.match(res.stdout, /Root cause\n {2}The total started at 1; it must start at 0\.\n/);
    assert.doesNotMatch(res.stdout, /alert|<script>/);
    assert.match(res.stdout, /Validation\n {2}RED {9}passed {2}1\.2 s\n {2}GREEN {7}passed {2}900 ms/);
    assert.match(res.stdout, /Target tests\n {2}cart::total/);
    assert.ok(res.stdout.includes(`-${BUGGY.trimEnd()}\n+${FIXED.trimEnd()}`), res.stdout);
    const decisions = await db.db.decision.findMany({ where: { fixId: fix.id } });
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.surface, d.userId]),
      [['PREVIEW', 'CLI', reviewer.id]],
    );
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'READY');
  });

  test('--json prints the fix as JSON', async () => {
    const { fix, clone, token } = await setup('Jo Json');
    const res = await run(['fix', 'show', fix.id, '--json', '--server', serverUrl, '--token', token], { cwd: clone });
    assert.equal(res.code, 0, res.stderr);
    const body = JSON.parse(res.stdout) as { id: string; status: string; diff: string };
    assert.deepEqual([body.id, body.status], [fix.id, 'READY']);
    assert.match(body.diff, /^diff --git a\/cart\.js b\/cart\.js/);
  });
});

describe('flowfix fix apply', () => {
  test('applies the fix in the local checkout with git apply --3way and records an ACCEPT with surface CLI', async () => {
    const { repo, fix, clone, reviewer, token } = await setup('Ada Apply');
    const res = await run(['fix', 'apply', fix.id], { cwd: clone, env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: token } });
    assert.equal(res.code, 0, res.stderr);
    assert.match(
      res.stdout,
      new RegExp(`Applied fix ${fix.id} in .*clone \\(staged, not committed\\):\\n {2}cart\\.js\\nRecorded your accept \\(surface cli\\)`),
    );
    assert.equal(fs.readFileSync(path.join(clone, 'cart.js'), 'utf8'), FIXED);
    assert.equal(git(clone, 'diff', '--cached', '--name-only'), 'cart.js');
    const row = await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } });
    assert.deepEqual([row.status, row.appliedById, row.appliedCommit], ['APPLIED', reviewer.id, null]);
    const decisions = await db.db.decision.findMany({ where: { fixId: fix.id } });
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.surface, d.userId]),
      [['ACCEPT', 'CLI', reviewer.id]],
    );
    // the reviewer applies it where they work: the server's branch is not moved
    assert.equal(git(repo.dir, 'rev-parse', BRANCH), repo.headRev);
    const audit = await db.db.auditLog.findFirstOrThrow({ where: { action: 'fix.accept', targetId: fix.id } });
    assert.deepEqual(audit.data, { mode: 'local', surface: 'CLI', changeId: row.changeId });

    // a second apply (another checkout, or a colleague) touches nothing
    const other = path.join(path.dirname(clone), 'other');
    git(path.dirname(clone), 'clone', '-q', '--branch', BRANCH, repo.dir, other);
    const again = await run(['fix', 'apply', fix.id], { cwd: other, env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: token } });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /the fix is applied, no longer open for a decision; nothing was applied/);
    assert.equal(fs.readFileSync(path.join(other, 'cart.js'), 'utf8'), BUGGY);
  });

  test('a patch that does not apply records nothing; refused tokens and graders get the server’s message', async () => {
    const { fix, clone, token, reviewer } = await setup('Nia Conflict');
    fs.writeFileSync(path.join(clone, 'cart.js'), 'export const total = () => 42;\n');
    git(clone, 'commit', '-q', '-am', 'rewrite totals');
    const conflict = await run(['fix', 'apply', fix.id], { cwd: clone, env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: token } });
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /git apply --3way could not apply the fix cleanly/);
    assert.equal(await db.db.decision.count({ where: { fixId: fix.id } }), 0);
    git(clone, 'reset', '-q', '--hard');

    const grader = await createUser(db.db, 'Gail Grader', ['GRADER']);
    const graderToken = (await issuePersonalToken({ userId: grader.id, input: { name: 'g', scope: 'decide' } })).token;
    const other = fs.mkdtempSync(path.join(root, 'grader-'));
    git(
      other,
      'clone',
      '-q',
      '--branch',
      BRANCH,
      (await db.db.repository.findFirstOrThrow({ where: { changes: { some: { id: fix.changeId } } } })).gitUrl,
      'c',
    );
    const forbidden = await run(['fix', 'apply', fix.id], { cwd: path.join(other, 'c'), env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: graderToken } });
    assert.equal(forbidden.code, 1);
    // a grader who holds no other role cannot even read the fix (graders grade blind)
    assert.match(forbidden.stderr, /the server refused the patch \(HTTP 403\): Requires one of the roles: reviewer, manager, admin/);
    // a manager reads the fix but may not decide: the accept is refused, nothing recorded
    const manager = await createUser(db.db, 'Mo Manager', ['MANAGER']);
    const managerToken = (await issuePersonalToken({ userId: manager.id, input: { name: 'm', scope: 'decide' } })).token;
    const managed = await run(['fix', 'apply', fix.id], { cwd: path.join(other, 'c'), env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: managerToken } });
    assert.equal(managed.code, 1);
    assert.match(managed.stderr, /refused to record your accept \(HTTP 403\): Requires one of the roles: reviewer, admin/);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'READY');

    const tokens = await db.db.personalToken.findMany({ where: { userId: reviewer.id } });
    await revokePersonalToken({ userId: reviewer.id, id: tokens[0].id });
    const revoked = await run(['fix', 'show', fix.id], { cwd: clone, env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: token } });
    assert.equal(revoked.code, 1);
    assert.match(revoked.stderr, /HTTP 401\): This personal token has been revoked/);

    const ci = (await issueCiToken({ actorId: null, input: { name: 'ci', allRepositories: true } })).token;
    const wrongKind = await run(['fix', 'show', fix.id], { cwd: clone, env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: ci } });
    assert.equal(wrongKind.code, 2);
    assert.match(wrongKind.stderr, /needs a personal token \(ffp_…\), not a CI token/);
    assert.equal(await db.db.decision.count({ where: { fixId: fix.id } }), 0);
  });

  test('usage: a subcommand and an id are required', async () => {
    const none = await run(['fix'], { cwd: root });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /say "show" or "apply"[\s\S]*Usage: flowfix fix show/);
    const noId = await run(['fix', 'apply'], { cwd: root, env: { FLOWFIX_TOKEN: 'ffp_x' } });
    assert.equal(noId.code, 2);
    assert.match(noId.stderr, /flowfix fix apply needs a fix id/);
  });
});
