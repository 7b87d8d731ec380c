import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { newSandboxIdentity, resolveLimits, sandboxedArgv, sandboxRefusal } from '../../lib/sandbox';
import { buildSandboxEnv, killGroup, watchGroup } from '../workspace/exec';

// The agent's one way to ask Python about Python (helper.py: index spans,
// mutation sites, syntax check). Starting an interpreter costs 20–50 ms, and
// the compile gate asks once per candidate, so helpers are long-lived and
// pooled: a request takes an idle helper (or starts one), has it to itself,
// and gives it back. Concurrent runs never wait on each other's requests.
//
// A helper parses and compiles; it never runs repository code. It still reads
// repository content, so it runs in the sandbox (lib/sandbox) like a command:
// its own uid, no network, no workspace (the client sends the bytes of the
// files it asks about) and nothing of the server but helper.py. It gets the sandbox's allow-listed environment (never the server's
// secrets), runs with -I -S, and is killed when a request times out or is
// aborted, or when it has been idle a while. Idle helpers do not keep the
// Node process alive. A helper leads a process group of its own, and a kill
// is for the whole group: killed while bubblewrap was still starting it,
// bubblewrap alone died and its first child waited for it forever.

const SCRIPT = fileURLToPath(new URL('./helper.py', import.meta.url));
const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_REPLY_BYTES = 256 * 1024 * 1024;
const MAX_IDLE_HELPERS = 2;
const IDLE_EXIT_MS = 30_000;
const STDERR_KEEP = 4000;

export class PythonHelperError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PythonHelperError';
  }
}

class Helper {
  readonly child: ChildProcessWithoutNullStreams;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private stderr = '';
  private waiting: { resolve: (line: string) => void; reject: (err: Error) => void } | null = null;
  private exitReason: string | null = null;
  /** ended by its own exit (or a signal from outside), not by kill() */
  diedOnItsOwn = false;
  idleTimer: NodeJS.Timeout | undefined;

  constructor(python: string) {
    const inner = [python, '-I', '-S', SCRIPT];
    const refusal = sandboxRefusal();
    const { file, args } = refusal
      ? { file: '/bin/sh', args: ['-c', 'echo "$1" >&2; exit 1', 'sh', `the Python helper cannot start: ${refusal}`] }
      : sandboxedArgv(inner, {
          writable: [],
          // no workspace: the client sends the files' bytes (scaffold/python.ts)
          readOnly: [SCRIPT],
          cwd: '/tmp',
          identity: newSandboxIdentity(),
          limits: resolveLimits({ diskBytes: 64 * 1024 * 1024 }),
          // spawned detached below: a session of its own, no terminal, one group to kill
          newSession: false,
        });
    this.child = spawn(file, args, {
      cwd: tmpdir(),
      env: buildSandboxEnv({ home: '/tmp', tmpDir: '/tmp' }) as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const pid = this.child.pid;
    watchGroup('add', pid);
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    // a helper that dies between requests is simply not reused
    this.child.stdin.on('error', () => {});
    this.child.on('error', (err) => this.fail(`could not start ${python}: ${err.message}`));
    this.child.on('exit', (code, signal) => {
      // whatever of the sandbox is left goes with it
      killGroup(pid, 'SIGKILL');
      watchGroup('del', pid);
      if (this.exitReason === null) this.diedOnItsOwn = true;
      this.fail(`the Python helper exited (${signal ?? `code ${code}`})${this.stderr ? `: ${this.stderr.trim()}` : ''}`);
    });
  }

  get alive(): boolean {
    return this.exitReason === null;
  }

  private onData(chunk: Buffer): void {
    let at = chunk.indexOf(0x0a);
    while (at !== -1) {
      this.buffered.push(chunk.subarray(0, at));
      const line = Buffer.concat(this.buffered).toString('utf8');
      this.buffered = [];
      this.bufferedBytes = 0;
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.resolve(line);
      chunk = chunk.subarray(at + 1);
      at = chunk.indexOf(0x0a);
    }
    if (chunk.length) {
      this.buffered.push(chunk);
      this.bufferedBytes += chunk.length;
      if (this.bufferedBytes > MAX_REPLY_BYTES) this.kill(`the Python helper's reply is over ${MAX_REPLY_BYTES} bytes`);
    }
  }

  private fail(reason: string): void {
    this.exitReason ??= reason;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(new PythonHelperError(this.exitReason));
  }

  kill(reason: string): void {
    this.fail(reason);
    clearTimeout(this.idleTimer);
    killGroup(this.child.pid, 'SIGKILL');
  }

  /** Idle helpers must not keep the process alive; busy ones must. */
  hold(busy: boolean): void {
    const handles = [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as Array<{ ref?: () => void; unref?: () => void }>;
    for (const h of handles) (busy ? h.ref : h.unref)?.call(h);
  }

  request(line: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
    if (!this.alive) return Promise.reject(new PythonHelperError(this.exitReason ?? 'the Python helper is gone'));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => this.kill(`the Python helper did not answer within ${timeoutMs} ms`), timeoutMs);
      const onAbort = () => this.kill('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.waiting = {
        resolve: (reply) => {
          settle();
          resolve(reply);
        },
        reject: (err) => {
          settle();
          reject(signal?.aborted ? (signal.reason ?? err) : err);
        },
      };
      this.child.stdin.write(`${line}\n`);
    });
  }
}

