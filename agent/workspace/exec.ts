import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { readInheritedEnv, SECRET_ENV_NAMES } from '../../lib/env';
import {
  describeLimit,
  EGRESS_PRELUDE,
  egressEnv,
  limitFromExit,
  newSandboxIdentity,
  resolveLimits,
  sandboxedArgv,
  sandboxRefusal,
  startEgressProxy,
  watchLimits,
  type EgressProxy,
  type LimitReason,
  type SandboxIdentity,
  type SandboxLimits,
} from '../../lib/sandbox';
import type { CommandResult } from '../types';

// Runs the repository's own commands (install, build, tests). Those commands
// are untrusted code, so each one:
//  - runs in the sandbox (lib/sandbox): its own mount, PID, network, IPC and
//    UTS namespaces, as an unprivileged uid of its own when the server runs
//    as root (else as the server's uid inside a user namespace), writing only
//    its workspace (and, while installing, its dependency cache), reading the
//    toolchains and flowfix's own node_modules, with resource limits that end
//    it with a named reason (`disk_limit`, …); without a working sandbox it
//    runs only in the admin's unsafe mode, in a plain shell;
//  - runs in its own process group, and the whole group is killed on timeout,
//    on abort and after the command ends (a test that forks a server and
//    forgets it must not outlive the run); the PID namespace makes sure:
//    when the command ends, everything it started ends with it;
//  - sees an environment built from an allow-list, never the server's;
//  - has no network; with `network` on, only an egress proxy outside the
//    sandbox, which never connects to loopback or private addresses;
//  - has its output capped, keeping the head and the tail where the error is.

/** Inherited from the server environment; nothing else is. */
const INHERITED_ENV = [
  'PATH',
  'LANG',
  'LC_ALL',
  'TZ',
  // pyenv's shims need to find their root when HOME is a temp folder
  'PYENV_ROOT',
  'PYENV_VERSION',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
] as const;

const KILL_GRACE_MS = 1500;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** The names a repository's `env` setting may never set. */
export function isForbiddenEnvName(name: string): boolean {
  return (
    (SECRET_ENV_NAMES as readonly string[]).includes(name) ||
    /^(FLOWFIX_|NEXTAUTH_|OIDC_|DATABASE_|PG)/.test(name) ||
    /(SECRET|PASSWORD|TOKEN|API_KEY|PRIVATE_KEY)/i.test(name) ||
    name === 'HOME' ||
    name === 'TMPDIR'
  );
}

/** The whole environment a sandboxed command sees. */
export function buildSandboxEnv(input: { home: string; tmpDir: string; extra?: Record<string, string> }): Record<string, string> {
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    ...readInheritedEnv(INHERITED_ENV),
    CI: '1',
    TERM: 'dumb',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    // keep __pycache__ out of the workspace and out of the fix's diff
    PYTHONDONTWRITEBYTECODE: '1',
    npm_config_update_notifier: 'false',
    // the workspace's .git belongs to the server (read-only in the sandbox);
    // git in a test must still be able to read it
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'safe.directory',
    GIT_CONFIG_VALUE_0: '*',
  };
  for (const [name, value] of Object.entries(input.extra ?? {})) {
    if (!isForbiddenEnvName(name)) env[name] = value;
  }
  env.HOME = input.home;
  env.TMPDIR = input.tmpDir;
  return env;
}

export interface ExecOptions {
  /** a shell command line (run by /bin/sh -c) */
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** true → the egress proxy (public hosts, or only `sandbox.egressHosts`); false → no network at all */
  network: boolean;
  sandbox: CommandSandbox;
  maxOutputBytes?: number;
}

/** What a command's sandbox shows it, and its limits (lib/sandbox). */
export interface CommandSandbox {
  /** folders it may write (they must belong to `identity`: lib/sandbox/identity.ts handOver) */
  writable: string[];
  /** folders it may read, beyond the toolchains */
  readOnly?: string[];
  /** the uid/gid it runs as (root: the workspace's own; default: a fresh one) */
  identity?: SandboxIdentity;
  limits?: Partial<SandboxLimits>;
  /** with `network`: the only hosts ("host" or "host:port") the egress proxy connects to */
  egressHosts?: string[];
}

