// `npm run demo`: migrate the embedded database, build the demo repositories,
// seed, build the app if needed, serve it, and report the demo changes'
// failures through the real ingestion API the way CI would.
//
//   npm run demo                      everything, then serve until Ctrl-C
//   npm run demo -- --no-serve        migrate, build the repositories and seed only
//   npm run demo -- --port 3001       serve on another port
//   npm run demo -- --host 0.0.0.0    listen on every interface (default: loopback only)
//   npm run demo -- --reset           wipe the data folder first
//   npm run demo -- --dev             serve with `next dev` (no build; pages compile on first visit)
//
// The PGlite folder has one owner at a time: this script opens it to migrate
// and seed, closes it, and only then starts the server (which owns it from
// then on); the failure reports go through HTTP.

import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { getEnv } from '../lib/env';
import { openDb, resolveDbTarget } from '../lib/db';
import { applyMigrations } from './db/migrate';
import { buildDemoRepos, type BuiltRepo } from '../demo/build-repos';
import { seedDemo, seedRepositoriesFrom } from '../demo/seed';
import { reportDemoFailures, type ReportOutcome } from '../demo/report';
import { DEMO_USERS } from '../demo/users';
import { persistedSecret, readSecretFile, writeSecretFile } from '../lib/auth/secret-file';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// what `next build` compiles: when any of it is newer than .next/BUILD_ID, rebuild
const BUILD_INPUTS = [
  'app',
  'components',
  'common',
  'lib',
  'agent',
  'demo',
  'public',
  'proxy.ts',
  'instrumentation.ts',
  'next.config.ts',
  'package.json',
  'tsconfig.json',
];
const HEALTH_TIMEOUT_MS = 180_000;

function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(1);
}

interface Options {
  serve: boolean;
  port: number;
  host: string;
  reset: boolean;
  dev: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      'no-serve': { type: 'boolean', default: false },
      port: { type: 'string', default: '3000' },
      // the demo's users and passwords are printed on its sign-in page: it
      // listens on loopback unless told otherwise
      host: { type: 'string', default: '127.0.0.1' },
      reset: { type: 'boolean', default: false },
      // looking at pages while changing them: no `next build` per change
      dev: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    out('usage: npm run demo -- [--no-serve] [--port N] [--host ADDRESS] [--reset] [--dev]');
    out('  --no-serve  migrate, build the demo repositories and seed, then exit');
    out('  --port N    serve on port N (default 3000)');
    out('  --host A    listen on address A (default 127.0.0.1; 0.0.0.0 for every interface)');
    out('  --reset     delete the data folder (FLOWFIX_DATA_DIR, default .data) first');
    out('  --dev       serve with next dev instead of building (slower pages, no build)');
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`--port must be a port number, got ${values.port}`);
  const host = values.host.trim();
  if (!/^[\w.:-]+$/.test(host)) fail(`--host must be an address or a host name, got ${values.host}`);
  return { serve: !values['no-serve'], port, host, reset: values.reset, dev: values.dev };
}

function resetDataDir(dataDir: string): void {
  // refuse anything that is not clearly a data folder inside or beside the project
  if (dataDir === path.parse(dataDir).root || dataDir === ROOT || ROOT.startsWith(dataDir + path.sep)) {
    fail(`refusing to delete ${dataDir}`);
  }
  out(`• deleting ${dataDir}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

function newestMtime(target: string): number {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry.name)));
  }
  return newest;
}

function buildIsCurrent(): boolean {
  // the folder next.config.ts builds into (NEXT_DIST_DIR lets builds sit side by side)
  const buildId = path.join(ROOT, process.env.NEXT_DIST_DIR ?? '.next', 'BUILD_ID');
  if (!fs.existsSync(buildId)) return false;
  const built = fs.statSync(buildId).mtimeMs;
  return BUILD_INPUTS.every((input) => newestMtime(path.join(ROOT, input)) <= built);
}

function runInherited(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function migrateAndSeed({ repos, tokenFile }: { repos: BuiltRepo[]; tokenFile: string }): Promise<string> {
  const env = getEnv();
  const handle = openDb(resolveDbTarget(env.DATABASE_URL, env.FLOWFIX_DATA_DIR));
  try {
    const { applied } = await applyMigrations({ handle, dir: path.join(ROOT, 'prisma', 'migrations') });
    out(`• database (${handle.target.kind}): ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`);
    const knownCiToken = readSecretFile(tokenFile);
    const seeded = await seedDemo({ db: handle.db, repositories: seedRepositoriesFrom(repos), knownCiToken });
    out(
      `• seeded ${seeded.users.length} demo users, ${seeded.repositories.length} repositories, ` +
        `${seeded.history.changes} history changes${seeded.history.created ? ' (new)' : ''}, ` +
        `a grading queue of ${seeded.grading.items} fixes${seeded.grading.created ? ' (new)' : ''}`,
    );
    if (seeded.ciTokenReissued) {
      writeSecretFile(tokenFile, seeded.ciToken);
    }
    return seeded.ciToken;
  } finally {
    // the server must be the folder's only owner: close before it starts
    await handle.close();
  }
}

async function waitForServer({ baseUrl, child }: { baseUrl: string; child: ChildProcess }): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error('the server exited before it became ready (see its output above)');
    for (const probe of ['/api/health', '/signin']) {
      try {
        const res = await fetch(new URL(probe, baseUrl), { redirect: 'manual' });
        if (res.ok) return;
        if (res.status !== 404) break;
      } catch {
        // not listening yet
      }
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the server did not answer ${baseUrl}/api/health within ${HEALTH_TIMEOUT_MS / 1000} s`);
}

