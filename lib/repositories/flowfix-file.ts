import 'server-only';
import { runGit } from '../git/runner';

/**
 * The text of `.flowfix.json` at a revision (the base of a change: the head
 * is the code under repair and must not pick its own settings), or null.
 */
export async function readFlowfixFileAtRevision(input: { repoPath: string; rev: string }): Promise<string | null> {
  if (!/^[A-Za-z0-9._/^~@{}-]+$/.test(input.rev) || input.rev.startsWith('-')) return null;
  try {
    const { stdout } = await runGit('read', input.repoPath, ['show', `${input.rev}:.flowfix.json`], { maxOutputBytes: 1024 * 1024 });
    return stdout;
  } catch {
    return null;
  }
}