/** Keeps the first and last halves of a stream, counting what falls between. */
class CappedOutput {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  dropped = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const headLimit = Math.floor(this.max / 2);
    if (this.headBytes < headLimit) {
      const take = Math.min(headLimit - this.headBytes, chunk.length);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    const tailLimit = this.max - headLimit;
    while (this.tailBytes > tailLimit) {
      const first = this.tail[0];
      const excess = this.tailBytes - tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.dropped += excess;
      }
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (this.dropped === 0) return head + tail;
    return `${head}\n… [${this.dropped} bytes of output elided] …\n${tail}`;
  }
}

// Every command waits at a gate: it reads one line on stdin before it runs,
// and this process writes that line only after the watchdog (below) has the
// command's group on its list. A worker killed in between closes the pipe,
// the read fails, and the command never runs unwatched. Then stdin is
// /dev/null again, as a test expects. `exec` keeps the process-group
// leader's pid throughout.
const GATE = 'IFS= read -r _ || exit 125; exec </dev/null;';

/**
 * The argv that runs `command` behind the gate, in the sandbox (or, in the
 * unsafe mode on a machine without one, in a plain shell).
 */
export function sandboxArgv(
  command: string,
  opts: { cwd: string; sandbox: CommandSandbox; identity: SandboxIdentity; limits: SandboxLimits; egressSocket?: string },
): { file: string; args: string[] } {
  // with the network, the relay to the egress proxy becomes the command's parent
  const run = opts.egressSocket ? `${EGRESS_PRELUDE} /bin/sh -c "$1"` : 'exec /bin/sh -c "$1"';
  const inner = ['/bin/sh', '-c', `${GATE} ${run}`, 'flowfix-sandbox', command];
  return sandboxedArgv(inner, {
    writable: opts.sandbox.writable,
    readOnly: opts.sandbox.readOnly ?? [],
    cwd: opts.cwd,
    identity: opts.identity,
    limits: opts.limits,
    ...(opts.egressSocket ? { egressSocket: opts.egressSocket } : {}),
    // runSpawned starts it detached: a session of its own, no terminal, and
    // a group that killGroup reaches whatever bubblewrap is doing
    newSession: false,
  });
}

/** Signals a whole process group (a child spawned detached leads its own); a group already gone is no error. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

// The groups above are killed by this process; if it is killed itself
// (SIGKILL, OOM) no timer of ours will ever fire. One watchdog per process
// holds the list of live groups on its stdin; when that pipe closes — we
// exited, however we died — it kills every group still on the list. It is a
// POSIX shell loop: no polling, no dependency, its own process group.
const WATCHDOG = `
live=" "
while read -r op id; do
  case "$op" in
    add) live="$live$id " ;;
    del) case "$live" in *" $id "*) live="\${live%%" $id "*} \${live#*" $id "}" ;; esac ;;
  esac
done
for id in $live; do kill -s KILL -- "-$id" 2>/dev/null; done
`;

let watchdog: ChildProcessByStdio<Writable, null, null> | null = null;
/** The groups of this process's commands that are still running. */
const watched = new Set<number>();

function startWatchdog(): void {
  const dog = spawn('/bin/sh', ['-c', WATCHDOG], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv,
  });
  dog.on('error', () => {});
  dog.on('exit', () => {
    if (watchdog !== dog) return;
    watchdog = null;
    // Killed from outside: a new one takes over the whole list at once, so
    // no running command is left unwatched until the next one starts.
    if (watched.size > 0) startWatchdog();
  });
  dog.stdin.on('error', () => {});
  // the watchdog must never keep this process alive
  dog.unref();
  (dog.stdin as unknown as { unref?: () => void }).unref?.();
  watchdog = dog;
  if (watched.size > 0) dog.stdin.write([...watched].map((id) => `add ${id}\n`).join(''));
}

/** Adds a process group to the watchdog's list (killed if this process dies), or takes it off. */
export function watchGroup(op: 'add' | 'del', pgid: number | undefined): void {
  if (pgid === undefined) return;
  if (op === 'add') watched.add(pgid);
  else watched.delete(pgid);
  if (!watchdog) startWatchdog();
  else watchdog.stdin.write(`${op} ${pgid}\n`);
}

function notStarted(opts: ExecOptions, started: number, why: string): CommandResult {
  return {
    command: opts.command,
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: Math.round(performance.now() - started),
    output: `[flowfix] ${why}`,
    truncatedBytes: 0,
  };
}

