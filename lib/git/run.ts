import 'server-only';
import { execFile } from 'node:child_process';
import { readInheritedEnv } from '../env';

// The server's own git calls on registered repositories (applying an accepted
// fix). Unlike the agent's git (agent/git.ts), these may need the server
// user's credentials to push (an ssh key, a credential helper in ~/.gitconfig),
// so HOME and the ssh agent are inherited. Repository hooks never run (a
// registered repository's reference-transaction hook must not execute on the
// server), nor can a prompt block a request.

export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitCommandError';
  }
}

export interface GitRunOptions {
  input?: string;
  /** extra environment (author, committer, GIT_INDEX_FILE) */
  env?: Record<string, string>;
  /** exit codes that are answers rather than failures */
  okCodes?: number[];
  timeoutMs?: number;
}

export interface GitRunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const SAFE_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', '-c', 'core.autocrlf=false'];

function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...readInheritedEnv(['PATH', 'HOME', 'SSH_AUTH_SOCK', 'GIT_SSH_COMMAND']),
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    ...extra,
  } as unknown as NodeJS.ProcessEnv;
}

/** Runs git in `cwd`; throws GitCommandError unless the exit code is 0 or in okCodes. */
export function runGit(cwd: string, args: string[], opts: GitRunOptions = {}): Promise<GitRunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...SAFE_CONFIG, ...args],
      { cwd, env: gitEnv(opts.env), maxBuffer: 64 * 1024 * 1024, timeout: opts.timeoutMs ?? 120_000, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
        if (code !== null && (code === 0 || opts.okCodes?.includes(code))) {
          resolve({ stdout, stderr, exitCode: code });
          return;
        }
        reject(new GitCommandError(`git ${args[0]} failed: ${stderr.trim() || (err as Error).message}`, code, stderr));
      },
    );
    // git may exit before reading its input (an early error): the exit code says why
    child.stdin?.on('error', () => {});
    child.stdin?.end(opts.input ?? '');
  });
}

/** stdout of a git command, trimmed. */
export async function gitOut(cwd: string, args: string[], opts: GitRunOptions = {}): Promise<string> {
  return (await runGit(cwd, args, opts)).stdout.trim();
}
