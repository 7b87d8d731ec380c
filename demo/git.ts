import { gitOut } from '../lib/git/runner';

// git for the demo's own repositories (the workspace profile: no global or
// system config, so a user's commit.gpgsign or hooks cannot change or break
// the commits), with author and committer always given explicitly, so commit
// ids are reproducible.
export function demoGit(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return gitOut('workspace', cwd, args, { env });
}
