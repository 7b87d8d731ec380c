import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readInheritedEnv } from '../lib/env';

const execFileAsync = promisify(execFile);

// git for the demo, isolated from whoever runs it: no global or system config
// (a user's commit.gpgsign or hooks must not change or break the commits), and
// author/committer always given explicitly, so commit ids are reproducible.
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...readInheritedEnv(['PATH', 'HOME']),
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    ...extra,
  } as unknown as NodeJS.ProcessEnv;
}

export async function git(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(
      'git',
      ['-c', 'core.autocrlf=false', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null', ...args],
      { cwd, env: gitEnv(env), maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout.trim();
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${e.stderr?.trim() || e.message}`, { cause: error });
  }
}
