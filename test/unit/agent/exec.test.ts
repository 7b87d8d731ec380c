import { test, describe, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, networkInterfaces } from 'node:os';
import path from 'node:path';
import { runCommand, buildSandboxEnv, sandboxArgv, shellQuote, type CommandSandbox } from '@/agent/workspace/exec';
import { handOver, newSandboxIdentity } from '@/lib/sandbox/identity';
import { resolveLimits } from '@/lib/sandbox/limits';
import { startEgressProxy } from '@/lib/sandbox/egress';
import { isAlive, pidsOf } from '../../helpers/processes';

let dir: string;
let env: Record<string, string>;
let sandbox: CommandSandbox;
const identity = newSandboxIdentity();

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'flowfix-exec-'));
  await handOver([dir], identity);
  env = buildSandboxEnv({ home: dir, tmpDir: dir });
  sandbox = { writable: [dir], identity };
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('runCommand', () => {
  test('captures exit code and combined output', async () => {
    const r = await runCommand({ command: 'echo out; echo err >&2; exit 3', cwd: dir, env, timeoutMs: 10_000, network: false, sandbox });
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
      const r = await runCommand({ command: 'env', cwd: dir, env: sandboxEnv, timeoutMs: 10_000, network: false, sandbox });
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
    const script = `const c=require('child_process').spawn('sleep',['1000.3'],{stdio:'ignore'});require('fs').writeFileSync(${JSON.stringify(pidFile)},String(c.pid));setInterval(()=>{},1000)`;
    const running = runCommand({ command: `node -e ${shellQuote(script)}`, cwd: dir, env, timeoutMs: 1500, network: false, sandbox });
    let seen: number[] = [];
    for (let i = 0; i < 100 && seen.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      seen = pidsOf('sleep', '1000.3');
    }
    const r = await running;
    assert.equal(r.timedOut, true);
    assert.equal(r.limit, 'timeout');
    assert.match(r.output, /time limit/);
    assert.ok(Number(readFileSync(pidFile, 'utf8')) > 0);
    assert.equal(seen.length, 1, 'the grandchild ran');
    // give the kernel a moment to deliver SIGKILL
    for (let i = 0; i < 50 && isAlive(seen[0]); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(isAlive(seen[0]), false, `grandchild ${seen[0]} survived`);
  });

  test('a background process left behind by a finished command is killed too', async () => {
    const pidFile = path.join(dir, 'bg.pid');
    const r = await runCommand({ command: `sleep 1000.4 & echo $! > ${pidFile}; echo done`, cwd: dir, env, timeoutMs: 10_000, network: false, sandbox });
    assert.equal(r.exitCode, 0);
    assert.equal(r.timedOut, false);
    assert.ok(Number(readFileSync(pidFile, 'utf8')) > 0, 'the background process started');
    for (let i = 0; i < 50 && pidsOf('sleep', '1000.4').length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(pidsOf('sleep', '1000.4'), []);
  });

  test('a command waits at its gate: if its worker dies before opening it, the command never runs', async () => {
    const { spawn } = await import('node:child_process');
    const egress = await startEgressProxy({});
    after(() => egress.close());
    for (const network of [true, false]) {
      const marker = path.join(dir, `ran-${network}`);
      const { file, args } = sandboxArgv(`echo ran > ${marker}; echo stdin=$(cat | wc -c)`, {
        cwd: dir,
        sandbox,
        identity,
        limits: resolveLimits(),
        ...(network ? { egressSocket: egress.socketPath } : {}),
      });
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
    const root = path.resolve(import.meta.dirname, '../../..');
    // unique argvs: the command's pids inside its PID namespace mean nothing here
    const bgArg = `1000.${name.length}1`;
    const fgArg = `1000.${name.length}2`;
    const worker = `
      const { runCommand, buildSandboxEnv } = await import('./agent/workspace/exec.ts');
      const env = buildSandboxEnv({ home: ${JSON.stringify(dir)}, tmpDir: ${JSON.stringify(dir)} });
      const sandbox = { writable: [${JSON.stringify(dir)}], identity: ${JSON.stringify(identity)} };
      runCommand({ command: 'sleep ${bgArg} & echo started; sleep ${fgArg}', cwd: ${JSON.stringify(dir)}, env, timeoutMs: 3_600_000, network: false, sandbox });
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', worker], { cwd: root, stdio: 'ignore' });
    let pids: number[] = [];
    // whatever the test's outcome, nothing it started is left running
    t.after(() => {
      child.kill('SIGKILL');
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    });
    for (let i = 0; i < 400 && pids.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      pids = [...pidsOf('sleep', bgArg), ...pidsOf('sleep', fgArg)];
    }
    assert.equal(pids.length, 2, 'the command started');
    assert.ok(pids.every(isAlive));
    return { child, pids };
  }

  function parentOf(pid: number): number {
    return Number(
      readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ')[1],
    );
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
    const r = await runCommand({ command: 'sleep 30', cwd: dir, env, timeoutMs: 60_000, network: false, sandbox, signal: controller.signal });
    assert.ok(Date.now() - started < 10_000);
    assert.notEqual(r.exitCode, 0);
    assert.match(r.output, /cancelled/);
  });

  test('an abort in the first milliseconds, while the sandbox is still being set up, leaves nothing running', async () => {
    // a CLI cancelled right after the run's test command started waited for
    // the whole command: the sandbox died, the command it was starting did not
    const survivors: number[] = [];
    for (const delay of [0, 1, 1, 2, 2, 3, 4, 5, 6, 8, 10, 12]) {
      const controller = new AbortController();
      const running = runCommand({ command: 'sleep 1000.5', cwd: dir, env, timeoutMs: 60_000, network: false, sandbox, signal: controller.signal });
      setTimeout(() => controller.abort(), delay);
      const r = await running;
      assert.match(r.output, /cancelled/);
      // the command itself would have started within this time
      await new Promise((done) => setTimeout(done, 300));
      const left = pidsOf('sleep', '1000.5');
      survivors.push(...left);
      for (const pid of left) process.kill(pid, 'SIGKILL');
    }
    assert.deepEqual(survivors, [], 'a cancelled command went on running');
  });

  test('output is capped, keeping head and tail with a marker', async () => {
    const r = await runCommand({
      command: `node -e "console.log('FIRST'); for (let i=0;i<20000;i++) console.log('line '+i); console.log('LAST')"`,
      cwd: dir,
      env,
      timeoutMs: 10_000,
      network: false,
      sandbox,
      maxOutputBytes: 4096,
    });
    assert.ok(r.truncatedBytes > 100_000);
    assert.match(r.output, /^FIRST/);
    assert.match(r.output, /LAST\n$/);
    assert.match(r.output, /bytes of output elided/);
    assert.ok(r.output.length < 4096 + 200);
  });

  test('a command that cannot start reports it instead of throwing', async () => {
    const r = await runCommand({ command: 'true', cwd: path.join(dir, 'missing-dir'), env, timeoutMs: 5000, network: false, sandbox });
    assert.equal(r.exitCode, null);
    assert.match(r.output, /could not start/);
  });

  test("network off: the command sees only its own loopback, which works, and not the host's", async () => {
    const hostInterfaces = Object.keys(networkInterfaces());
    assert.ok(
      hostInterfaces.some((n) => n !== 'lo'),
      'host has a non-loopback interface',
    );
    const { createServer } = await import('node:net');
    const host = createServer((c) => c.end('host-pong')).listen(0, '127.0.0.1');
    await new Promise((r) => host.once('listening', r));
    const hostPort = (host.address() as { port: number }).port;
    try {
      const script =
        "const net=require('net');console.log(JSON.stringify(Object.keys(require('os').networkInterfaces())));" +
        "const s=net.createServer(c=>c.end('pong')).listen(0,'127.0.0.1',()=>{net.connect(s.address().port,'127.0.0.1').on('data',d=>{console.log(String(d));" +
        `net.connect(${hostPort},'127.0.0.1').on('data',d=>{console.log('REACHED '+d);process.exit(0)}).on('error',e=>{console.log('host: '+e.code);process.exit(0)})})})`;
      const off = await runCommand({ command: `node -e ${shellQuote(script)}`, cwd: dir, env, timeoutMs: 10_000, network: false, sandbox });
      assert.equal(off.exitCode, 0, off.output);
      assert.deepEqual(JSON.parse(off.output.split('\n')[0]), ['lo']);
      assert.match(off.output, /pong/);
      assert.match(off.output, /host: ECONNREFUSED/);
      assert.doesNotMatch(off.output, /REACHED/);
    } finally {
      host.close();
    }
  });
});