const idle: Helper[] = [];
const busy = new Set<Helper>();
// the interpreter helpers start with
const interpreter = 'python3';

function acquire(): { helper: Helper; reused: boolean } {
  for (let h = idle.pop(); h; h = idle.pop()) {
    clearTimeout(h.idleTimer);
    if (h.alive) return { helper: h, reused: true };
  }
  return { helper: new Helper(interpreter), reused: false };
}

function release(helper: Helper): void {
  busy.delete(helper);
  if (!helper.alive) return;
  if (idle.length >= MAX_IDLE_HELPERS) {
    helper.kill('not needed');
    return;
  }
  helper.hold(false);
  helper.idleTimer = setTimeout(() => {
    const i = idle.indexOf(helper);
    if (i !== -1) idle.splice(i, 1);
    helper.kill('idle');
  }, IDLE_EXIT_MS);
  helper.idleTimer.unref();
  idle.push(helper);
}

/** Sends one request to a helper and returns its result; throws PythonHelperError with the helper's own message. */
export async function pythonRequest(request: Record<string, unknown>, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<unknown> {
  const line = JSON.stringify(request);
  for (let attempt = 1; ; attempt++) {
    opts.signal?.throwIfAborted();
    const { helper, reused } = acquire();
    busy.add(helper);
    helper.hold(true);
    let reply: string;
    try {
      reply = await helper.request(line, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, opts.signal);
    } catch (err) {
      // an idle helper that died unnoticed (killed, OOM) is not the request's
      // fault: one more try on a fresh helper
      if (reused && helper.diedOnItsOwn && attempt === 1) continue;
      throw err;
    } finally {
      release(helper);
    }
    let parsed: { ok?: unknown; error?: string };
    try {
      parsed = JSON.parse(reply) as { ok?: unknown; error?: string };
    } catch {
      helper.kill('it printed something that is not JSON');
      throw new PythonHelperError(`the Python helper printed something that is not JSON: ${reply.slice(0, 200)}`);
    }
    if (typeof parsed.error === 'string') throw new PythonHelperError(parsed.error);
    return parsed.ok;
  }
}

/** Process ids of the running helpers (idle and busy), for tests and diagnostics. */
export function pythonHelperPids(): number[] {
  return [...idle, ...busy].filter((h) => h.alive).map((h) => h.child.pid!);
}

/** Kills every helper (idle and busy); the next request starts a fresh one. */
export function closePythonHelpers(): void {
  for (const h of [...idle, ...busy]) h.kill('closed');
  idle.length = 0;
  busy.clear();
}

export interface PythonSyntaxError {
  file: string;
  line?: number;
  message: string;
}

/** Python's own compile() over each file's bytes: syntax errors with their lines, nothing run, no .pyc written. */
export async function checkPythonSyntax(
  sources: Array<{ file: string; bytes: Uint8Array }>,
  opts: { signal?: AbortSignal } = {},
): Promise<PythonSyntaxError[]> {
  if (sources.length === 0) return [];
  const result = (await pythonRequest(
    { mode: 'compile', sources: sources.map((s) => ({ file: s.file, base64: Buffer.from(s.bytes).toString('base64') })) },
    opts,
  )) as { errors: Array<{ file: string; line: number | null; message: string }> };
  return result.errors.map((e) => ({ file: e.file, ...(e.line ? { line: e.line } : {}), message: e.message }));
}
