import { test, describe, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, networkInterfaces } from 'node:os';
import path from 'node:path';
import { runCommand, buildSandboxEnv, detectNetworkIsolation, sandboxArgv, shellQuote } from '@/agent/exec';

let dir: string;
let env: Record<string, string>;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'flowfix-exec-'));
  env = buildSandboxEnv({ home: dir, tmpDir: dir });
});
after(() => rmSync(dir, { recursive: true, force: true }));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // a killed process whose parent is gone may linger as a zombie until reaped
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe('runCommand', () => {
  test('captures exit code and combined output', async () => {
    const r = await runCommand({ command: 'echo out; echo err >&2; exit 3', cwd: dir, env, timeoutMs: 10_000, network: true });
    assert.equal(r.exitCode, 3);
    assert.equal(r.timedOut, false);
    assert.match(r.output, /out/);
    assert.match(r.output, /err/);
  });

  test('a command that prints its environment shows no secret from the server', async () => {
    const secrets = {
      DATABASE_URL: 'postgresql://u:dbpass-s3cr3t@host/db',
      NEXTAUTH_SECRET: 'nextauth-s3cr3t-value-123',
      FLOWFIX_MODEL_API_KEY: 'sk-model-s3cr3t',
      OIDC_CLIENT_SECRET: 'oidc-s3cr3t',
      SOME_OTHER_SERVER_VAR: 'other-s3cr3t',
    };
    const saved = { ...process.env };
    Object.assign(process.env, secrets);
    try {
      const sandboxEnv = buildSandboxEnv({
        home: dir,
        tmpDir: dir,
        // a repository setting may add variables, but never secret-looking ones
        extra: { DATABASE_URL: 'x', MY_TOKEN: 'y', FEATURE_FLAG: 'on' },
      });
      const r = await runCommand({ command: 'env', cwd: dir, env: sandboxEnv, timeoutMs: 10_000, network: true });
      assert.equal(r.exitCode, 0);
      for (const value of Object.values(secrets)) assert.ok(!r.output.includes(value), `leaked ${value}`);
      assert.doesNotMatch(r.output, /DATABASE_URL|NEXTAUTH|FLOWFIX_|OIDC|MY_TOKEN/);
      assert.match(r.output, /^FEATURE_FLAG=on$/m);
      assert.match(r.output, new RegExp(`^HOME=${dir}$`, 'm'));
      assert.match(r.output, /^CI=1$/m);
    } finally {
      for (const k of Object.keys(secrets)) if (!(k in saved)) delete process.env[k];
    }
  });

  test('a hanging command is killed on timeout together with the child it spawned', async () => {
    const pidFile = path.join(dir, 'grandchild.pid');
    const script = `const c=require('child_process').spawn('sleep',['1000'],{stdio:'ignore'});require('fs').writeFileSync(${JSON.stringify(pidFile)},String(c.pid));setInterval(()=>{},1000)`;
    const r = await runCommand({ command: `node -e ${shellQuote(script)}`, cwd: dir, env, timeoutMs: 1500, network: true });
    assert.equal(r.timedOut, true);
    assert.match(r.output, /time limit/);
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(grandchild > 0);
    // give the kernel a moment to deliver SIGKILL
    for (let i = 0; i < 50 && isAlive(grandchild); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(isAlive(grandchild), false, `grandchild ${grandchild} survived`);
  });

  test('a background process left behind by a finished command is killed too', async () => {
    const pidFile = path.join(dir, 'bg.pid');
    const r = await runCommand({ command: `sleep 1000 & echo $! > ${pidFile}; echo done`, cwd: dir, env, timeoutMs: 10_000, network: true });
    assert.equal(r.exitCode, 0);
    assert.equal(r.timedOut, false);
    const bg = Number(readFileSync(pidFile, 'utf8'));
    for (let i = 0; i < 50 && isAlive(bg); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(isAlive(bg), false);
  });

  test('a command waits at its gate: if its worker dies before opening it, the command never runs', async () => {
    const { spawn } = await import('node:child_process');
    for (const network of [true, false]) {
      const marker = path.join(dir, `ran-${network}`);
      const { file, args } = sandboxArgv(`echo ran > ${marker}; echo stdin=$(cat | wc -c)`, network);
      const run = (gate: string | null) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const child = spawn(file, args, { cwd: dir, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'ignore'] });
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.on('close', (code) => resolve({ code, out }));
          // the worker "dies" before writing the gate line: its end of the pipe closes
          if (gate === null) child.stdin.end();
          else child.stdin.end(gate);
        });
      const shut = await run(null);
      assert.equal(shut.code, 125, `network=${network}`);
      assert.equal(existsSync(marker), false, `network=${network}: the command ran without its gate`);
      // opened: it runs, and whatever followed the gate line never reaches it
      const open = await run('\nsecret input after the gate\n');
      assert.equal(open.code, 0);
      assert.equal(readFileSync(marker, 'utf8'), 'ran\n');
      assert.match(open.out, /stdin=0/);
    }
  });

  /**
   * Starts a "worker" process that runs a hanging command (with a child of its
   * own) under a long time limit; returns the worker and the command's pids.
   */
  async function startWorkerWithHangingCommand(t: TestContext, name: string) {
    const { spawn } = await import('node:child_process');
    const pidFile = path.join(dir, `${name}.pid`);
    const root = path.resolve(import.meta.dirname, '../../..');
    const worker = `
      const { runCommand, buildSandboxEnv } = await import('./agent/exec.ts');
      const env = buildSandboxEnv({ home: ${JSON.stringify(dir)}, tmpDir: ${JSON.stringify(dir)} });
      runCommand({ command: 'sleep 1000 & echo $! > ${pidFile}; echo started; sleep 1000', cwd: ${JSON.stringify(dir)}, env, timeoutMs: 3_600_000, network: true });
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', worker], { cwd: root, stdio: 'ignore' });
    let pids: number[] = [];
    // whatever the test's outcome, nothing it started is left running
    t.after(() => {
      child.kill('SIGKILL');
      // the command's shell leads its process group
      if (pids.length === 2) {
        try {
          process.kill(-pids[1], 'SIGKILL');
        } catch {
          // gone already
        }
      }
    });
    for (let i = 0; i < 400 && pids.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        const bg = Number(readFileSync(pidFile, 'utf8'));
        // the command's shell is the background sleep's parent
        const shell = parentOf(bg);
        if (bg > 0 && shell > 0) pids = [bg, shell];
      } catch {
        // not written yet
      }
    }
    assert.equal(pids.length, 2, 'the command started');
    assert.ok(pids.every(isAlive));
    return { child, pids };
  }

  function parentOf(pid: number): number {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1]);
  }

  async function waitForDeath(pids: number[]): Promise<number[]> {
    for (let i = 0; i < 100 && pids.some(isAlive); i++) await new Promise((r) => setTimeout(r, 50));
    return pids.filter(isAlive);
  }

  test('a worker killed with SIGKILL takes its running commands, and their children, with it', async (t) => {
    const { child, pids } = await startWorkerWithHangingCommand(t, 'orphan');
    child.kill('SIGKILL');
    assert.deepEqual(await waitForDeath(pids), [], 'the command outlived its worker');
  });

  test('a watchdog that dies is replaced and told every live command again', async (t) => {
    const { child, pids } = await startWorkerWithHangingCommand(t, 'rewatched');
    const watchdogOf = () =>
      readdirSync('/proc')
        .filter((e) => /^\d+$/.test(e))
        .map(Number)
        .find((p) => {
          try {
            return parentOf(p) === child.pid && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('while read -r op id');
          } catch {
            return false;
          }
        });
    const first = watchdogOf();
    assert.ok(first, 'the worker has a watchdog');
    process.kill(first, 'SIGKILL');
    let second: number | undefined;
    for (let i = 0; i < 100 && (second === undefined || second === first); i++) {
      await new Promise((r) => setTimeout(r, 50));
      second = watchdogOf();
    }
    assert.ok(second && second !== first, 'a new watchdog took over');
    assert.ok(pids.every(isAlive), 'replacing the watchdog kills nothing');
    child.kill('SIGKILL');
    assert.deepEqual(await waitForDeath(pids), [], 'the command outlived its worker and its first watchdog');
  });

  test('an abort signal kills the command', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const r = await runCommand({ command: 'sleep 30', cwd: dir, env, timeoutMs: 60_000, network: true, signal: controller.signal });
    assert.ok(Date.now() - started < 10_000);
    assert.notEqual(r.exitCode, 0);
    assert.match(r.output, /cancelled/);
  });

  test('output is capped, keeping head and tail with a marker', async () => {
    const r = await runCommand({
      command: `node -e "console.log('FIRST'); for (let i=0;i<20000;i++) console.log('line '+i); console.log('LAST')"`,
      cwd: dir,
      env,
      timeoutMs: 10_000,
      network: true,
      maxOutputBytes: 4096,
    });
    assert.ok(r.truncatedBytes > 100_000);
    assert.match(r.output, /^FIRST/);
    assert.match(r.output, /LAST\n$/);
    assert.match(r.output, /bytes of output elided/);
    assert.ok(r.output.length < 4096 + 200);
  });

  test('a command that cannot start reports it instead of throwing', async () => {
    const r = await runCommand({ command: 'true', cwd: path.join(dir, 'missing-dir'), env, timeoutMs: 5000, network: true });
    assert.equal(r.exitCode, null);
    assert.match(r.output, /could not start/);
  });

  test('network off: the command sees only the loopback interface, and loopback works', async () => {
    assert.ok(detectNetworkIsolation() !== null, 'this machine should support network isolation');
    const hostInterfaces = Object.keys(networkInterfaces());
    assert.ok(hostInterfaces.some((n) => n !== 'lo'), 'host has a non-loopback interface');
    const script =
      "const net=require('net');console.log(JSON.stringify(Object.keys(require('os').networkInterfaces())));" +
      "const s=net.createServer(c=>c.end('pong')).listen(0,'127.0.0.1',()=>{net.connect(s.address().port,'127.0.0.1').on('data',d=>{console.log(String(d));s.close();process.exit(0)})})";
    const off = await runCommand({ command: `node -e ${shellQuote(script)}`, cwd: dir, env, timeoutMs: 10_000, network: false });
    assert.equal(off.exitCode, 0, off.output);
    assert.deepEqual(JSON.parse(off.output.split('\n')[0]), ['lo']);
    assert.match(off.output, /pong/);
    const on = await runCommand({ command: `node -e ${shellQuote(script)}`, cwd: dir, env, timeoutMs: 10_000, network: true });
    assert.ok(JSON.parse(on.output.split('\n')[0]).length > 1);
  });
});

