import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runRepair } from '@/agent/pipeline';
import { ArraySink } from '@/agent/report/sinks';
import { runTests, runWorkspaceCommand } from '@/agent/testing/test-runner';
import type { Policy } from '@/agent/types';
import { Workspace } from '@/agent/workspace/workspace';
import { RepositorySettingsSchema, type RepositorySettings } from '@/common/settings';
import { pidsOf } from '../../helpers/processes';

// The hostile repository (test/fixtures/hostile-repo) against the real
// sandbox: its commands run through agent/testing/test-runner.ts and agent/workspace/exec.ts as
// a run's would, while a server-like setup exists beside the workspace: a
// server folder with an auth secret, .data/ and .next/, a TCP listener on
// 127.0.0.1 standing in for the server's port, PostgreSQL's port, and another
// run's workspace. Every attempt must have run (its marker) and failed.

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/hostile-repo');
const SECRET = 'nextauth-secret-from-the-hostile-test-0123456789';
const OTHER_PRIVATE = 'another run: private content';

let root: string;
let serverDir: string;
let otherRun: string;
let repoDir: string;
let head: string;
let listener: Server;
let listenerConnections = 0;
let ws: Workspace;
let settings: RepositorySettings;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' } as unknown as NodeJS.ProcessEnv,
  }).trim();
}

/** Runs one attack as a command of the run; returns the command's result and the attack's report. */
async function attack(name: string, opts: { network?: boolean; install?: boolean } = {}) {
  const result = await runWorkspaceCommand({
    workspace: ws,
    settings,
    command: `node attacks.mjs ${name}`,
    timeoutSeconds: 30,
    network: opts.network ?? false,
    ...(opts.install ? { install: true } : {}),
  });
  const ran = existsSync(path.join(ws.root, 'markers', `${name}.ran`));
  const reportFile = path.join(ws.root, 'markers', `${name}.json`);
  const report = existsSync(reportFile)
    ? (JSON.parse(readFileSync(reportFile, 'utf8')) as Record<string, { ok: boolean; error?: string; value?: string }>)
    : null;
  return { result, ran, report };
}

function assertAllFailed(report: Record<string, { ok: boolean; error?: string; value?: string }> | null, names: string[]) {
  assert.ok(report, 'the attack wrote its report');
  for (const key of names) {
    assert.ok(key in report, `attempt ${key} ran`);
    assert.equal(report[key].ok, false, `attempt ${key} succeeded: ${report[key].value}`);
  }
}

before(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'flowfix-hostile-'));
  // the server: its secret, its database folder, its build folder
  serverDir = path.join(root, 'server');
  mkdirSync(path.join(serverDir, '.data', 'pglite'), { recursive: true });
  mkdirSync(path.join(serverDir, '.next'), { recursive: true });
  writeFileSync(path.join(serverDir, '.env'), `NEXTAUTH_SECRET=${SECRET}\n`);
  writeFileSync(path.join(serverDir, '.data', 'pglite', 'PG_VERSION'), '16\n');
  // another run's workspace, where runs live (the OS temp folder)
  otherRun = mkdtempSync(path.join(tmpdir(), 'flowfix-run-'));
  mkdirSync(path.join(otherRun, 'repo'));
  writeFileSync(path.join(otherRun, 'repo', 'private.txt'), OTHER_PRIVATE);
  // the server's port
  listener = createServer((c) => {
    listenerConnections++;
    c.end('server');
  }).listen(0, '127.0.0.1');
  await new Promise((r) => listener.once('listening', r));
  // the repository
  repoDir = path.join(root, 'hostile-repo');
  cpSync(FIXTURE, repoDir, { recursive: true });
  git(repoDir, 'init', '-q', '-b', 'main');
  git(repoDir, 'add', '.');
  git(repoDir, '-c', 'user.email=h@example.com', '-c', 'user.name=H', 'commit', '-q', '-m', 'hostile');
  head = git(repoDir, 'rev-parse', 'HEAD');
  settings = RepositorySettingsSchema.parse({
    language: 'javascript',
    test: 'node attacks.mjs files',
    junitReport: 'junit.xml',
    env: {
      SERVER_DIR: serverDir,
      OTHER_RUN: otherRun,
      SERVER_PORT: String((listener.address() as { port: number }).port),
      PG_PORT: '5432',
    },
    // small limits keep the disk, file and memory attempts short
    limits: { processes: 64, diskMb: 40, fileSizeMb: 8, memoryMb: 512, cpuSeconds: 2 },
    registries: ['registry.npmjs.org'],
  });
  ws = await Workspace.create({ source: repoDir, headRev: head, cacheDir: path.join(root, 'cache') });
});

