import { execFile } from 'node:child_process';
import { readInheritedEnv } from '../lib/env';

// flowfix's own git calls (clone, checkout, diff, apply). These are trusted
// commands on untrusted content: no user or system config is read (a global
// hook or credential helper must not run here), and no prompt can block.

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...readInheritedEnv(['PATH', 'LANG']),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    // a workspace's files belong to its sandbox user (lib/sandbox/identity.ts),
    // its .git to the server: git must not refuse it as "dubious ownership"
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'safe.directory',
    GIT_CONFIG_VALUE_0: '*',
    GIT_AUTHOR_NAME: 'flowfix',
    GIT_AUTHOR_EMAIL: 'flowfix@localhost',
    GIT_COMMITTER_NAME: 'flowfix',
    GIT_COMMITTER_EMAIL: 'flowfix@localhost',
  } as unknown as NodeJS.ProcessEnv;
}

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Runs git; throws GitError unless the exit code is 0 or listed in `okCodes`. */
export function git(
  cwd: string,
  args: string[],
  opts: { input?: string; okCodes?: number[]; maxBuffer?: number; timeoutMs?: number } = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd, env: gitEnv(), maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024, timeout: opts.timeoutMs ?? 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : null) : 0;
        if (code !== null && (code === 0 || opts.okCodes?.includes(code))) {
          resolve({ stdout, stderr, exitCode: code });
          return;
        }
        reject(new GitError(`git ${args[0]} failed: ${stderr.trim() || (err as Error).message}`, code, stderr));
      },
    );
    // git may exit before reading its input (an early error): not our failure to report
    child.stdin?.on('error', () => {});
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}