/** Runs one command in its own process group, sandboxed; never throws for the command's own failure. */
export async function runCommand(opts: ExecOptions): Promise<CommandResult> {
  const started = performance.now();
  const refusal = sandboxRefusal();
  if (refusal) return notStarted(opts, started, `refused to run the command: ${refusal}`);
  try {
    if (!statSync(opts.cwd).isDirectory()) return notStarted(opts, started, `could not start the command: ${opts.cwd} is not a folder`);
  } catch (err) {
    return notStarted(opts, started, `could not start the command: ${(err as Error).message}`);
  }
  const limits = resolveLimits(opts.sandbox.limits);
  const identity = opts.sandbox.identity ?? newSandboxIdentity();
  let egress: EgressProxy | undefined;
  if (opts.network) {
    try {
      egress = await startEgressProxy({ allowHosts: opts.sandbox.egressHosts });
    } catch (err) {
      return notStarted(opts, started, `could not start the egress proxy: ${(err as Error).message}`);
    }
  }
  try {
    return await runSpawned(opts, { started, limits, identity, egress });
  } finally {
    await egress?.close();
  }
}

function runSpawned(
  opts: ExecOptions,
  ctx: { started: number; limits: SandboxLimits; identity: SandboxIdentity; egress: EgressProxy | undefined },
): Promise<CommandResult> {
  const { started, limits, identity, egress } = ctx;
  const output = new CappedOutput(opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const { file, args } = sandboxArgv(opts.command, {
    cwd: opts.cwd,
    sandbox: opts.sandbox,
    identity,
    limits,
    ...(egress ? { egressSocket: egress.socketPath } : {}),
  });
  const env = egress ? { ...opts.env, ...egressEnv() } : opts.env;

  return new Promise<CommandResult>((resolve) => {
    let timedOut = false;
    let aborted = opts.signal?.aborted ?? false;
    let stoppedBy: LimitReason | undefined;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;

    // turbopackIgnore: the file is a system tool (bwrap, sh), not a project file to trace
    const child = spawn(/*turbopackIgnore: true*/ file, args, {
      cwd: opts.cwd,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const pid = child.pid;
    watchGroup('add', pid);
    // open the gate (see GATE); a command that could not start has no reader
    child.stdin?.on('error', () => {});
    child.stdin?.end('\n');

    const terminate = () => {
      killGroup(pid, 'SIGTERM');
      killTimer ??= setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    const limitWatch = watchLimits({
      identity,
      limits,
      dirs: opts.sandbox.writable,
      onLimit: (reason) => {
        stoppedBy ??= reason;
        // a full disk or a fork bomb gets no grace period
        killGroup(pid, 'SIGKILL');
      },
    });

    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, opts.timeoutMs);
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (aborted) terminate();

    child.stdout?.on('data', (c: Buffer) => output.push(c));
    child.stderr?.on('data', (c: Buffer) => output.push(c));

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      limitWatch.stop();
      opts.signal?.removeEventListener('abort', onAbort);
      // Leftovers (servers, watchers) die with the command.
      killGroup(pid, 'SIGKILL');
      watchGroup('del', pid);
      let text = output.text();
      if (spawnError) text += `\n[flowfix] could not start the command: ${spawnError.message}`;
      // a fork bomb that burnt out at its cap, then idled into the time
      // limit, was stopped by the process limit: the runtime's message says so
      const limit: LimitReason | undefined =
        stoppedBy ?? (aborted || spawnError ? undefined : (limitFromExit(exitCode, signal, text) ?? (timedOut ? 'timeout' : undefined)));
      if (timedOut) text += `\n[flowfix] killed after ${opts.timeoutMs} ms (time limit)`;
      else if (aborted) text += '\n[flowfix] killed: the run was cancelled';
      if (limit && limit !== 'timeout') text += `\n[flowfix] stopped by the sandbox: ${describeLimit(limit, limits)}`;
      resolve({
        command: opts.command,
        exitCode,
        signal,
        timedOut,
        durationMs: Math.round(performance.now() - started),
        output: text,
        truncatedBytes: output.dropped,
        ...(limit ? { limit } : {}),
      });
    };

    child.on('error', (err) => finish(null, null, err));
    // 'exit' rather than 'close': a grandchild holding the pipes open must
    // not keep us waiting; the group kill in finish() ends it. A short wait
    // lets the last buffered output arrive first.
    child.on('exit', (code, signal) => {
      const done = () => finish(code, signal);
      if (child.stdout?.readableEnded && child.stderr?.readableEnded) done();
      else {
        const t = setTimeout(done, 200);
        child.on('close', () => {
          clearTimeout(t);
          done();
        });
      }
    });
  });
}

/** Shell-quotes one argument for /bin/sh. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_./:=@%+-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
