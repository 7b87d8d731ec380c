import { runGit, type GitResult, type GitRunOptions } from '../../lib/git/runner';

// The agent's git: the run's own clone, through the workspace profile (no
// user or system config, no hooks, filters or prompts) of the one git runner,
// lib/git/runner.ts; workspaceGit is runGit('workspace', …) and nothing more.
// Credentials (a code host's token) are for the clone and fetch only.

export { GitError, isCredentialRefusal, isRepositoryNotFound, type GitCredentials, type GitResult } from '../../lib/git/runner';

/** Runs git in the workspace `cwd`; throws GitError unless the exit code is 0 or listed in `okCodes`. */
export function workspaceGit(
  cwd: string,
  args: string[],
  opts: Pick<GitRunOptions, 'input' | 'okCodes' | 'timeoutMs' | 'maxOutputBytes' | 'credentials'> = {},
): Promise<GitResult> {
  return runGit('workspace', cwd, args, opts);
}
