import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { issuePersonalToken, revokePersonalToken } from '../../../lib/tokens/personal-tokens';
import { FlowfixClient, FlowfixError } from '../../../extension/src/core/client';
import { diskTree } from '../../../extension/src/core/fs-tree';
import { planFix, writePlan } from '../../../extension/src/core/patch';
import { buildView } from '../../../extension/src/core/view';
import { listen, serveExtensionRoutes } from '../../helpers/route-server';
import { BRANCH, BUGGY, FIXED, buildWorkingRepo, createFixFor, createUser, git, tmpDir } from '../fixes/helpers';

// The editor extension's logic (extension/src/core: no vscode import) against
// the real server: a node:http server (test/helpers/route-server.ts) handing each request to the real route
// handlers and database, real personal tokens, real git checkouts. What the
// VS Code glue adds on top is driven in a real VS Code host by e2e/editor.spec.ts.

let db: TestDb;
let server: http.Server;
let serverUrl: string;
let root: string;

before(async () => {
  db = await createTestDb();
  root = tmpDir('flowfix-extension-');
  ({ server, url: serverUrl } = await serveExtensionRoutes());
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await db.drop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A change with a READY fix and one failing test, a developer's clone of its branch, an editor token. */
async function setup(name: string, { kind = 'ide', roles = ['REVIEWER'] }: { kind?: 'ide' | 'cli'; roles?: Array<'REVIEWER' | 'GRADER'> } = {}) {
  const dir = fs.mkdtempSync(path.join(root, 'case-'));
  const repo = buildWorkingRepo(dir);
  const made = await createFixFor(db.db, { gitUrl: repo.dir, headRev: repo.headRev, baseRev: repo.baseRev });
  await db.db.failure.create({
    data: { changeId: made.change.id, revisionId: made.revision.id, testId: 'cart::total', testName: 'total of nothing is 0', file: 'cart.test.js', line: 3, message: 'expected 1 to be 0' },
  });
  await db.db.change.update({ where: { id: made.change.id }, data: { failingTestCount: 1, lastFailureAt: new Date() } });
  const clone = path.join(dir, 'clone');
  git(dir, 'clone', '-q', '--branch', BRANCH, repo.dir, clone);
  const user = await createUser(db.db, name, roles);
  const { token, record } = await issuePersonalToken({ userId: user.id, input: { name: 'editor', scope: 'decide', kind } });
  const client = new FlowfixClient({ serverUrl, token });
  return { repo, ...made, clone, user, token, tokenId: record.id, client };
}

const remotesOf = (clone: string) => [git(clone, 'remote', 'get-url', 'origin')];

describe('the branch state (GET /api/changes/for-branch)', () => {
  test("finds the checkout's repository by its remote and shows the change, its failing test, the run and the fix's root cause", async () => {
    const { clone, change, fix, run, client } = await setup('Ivy Ide');
    const state = await client.branchState({ remotes: remotesOf(clone), branch: BRANCH });
    assert.equal(state.change?.id, change.id);
    assert.deepEqual(state.change?.failures.map((f) => [f.testId, f.file, f.line, f.message]), [['cart::total', 'cart.test.js', 3, 'expected 1 to be 0']]);
    assert.equal(state.change?.run?.id, run.id);
    assert.equal(state.change?.run?.status, 'FIXED');
    assert.deepEqual([state.change?.fix?.id, state.change?.fix?.status, state.change?.fix?.files], [fix.id, 'READY', ['cart.js']]);
    assert.equal(state.change?.fix?.rootCause, 'The total started at 1 instead of 0.');
    const view = buildView({ kind: 'state', state, localHead: git(clone, 'rev-parse', 'HEAD') });
    assert.equal(view.status.text, '$(wrench) flowfix: fixed, fix ready');
    assert.deepEqual(view.nodes.map((n) => n.id), ['change', 'run', 'root-cause', 'fix', 'failures']);
    assert.equal(view.nodes.find((n) => n.id === 'fix')?.contextValue, 'fixReady');
  });

  test('an scp-style or https remote of the same repository name finds it too; a repository the server does not know is one clear line', async () => {
    const { client, repository } = await setup('Uma Unknown');
    const byName = await client.branchState({ remotes: [`git@example.com:acme/${repository.name}.git`], branch: BRANCH });
    assert.equal(byName.repository.id, repository.id);
    await assert.rejects(client.branchState({ remotes: ['git@example.com:acme/nothing-like-it.git'], branch: BRANCH }), (err: unknown) => {
      assert.ok(err instanceof FlowfixError);
      assert.equal(err.kind, 'not_found');
      assert.match(err.message, /^This flowfix server has no repository with the remote git@example\.com:acme\/nothing-like-it\.git; an admin registers it/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  });

  test('a branch with no change says so', async () => {
    const { clone, client, repository } = await setup('Nia Nochange');
    const state = await client.branchState({ remotes: remotesOf(clone), branch: 'main' });
    assert.equal(state.change, null);
    assert.equal(buildView({ kind: 'state', state, localHead: null }).nodes[0]!.label, `No failing change for main in ${repository.name}`);
  });

  test('a user without a browsing role is refused (403); a revoked token is one line (401) with a link to the Tokens page', async () => {
    const { clone, client: grader } = await setup('Gus Grader', { roles: ['GRADER'] });
    await assert.rejects(grader.branchState({ remotes: remotesOf(clone), branch: BRANCH }), (err: unknown) => {
      assert.ok(err instanceof FlowfixError);
      assert.deepEqual([err.kind, err.status], ['forbidden', 403]);
      return true;
    });
    const { user, tokenId, client } = await setup('Rex Revoked');
    await revokePersonalToken({ userId: user.id, id: tokenId });
    await assert.rejects(client.branchState({ remotes: remotesOf(clone), branch: BRANCH }), (err: unknown) => {
      assert.ok(err instanceof FlowfixError);
      assert.deepEqual([err.kind, err.status, err.link], ['unauthenticated', 401, `${serverUrl}/settings/tokens`]);
      assert.match(err.message, /revoked/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    assert.throws(() => new FlowfixClient({ serverUrl, token: 'not-a-token' }), /start with ffp_/);
  });
});

describe('preview, apply and reject, with the surface set by the server', () => {
  test("an editor token's preview and local accept are recorded as IDE; the fix's files give both sides", async () => {
    const { clone, fix, user, client } = await setup('Ada Apply');
    const files = await client.files(fix.id);
    assert.deepEqual(files.map((f) => [f.path, f.original, f.modified]), [['cart.js', BUGGY, FIXED]]);
    await client.preview(fix.id);
    const { diff, status } = await client.patch(fix.id);
    assert.equal(status, 'READY');
    const tree = diskTree(clone);
    const plan = await planFix(diff, tree);
    assert.ok(plan.ok);
    await writePlan(plan.writes, tree);
    assert.equal(fs.readFileSync(path.join(clone, 'cart.js'), 'utf8'), FIXED);
    await client.acceptLocal(fix.id, git(clone, 'rev-parse', 'HEAD'));
    const decisions = await db.db.decision.findMany({ where: { fixId: fix.id }, orderBy: { createdAt: 'asc' } });
    assert.deepEqual(decisions.map((d) => [d.kind, d.surface, d.userId]), [['PREVIEW', 'IDE', user.id], ['ACCEPT', 'IDE', user.id]]);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'APPLIED');
  });

  test('a client naming its own surface is refused; a command-line token is recorded as CLI', async () => {
    const { fix, token } = await setup('Cy Claims');
    const res = await fetch(`${serverUrl}/api/fixes/${fix.id}/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ surface: 'DASHBOARD' }),
    });
    assert.equal(res.status, 422);
    assert.match(await res.text(), /surface is set by the server/);
    assert.equal(await db.db.decision.count({ where: { fixId: fix.id } }), 0);
    const cli = await setup('Cal Cli', { kind: 'cli' });
    await cli.client.preview(cli.fix.id);
    assert.deepEqual((await db.db.decision.findMany({ where: { fixId: cli.fix.id } })).map((d) => d.surface), ['CLI']);
  });

  test('a local accept from a checkout at another revision is refused as stale, and records nothing', async () => {
    const { clone, fix, client } = await setup('Sid Stale');
    fs.writeFileSync(path.join(clone, 'NOTES.md'), 'more\n');
    git(clone, 'add', 'NOTES.md');
    git(clone, 'commit', '-q', '-m', 'moved on');
    await assert.rejects(client.acceptLocal(fix.id, git(clone, 'rev-parse', 'HEAD')), (err: unknown) => {
      assert.ok(err instanceof FlowfixError);
      assert.deepEqual([err.kind, err.status], ['conflict', 409]);
      assert.match(err.message, /^The fix is stale: it was made for feature\/total at [0-9a-f]{12}, and your checkout is at [0-9a-f]{12}$/);
      return true;
    });
    assert.equal(await db.db.decision.count({ where: { fixId: fix.id } }), 0);
    assert.equal((await db.db.fix.findUniqueOrThrow({ where: { id: fix.id } })).status, 'READY');
  });

  test('a reject carries a dashboard reason and is recorded as IDE', async () => {
    const { fix, client } = await setup('Ria Reject');
    await client.reject(fix.id, 'NOT_HOW_I_WOULD');
    const [d] = await db.db.decision.findMany({ where: { fixId: fix.id } });
    assert.deepEqual([d?.kind, d?.surface, d?.reason], ['REJECT', 'IDE', 'NOT_HOW_I_WOULD']);
  });
});

describe('line endings on a local apply', () => {
  // parsePatch reads the fix's diff with LF breaks; a Windows checkout (or
  // core.autocrlf) holds CRLF. The applied file keeps the breaks it had.
  const crlf = (text: string) => text.replace(/\n/g, '\r\n');
  const REST = '// the rest of the cart\n';

  test('a CRLF file stays CRLF, every line of it', async () => {
    const { clone, fix, client } = await setup('Cora Crlf');
    fs.writeFileSync(path.join(clone, 'cart.js'), crlf(BUGGY + REST));
    const tree = diskTree(clone);
    const plan = await planFix((await client.patch(fix.id)).diff, tree);
    assert.ok(plan.ok, JSON.stringify(plan));
    await writePlan(plan.writes, tree);
    assert.equal(fs.readFileSync(path.join(clone, 'cart.js'), 'utf8'), crlf(FIXED + REST));
  });

  test('an LF file stays LF', async () => {
    const { clone, fix, client } = await setup('Lea Lf');
    fs.writeFileSync(path.join(clone, 'cart.js'), BUGGY + REST);
    const tree = diskTree(clone);
    const plan = await planFix((await client.patch(fix.id)).diff, tree);
    assert.ok(plan.ok, JSON.stringify(plan));
    await writePlan(plan.writes, tree);
    const after = fs.readFileSync(path.join(clone, 'cart.js'), 'utf8');
    assert.equal(after, FIXED + REST);
    assert.doesNotMatch(after, /\r/);
  });
});

describe('bad input: one clear line, nothing written', () => {
  test('local edits that conflict with the fix, or a deleted file, stop the apply before anything is written', async () => {
    const { clone, fix, client } = await setup('Lu Local');
    const { diff } = await client.patch(fix.id);
    const tree = diskTree(clone);
    const edited = 'export const total = (xs) => xs.reduce((a, b) => a + b, 2);\n';
    fs.writeFileSync(path.join(clone, 'cart.js'), edited);
    const conflict = await planFix(diff, tree);
    assert.deepEqual(conflict, { ok: false, problems: ['cart.js: your local changes conflict with the fix near line 1'] });
    assert.equal(fs.readFileSync(path.join(clone, 'cart.js'), 'utf8'), edited);
    fs.rmSync(path.join(clone, 'cart.js'));
    const deleted = await planFix(diff, tree);
    assert.deepEqual(deleted, { ok: false, problems: ['cart.js: the fix changes this file, and it was deleted in your working tree'] });
    assert.equal(fs.existsSync(path.join(clone, 'cart.js')), false);
    // a change elsewhere in the file (lines shifted) still applies
    fs.writeFileSync(path.join(clone, 'cart.js'), `// a comment of mine\n${BUGGY}`);
    const shifted = await planFix(diff, tree);
    assert.ok(shifted.ok);
    assert.equal(shifted.writes[0]?.after, `// a comment of mine\n${FIXED}`);
  });

  test('a server that is down, or answers 5xx, is one line naming it', async () => {
    const { server: down, url: downUrl } = await listen(() => undefined);
    await new Promise((resolve) => down.close(resolve));
    const token = `ffp_${'x'.repeat(43)}`;
    await assert.rejects(new FlowfixClient({ serverUrl: downUrl, token }).branchState({ remotes: ['x'], branch: 'b' }), (err: unknown) => {
      assert.ok(err instanceof FlowfixError);
      assert.equal(err.kind, 'unreachable');
      assert.equal(err.message, `The flowfix server at ${downUrl} cannot be reached (ECONNREFUSED)`);
      return true;
    });
    const { server: failing, url: failingUrl } = await listen((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    try {
      await assert.rejects(new FlowfixClient({ serverUrl: failingUrl, token }).branchState({ remotes: ['x'], branch: 'b' }), (err: unknown) => {
        assert.ok(err instanceof FlowfixError);
        assert.deepEqual([err.kind, err.message], ['server', `The flowfix server at ${failingUrl} failed (HTTP 502); try again later`]);
        return true;
      });
    } finally {
      await new Promise((resolve) => failing.close(resolve));
    }
    assert.throws(() => new FlowfixClient({ serverUrl: 'localhost:3000', token }), /flowfix\.serverUrl must be http\(s\)|not a URL/);
  });
});

describe('following the run', () => {
  test("the run's saved events arrive through the stream, then its end", async () => {
    const { run, client } = await setup('Fay Follow');
    await db.db.runEvent.createMany({
      data: [
        { runId: run.id, seq: 1, type: 'phase', payload: { phase: 'reproduce' } },
        { runId: run.id, seq: 2, type: 'phase', payload: { phase: 'localise' } },
      ],
    });
    const seen: Array<{ id: string | null; type: string }> = [];
    await client.followRun(run.id, (e) => seen.push({ id: e.id, type: e.type }), new AbortController().signal);
    assert.deepEqual(seen.filter((e) => e.type !== 'end').map((e) => e.id), ['1', '2']);
    assert.equal(seen.at(-1)?.type, 'end');
  });
});