after(async () => {
  await ws?.dispose();
  listener?.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(otherRun, { recursive: true, force: true });
});

describe('a hostile repository in the sandbox', () => {
  test('runs as an unprivileged user of its own, without the server secrets in its environment', async () => {
    const { result, ran, report } = await attack('identity');
    assert.equal(result.exitCode, 0, result.output);
    assert.ok(ran);
    const r = report as unknown as { uid: number; gid: number; groups: number[]; secretInEnv: string | null };
    assert.notEqual(r.uid, 0);
    assert.notEqual(r.gid, 0);
    assert.ok(!r.groups.includes(0));
    assert.equal(r.uid, ws.identity.uid);
    assert.equal(r.secretInEnv, null);
  });

  test('cannot read the secret or .data/, write .next/, see other runs, /root or the host, or escape by symlinks and ..', async () => {
    const { result, ran, report } = await attack('files');
    assert.equal(result.exitCode, 0, result.output);
    assert.ok(ran);
    assertAllFailed(report, [
      'readSecret',
      'listData',
      'writeNext',
      'listOtherRun',
      'readOtherRun',
      'listRoot',
      'writeUsr',
      'writeGitHook',
      'dotdot',
      'symlink',
      'hostProcesses',
    ]);
    // the run folder's parent holds this run only
    assert.equal(report!.listRunParent.ok, true);
    assert.doesNotMatch(report!.listRunParent.value ?? '', new RegExp(path.basename(otherRun)));
    assert.ok(!result.output.includes(SECRET));
  });

  test('a test report linked to the server secret is not read by the server', async () => {
    const run = await runTests({ workspace: ws, settings, kind: 'target', targets: [{ id: 'x::y' }] });
    assert.ok(existsSync(path.join(ws.root, 'markers', 'files.ran')));
    assert.match(run.reportError ?? '', /leaves the workspace/);
    assert.ok(!JSON.stringify(run).includes(SECRET), 'the secret reached the run');
  });

  test('reaches neither the server port nor PostgreSQL, directly or through the egress proxy', async () => {
    for (const opts of [{ network: false }, { network: true, install: true }]) {
      const { result, ran, report } = await attack('network', opts);
      assert.equal(result.exitCode, 0, result.output);
      assert.ok(ran);
      assertAllFailed(report, ['serverPort', 'postgres', 'proxyToServer', 'proxyToPostgres', 'proxyToOtherHost']);
      if (opts.network) {
        // the proxy was there and said no
        assert.match(report!.proxyToServer.error ?? '', /403/);
        assert.match(report!.proxyToOtherHost.error ?? '', /403.*/);
      }
    }
    assert.equal(listenerConnections, 0, 'the server port saw a connection');
  });

  test('a fork bomb ends with process_limit', async () => {
    const { result, ran } = await attack('fork-bomb');
    assert.ok(ran);
    assert.equal(result.limit, 'process_limit', result.output.slice(-500));
    assert.match(result.output, /stopped by the sandbox: process_limit/);
  });

  test('filling the disk ends with disk_limit, and the files are the workspace’s only', async () => {
    const { result, ran } = await attack('fill-disk');
    assert.ok(ran);
    assert.equal(result.limit, 'disk_limit', result.output.slice(-500));
    await ws.reset();
  });

  test('a 10 GB file ends with file_size_limit', async () => {
    const { result, ran, report } = await attack('big-file');
    assert.ok(ran);
    assert.equal(report, null, 'it wrote 10 GB');
    assert.equal(result.limit, 'file_size_limit', result.output.slice(-500));
    await ws.reset();
  });

  test('a memory hog ends with memory_limit, a busy loop with cpu_limit', async () => {
    const memory = await attack('memory');
    assert.ok(memory.ran);
    assert.equal(memory.result.limit, 'memory_limit', memory.result.output.slice(-500));
    const cpu = await attack('cpu');
    assert.ok(cpu.ran);
    assert.equal(cpu.result.limit, 'cpu_limit', cpu.result.output.slice(-500));
  });

  test('a daemon, even in a session of its own, does not survive its command', async () => {
    const { result, ran, report } = await attack('daemon');
    assert.equal(result.exitCode, 0, result.output);
    assert.ok(ran && report);
    for (let i = 0; i < 50 && pidsOf('sleep', '1000.77').length + pidsOf('sleep', '1000.78').length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual([...pidsOf('sleep', '1000.77'), ...pidsOf('sleep', '1000.78')], []);
  });

  test('install scripts are off unless the admin allows them; the dependency cache is writable only during the install', async () => {
    const install = (allowInstallScripts: boolean) =>
      runWorkspaceCommand({
        workspace: ws,
        settings: { ...settings, allowInstallScripts },
        command: 'npm install --no-audit --no-fund --offline && touch "$npm_config_cache/written-by-install"',
        timeoutSeconds: 120,
        network: true,
        install: true,
      });
    const marker = path.join(ws.root, 'markers', 'install-script.ran');
    const off = await install(false);
    assert.equal(off.exitCode, 0, off.output);
    assert.equal(existsSync(marker), false, 'the postinstall script ran');
    assert.ok(existsSync(path.join(root, 'cache', 'npm', 'written-by-install')));
    const test = await runWorkspaceCommand({
      workspace: ws,
      settings,
      command: 'touch "$npm_config_cache/written-by-test"',
      timeoutSeconds: 30,
      network: false,
    });
    assert.notEqual(test.exitCode, 0);
    assert.match(test.output, /Read-only file system/);
    const on = await install(true);
    assert.equal(on.exitCode, 0, on.output);
    assert.equal(existsSync(marker), true, 'an allowed postinstall script runs');
  });

  test('an install that fills the disk ends the run with the named reason', async () => {
    const sink = new ArraySink();
    const never: Policy = {
      name: 'offline',
      async run() {
        throw new Error('the policy must not run');
      },
    };
    const result = await runRepair({
      repoPath: repoDir,
      baseRev: head,
      headRev: head,
      targetTests: ['x::y'],
      settings: { ...settings, install: 'node attacks.mjs fill-disk' },
      policy: never,
      sink,
    });
    assert.equal(result.exitReason, 'setup_failed');
    assert.match(result.exitDetail ?? '', /install stopped by the sandbox \(disk_limit\)/);
  });

  test('the host is unharmed', () => {
    assert.equal(readFileSync(path.join(serverDir, '.env'), 'utf8'), `NEXTAUTH_SECRET=${SECRET}\n`);
    assert.deepEqual(readdirSync(path.join(serverDir, '.next')), []);
    assert.deepEqual(readdirSync(path.join(serverDir, '.data')), ['pglite']);
    assert.equal(readFileSync(path.join(otherRun, 'repo', 'private.txt'), 'utf8'), OTHER_PRIVATE);
    assert.ok(!existsSync(path.join(ws.root, '.git', 'hooks', 'post-checkout')));
    assert.ok(!existsSync('/usr/bin/pwned'));
    assert.ok(!existsSync('/tmp/pwned'));
  });
});
