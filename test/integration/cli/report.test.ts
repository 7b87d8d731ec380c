import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { NextRequest } from 'next/server';
import { createTestDb, type TestDb } from '../../helpers/test-db';
import { POST } from '@/app/api/v1/failures/route';
import { seed, type Seeded } from '../ingest/helpers';

// `flowfix report` end to end: the real bin/flowfix.mjs in a child process,
// run inside a real git checkout built here, posting to a node:http server
// that hands each request to the real route handler and database.

const BIN = path.resolve('bin/flowfix.mjs');
const JUNIT = path.resolve('test/fixtures/junit/node-test.xml');

type Env = Record<string, string | undefined>;

let db: TestDb;
let seeded: Seeded;
let server: http.Server;
let serverUrl: string;
let work: string;

function run(cmd: string, args: string[], opts: { cwd: string; env?: Env }) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env } as NodeJS.ProcessEnv }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const AUTHOR_ENV = {
  GIT_AUTHOR_NAME: 'Grace Hopper',
  GIT_AUTHOR_EMAIL: 'grace@example.com',
  GIT_COMMITTER_NAME: 'Grace Hopper',
  GIT_COMMITTER_EMAIL: 'grace@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  const res = await run('git', args, { cwd, env: AUTHOR_ENV });
  assert.equal(res.code, 0, `git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout.trim();
}

async function commitFile(cwd: string, file: string, content: string, message: string, env: Env = {}) {
  fs.writeFileSync(path.join(cwd, file), content);
  await git(cwd, 'add', file);
  const res = await run('git', ['commit', '-q', '-m', message], { cwd, env: { ...AUTHOR_ENV, ...env } });
  assert.equal(res.code, 0, res.stderr);
}

function flowfix(args: string[], opts: { cwd: string; env?: Env }) {
  // the CLI must work with none of the server's variables set
  const env = { ...opts.env, DATABASE_URL: 'postgresql://nowhere.invalid/x', FLOWFIX_MAX_UPLOAD_BYTES: 'not-a-number' };
  return run(process.execPath, [BIN, ...args], { cwd: opts.cwd, env });
}

/** Builds origin (main: 2 commits) and a clone with branch feature/discount (2 more commits by Linus). */
async function buildCheckout(): Promise<{ clone: string; mainTip: string }> {
  const origin = path.join(work, 'origin');
  fs.mkdirSync(origin);
  await git(origin, 'init', '-q', '-b', 'main');
  await commitFile(origin, 'cart.js', 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n', 'cart');
  await commitFile(origin, 'README.md', '# shop\n', 'readme');
  const mainTip = await git(origin, 'rev-parse', 'HEAD');
  const clone = path.join(work, 'clone');
  await git(work, 'clone', '-q', origin, clone);
  await git(clone, 'checkout', '-q', '-b', 'feature/discount');
  const linus = { GIT_AUTHOR_NAME: 'Linus Example', GIT_AUTHOR_EMAIL: 'linus@example.com' };
  await commitFile(clone, 'discount.js', 'export const discount = (t) => t * 0.9;\n', 'Add discount', linus);
  await commitFile(
    clone,
    'cart.js',
    'export const total = (xs) => xs.reduce((a, b) => a + b, 1);\nexport const n = 1;\n',
    'Apply a discount to the cart total\n\nThe total now starts at one.',
    linus,
  );
  // main moves on after the branch point: the base must stay the merge-base
  await commitFile(origin, 'later.md', 'later\n', 'later on main');
  await git(clone, 'fetch', '-q', 'origin');
  assert.notEqual(await git(clone, 'rev-parse', 'origin/main'), mainTip);
  return { clone, mainTip };
}

before(async () => {
  db = await createTestDb();
  seeded = await seed(db.db);
  server = http.createServer((req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const init = {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
      duplex: 'half',
    } as ConstructorParameters<typeof NextRequest>[1];
    const nextReq = new NextRequest(new URL(req.url ?? '/', serverUrl), init);
    const route =
      req.url === '/api/v1/failures' && req.method === 'POST'
        ? POST(nextReq, { params: Promise.resolve({}) })
        : Promise.resolve(new Response('not found', { status: 404 }));
    route
      .then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      })
      .catch((err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'flowfix-cli-'));
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.drop();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('flowfix report', () => {
  let clone: string;
  let mainTip: string;

  before(async () => {
    ({ clone, mainTip } = await buildCheckout());
  });

  test('posts the git-derived revision, branch, author and base with the JUnit report and log', async () => {
    const logFile = path.join(work, 'ci.log');
    fs.writeFileSync(logFile, 'npm test\n# fail 3\n');
    const res = await flowfix(
      ['report', '--junit', JUNIT, '--log', logFile, '--repository', 'shop', '--change', 'PR-7', '--url', 'https://git.example.com/shop/pull/7'],
      { cwd: clone, env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: seeded.tokens.scoped } },
    );
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /Reported change PR-7, revision 1: new revision; 3 failing test\(s\)/);
    // each failing test with its message, the message on one line
    assert.match(res.stdout, /\n {2}test::cart > total sums prices\n {6}Expected values to be strictly equal:4 !== 3\n/);
    assert.match(res.stdout, /\n {2}test::cart > empty cart\n {6}Expected values to be strictly deep-equal:\+ actual - expected \{\+ a: 1- a: 0 \}\n/);
    assert.match(res.stdout, /\n {2}test::top-level throws\n {6}boom </);

    const headRev = await git(clone, 'rev-parse', 'HEAD');
    const change = await db.db.change.findFirstOrThrow({ where: { externalId: 'PR-7' }, include: { revisions: true, failures: true } });
    assert.equal(change.headRev, headRev);
    assert.equal(change.baseRev, mainTip);
    assert.equal(change.branch, 'feature/discount');
    assert.equal(change.author, 'Linus Example');
    assert.equal(change.authorEmail, 'linus@example.com');
    assert.equal(change.title, 'Apply a discount to the cart total');
    assert.equal(change.description, 'The total now starts at one.');
    assert.equal(change.url, 'https://git.example.com/shop/pull/7');
    assert.equal(change.origin, 'CLI');
    assert.equal(change.filesChanged, 2);
    assert.equal(change.linesChanged, 4);
    assert.equal(change.failures.length, 3);
    assert.equal(change.revisions[0].ciLog, 'npm test\n# fail 3\n');
    assert.equal(change.revisions[0].headRev, headRev);
  });

  test('a second report of the same checkout is idempotent', async () => {
    const res = await flowfix(['report', '--junit', JUNIT, '--repository', 'shop', '--change', 'PR-7', '--json'], {
      cwd: clone,
      env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: seeded.tokens.scoped },
    });
    assert.equal(res.code, 0, res.stderr);
    const answer = JSON.parse(res.stdout) as { created: boolean; revisionNumber: number; failures: number };
    assert.deepEqual([answer.created, answer.revisionNumber, answer.failures], [false, 1, 3]);
    assert.equal(await db.db.changeRevision.count({ where: { change: { externalId: 'PR-7' } } }), 1);
  });

  test('many failing tests: the first 20 with their messages shortened to a line, then how many more; a UTF-16 report is read', async () => {
    const long = `AssertionError: totals differ\n\n${'x'.repeat(600)}\n    at Object.total (cart.test.js:3:9)`;
    const cases = Array.from(
      { length: 25 },
      (_, i) =>
        `<testcase classname="cart" name="case ${String(i).padStart(2, '0')}"><failure message="${i === 0 ? long.replace(/\n/g, '&#10;') : `wrong ${i}`}"/></testcase>`,
    ).join('');
    const xml = `<?xml version="1.0" encoding="UTF-16"?>\n<testsuite name="cart">${cases}<testcase classname="cart" name="größe ✓"><failure message="attendu 3, reçu 4 — €"/></testcase></testsuite>`;
    const file = path.join(work, 'report-utf16.xml');
    // as .NET and PowerShell write it: UTF-16 little endian with a byte order mark
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]));
    const res = await flowfix(['report', '--junit', file, '--repository', 'shop', '--change', 'PR-11'], {
      cwd: clone,
      env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: seeded.tokens.scoped },
    });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /26 failing test\(s\)/);
    const lines = res.stdout.split('\n');
    const first = lines.findIndex((l) => l === '  cart::case 00');
    assert.ok(first > 0, res.stdout);
    // one line, whitespace collapsed, cut with an ellipsis
    const message = lines[first + 1];
    assert.match(message, /^ {6}AssertionError: totals differ x{10,}…$/);
    assert.ok(message.length <= 6 + 200, `${message.length} characters`);
    assert.equal(lines[first + 2], '  cart::case 01');
    assert.equal(lines[first + 3], '      wrong 1');
    assert.ok(res.stdout.includes('  cart::case 19\n      wrong 19\n'), res.stdout);
    assert.ok(!res.stdout.includes('case 20'), 'only the first 20 are listed');
    assert.match(res.stdout, /\n {2}… and 6 more failing tests\n/);
    const stored = await db.db.failure.findFirstOrThrow({ where: { testName: 'größe ✓' } });
    assert.equal(stored.message, 'attendu 3, reçu 4 — €');
  });

  test('--base, --repo, --server and --token flags override the defaults', async () => {
    const first = await git(clone, 'rev-parse', 'HEAD~1');
    const res = await flowfix(
      [
        'report',
        '--junit',
        JUNIT,
        '--repository',
        'shop',
        '--change',
        'PR-8',
        '--base',
        first,
        '--repo',
        clone,
        '--server',
        serverUrl,
        '--token',
        seeded.tokens.all,
      ],
      { cwd: work, env: { FLOWFIX_SERVER: 'http://127.0.0.1:9', FLOWFIX_TOKEN: 'ffx_wrong' } },
    );
    assert.equal(res.code, 0, res.stderr);
    const change = await db.db.change.findFirstOrThrow({ where: { externalId: 'PR-8' } });
    assert.equal(change.baseRev, first);
    assert.equal(change.filesChanged, 1);
  });

  test('falls back to the local default branch when there is no origin', async () => {
    const solo = path.join(work, 'solo');
    fs.mkdirSync(solo);
    await git(solo, 'init', '-q', '-b', 'main');
    await commitFile(solo, 'a.txt', 'a\n', 'first');
    const base = await git(solo, 'rev-parse', 'HEAD');
    await git(solo, 'checkout', '-q', '-b', 'topic');
    await commitFile(solo, 'a.txt', 'b\n', 'second');
    const res = await flowfix(['report', '--junit', JUNIT, '--repository', 'shop', '--change', 'SOLO-1'], {
      cwd: solo,
      env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: seeded.tokens.scoped },
    });
    assert.equal(res.code, 0, res.stderr);
    const change = await db.db.change.findFirstOrThrow({ where: { externalId: 'SOLO-1' } });
    assert.deepEqual([change.baseRev, change.branch, change.author], [base, 'topic', 'Grace Hopper']);
  });

  test("a refusal exits non-zero with the server's message", async () => {
    const revoked = await flowfix(['report', '--junit', JUNIT, '--repository', 'shop', '--change', 'PR-9'], {
      cwd: clone,
      env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: seeded.tokens.revoked },
    });
    assert.equal(revoked.code, 1);
    assert.match(revoked.stderr, /refused the report \(HTTP 401\): This CI token has been revoked/);
    const unknownRepo = await flowfix(['report', '--junit', JUNIT, '--repository', 'nope', '--change', 'PR-9'], {
      cwd: clone,
      env: { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: seeded.tokens.all },
    });
    assert.equal(unknownRepo.code, 1);
    assert.match(unknownRepo.stderr, /HTTP 404\): No repository "nope" this CI token may report to/);
    assert.equal(await db.db.change.count({ where: { externalId: 'PR-9' } }), 0);
  });

  test('usage errors exit 2 and name what is missing; unreadable files and an unreachable server exit 1', async () => {
    const env = { FLOWFIX_SERVER: serverUrl, FLOWFIX_TOKEN: seeded.tokens.scoped };
    const noJunit = await flowfix(['report', '--repository', 'shop', '--change', 'X'], { cwd: clone, env });
    assert.equal(noJunit.code, 2);
    assert.match(noJunit.stderr, /--junit FILE is required/);
    const noToken = await flowfix(['report', '--junit', JUNIT, '--repository', 'shop', '--change', 'X'], { cwd: clone, env: { FLOWFIX_TOKEN: '' } });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /CI token is required/);
    const missing = await flowfix(['report', '--junit', 'nope.xml', '--repository', 'shop', '--change', 'X'], { cwd: clone, env });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read --junit nope\.xml/);
    const notGit = await flowfix(['report', '--junit', JUNIT, '--repository', 'shop', '--change', 'X'], { cwd: os.tmpdir(), env });
    assert.equal(notGit.code, 1);
    assert.match(notGit.stderr, /not a git checkout/);
    const down = await flowfix(['report', '--junit', JUNIT, '--repository', 'shop', '--change', 'X', '--server', 'http://127.0.0.1:9'], { cwd: clone, env });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach the flowfix server at http:\/\/127\.0\.0\.1:9/);
  });
});

describe('flowfix --help', () => {
  for (const args of [['--help'], ['report', '--help'], ['fix', '--help']]) {
    test(`flowfix ${args.join(' ')} prints usage and exits 0`, async () => {
      const res = await flowfix(args, { cwd: work });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /Usage: flowfix/);
    });
  }

  test('an unknown command exits 2 with the command list', async () => {
    const res = await flowfix(['frobnicate'], { cwd: work });
    assert.equal(res.code, 2);
    assert.match(res.stderr, /unknown command "frobnicate"/);
    assert.match(res.stderr, /report\s+report the failing tests/);
  });
});
