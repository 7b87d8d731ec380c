import 'server-only';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

// How a git process runs, for every profile of the runner (./runner.ts):
// in its own process group (a timeout kills git with the ssh or upload-pack
// it started), with its output capped, and every failure as one GitError.
// This module loads nothing of the server (the CLI uses it as it is).

/** A git process as it will be started; a launcher may wrap it (a sandbox) before it is. */
export interface GitCommand {
  argv: string[];
  cwd: string;
  /** undefined: inherit this process's environment (the user's own git only) */
  env: Record<string, string> | undefined;
}

export type GitLauncher = (command: GitCommand) => GitCommand;

export interface GitResult {
  stdout: string;
  /** stdout as git wrote it (binary content, NUL-separated output) */
  stdoutBytes: Buffer;
  stderr: string;
  exitCode: number;
}

export interface GitProcessOptions {
  input?: string | Buffer;
  /** exit codes that are answers rather than failures */
  okCodes?: number[];
  timeoutMs: number;
  /** stdout beyond this is a failure (the process is killed) */
  maxOutputBytes: number;
  launcher?: GitLauncher;
}

/** Any git failure: a non-zero exit, a timeout, too much output, git missing. */
export class GitError extends Error {
  constructor(
    message: string,
    /** `git <args>` as the caller gave them (without a profile's overrides) */
    readonly command: string,
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly signal: NodeJS.Signals | null = null,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

const STDERR_KEEP = 1024 * 1024;
const STDERR_TAIL = 2000;

interface RawResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  failure?: string;
}

function spawnGit(command: GitCommand, opts: GitProcessOptions): Promise<RawResult> {
  return new Promise((resolve) => {
    const [file, ...args] = command.argv;
    // turbopackIgnore: the file is git (or a launcher such as bwrap), not a project file to trace
    const child = spawn(/*turbopackIgnore: true*/ file, args, {
      cwd: command.cwd,
      env: command.env as NodeJS.ProcessEnv | undefined,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let failure: string | undefined;
    const kill = (why: string) => {
      failure ??= why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill(`timed out after ${opts.timeoutMs} ms`), opts.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > opts.maxOutputBytes) kill(`wrote more than ${opts.maxOutputBytes} bytes`);
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.length > STDERR_KEEP) stderr = stderr.slice(-STDERR_KEEP);
    });
    // git may exit before reading its input (an early error): the exit code says why
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // ENOENT is also what a missing working directory gives
      const missing = err.code === 'ENOENT' && existsSync(command.cwd);
      resolve({
        stdout: Buffer.alloc(0),
        stderr,
        exitCode: null,
        signal: null,
        failure: missing ? `${file} is not installed or not on PATH` : `could not start in ${command.cwd}: ${err.message}`,
      });
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out), stderr, exitCode, signal, failure });
    });
  });
}

/**
 * Runs one git process (through `launcher` when given); resolves when it
 * exits 0 or with one of `okCodes`, else rejects with a GitError naming
 * `shown` (the command as the caller wrote it).
 */
export async function runGitProcess(command: GitCommand, shown: string, opts: GitProcessOptions): Promise<GitResult> {
  const raw = await spawnGit(opts.launcher ? opts.launcher(command) : command, opts);
  const exitCode = raw.failure ? null : raw.exitCode;
  if (exitCode !== null && (exitCode === 0 || opts.okCodes?.includes(exitCode))) {
    return { stdout: raw.stdout.toString('utf8'), stdoutBytes: raw.stdout, stderr: raw.stderr, exitCode };
  }
  const tail = raw.stderr.trim().slice(-STDERR_TAIL);
  const how = raw.failure ?? (raw.signal ? `killed by ${raw.signal}` : `exit ${raw.exitCode}`);
  throw new GitError(`${shown} failed (${how})${tail ? `: ${tail}` : ''}`, shown, exitCode, raw.stderr, raw.signal);
}

/** `git <args>` for messages, bounded. */
export function describeGit(args: string[]): string {
  return `git ${args.join(' ')}`.slice(0, 300);
}

/**
 * The user's own git in their own checkout (the CLI): their configuration,
 * hooks and credentials apply, as when they run git themselves. Never for a
 * repository flowfix reads on the server (the runner's profiles are for those).
 */
export function runUserGit(cwd: string, args: string[], opts: { input?: string; okCodes?: number[]; timeoutMs?: number } = {}): Promise<GitResult> {
  return runGitProcess({ argv: ['git', ...args], cwd, env: undefined }, describeGit(args), {
    ...opts,
    timeoutMs: opts.timeoutMs ?? 600_000,
    maxOutputBytes: 64 * 1024 * 1024,
  });
}