function describeOutcome(o: ReportOutcome): string {
  const where = `${o.repository} ${o.externalId} (${o.branch})`;
  if (o.status === undefined) return `  – ${where}: ${o.note}`;
  const runs = o.runs > 1 ? `, failed on run ${o.runs}` : '';
  const verdict = o.status === 201 ? 'reported' : o.status === 200 ? 'already reported' : `HTTP ${o.status} ${JSON.stringify(o.response)}`;
  return `  ${o.status < 300 ? '✓' : '✗'} ${where}: ${o.failingTests.length} failing test(s)${runs}, ${verdict}`;
}

function printUsers(baseUrl: string): void {
  out();
  out(`flowfix demo is running at ${baseUrl}`);
  out('sign in as:');
  for (const u of DEMO_USERS) out(`  ${u.role.padEnd(9)} ${u.email.padEnd(24)} password: ${u.password}`);
  out('Ctrl-C to stop.');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const env = getEnv();
  const dataDir = path.resolve(env.FLOWFIX_DATA_DIR);
  if (options.reset) resetDataDir(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  // written once everything is in place; e2e/global-setup.ts waits for it
  const readyMarker = path.join(dataDir, 'demo-ready.json');
  fs.rmSync(readyMarker, { force: true });

  const authSecret =
    env.NEXTAUTH_SECRET ?? persistedSecret({ file: path.join(dataDir, 'auth-secret'), create: () => crypto.randomBytes(32).toString('base64url') });

  const repos = await buildDemoRepos({ dataDir });
  for (const repo of repos) {
    out(`• repository ${repo.spec.name}: ${repo.dir} (${repo.rebuilt ? 'built' : 'up to date'}, ${repo.changes.length} changes)`);
  }
  const token = await migrateAndSeed({ repos, tokenFile: path.join(dataDir, 'demo-ci-token') });

  if (!options.serve) {
    out('• --no-serve: not starting the server');
    return;
  }

  // loopback is shown as localhost; the script itself talks to the address it listens on
  const everywhere = options.host === '0.0.0.0' || options.host === '::';
  const urlHost = everywhere ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host;
  const baseUrl = `http://${everywhere || urlHost === '127.0.0.1' ? 'localhost' : urlHost}:${options.port}`;
  const ownUrl = `http://${urlHost}:${options.port}`;
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: options.dev ? 'development' : 'production',
    // Next's telemetry would try to reach the internet on every start
    NEXT_TELEMETRY_DISABLED: '1',
    FLOWFIX_DEMO: '1',
    FLOWFIX_DATA_DIR: dataDir,
    NEXTAUTH_SECRET: authSecret,
    // a configured public URL wins (the e2e suite browses 127.0.0.1): it is
    // the only origin the server accepts state-changing cookie requests from
    NEXTAUTH_URL: env.NEXTAUTH_URL ?? baseUrl,
  };
  const nextBin = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');

  if (options.dev) {
    out('• --dev: serving with next dev (no build)');
  } else if (buildIsCurrent()) {
    out('• app build is up to date');
  } else {
    out('• building the app (next build)…');
    const code = await runInherited(process.execPath, [nextBin, 'build'], serverEnv);
    if (code !== 0) fail(`next build failed with exit code ${code}`);
  }

  out(`• starting the server on ${baseUrl}`);
  // node runs next directly (not through npx) so our signals reach the server itself
  const child = spawn(process.execPath, [nextBin, options.dev ? 'dev' : 'start', '-p', String(options.port), '-H', options.host], {
    cwd: ROOT,
    env: serverEnv,
    stdio: 'inherit',
  });
  let stopping = false;
  const forward = (signal: NodeJS.Signals) => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => forward('SIGINT'));
  process.on('SIGTERM', () => forward('SIGTERM'));
  child.on('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`demo: the server stopped (${signal ?? `exit code ${code}`})\n`);
    process.exit(stopping ? 0 : (code ?? 1));
  });

  try {
    await waitForServer({ baseUrl: ownUrl, child });
  } catch (error) {
    forward('SIGTERM');
    throw error;
  }
  out('• reporting the demo changes as CI would (real test runs, POST /api/v1/failures)');
  try {
    const outcomes = await reportDemoFailures({ repos, baseUrl: ownUrl, token, onProgress: (o) => out(describeOutcome(o)) });
    const refused = outcomes.filter((o) => o.status !== undefined && o.status >= 300);
    if (refused.length > 0) process.stderr.write(`demo: ${refused.length} report(s) were refused (see above)\n`);
    fs.writeFileSync(readyMarker, JSON.stringify({ baseUrl, reported: outcomes.length, refused: refused.length }));
  } catch (error) {
    // the dashboard is still worth serving without the fresh reports
    process.stderr.write(`demo: reporting failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  printUsers(baseUrl);
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
