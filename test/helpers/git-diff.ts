import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real `git diff` between two states of a few files: `files` maps a path to
 * [before, after] (null = absent). Renames are detected like git does.
 */
export function gitDiff(files: Record<string, [string | Buffer | null, string | Buffer | null]>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-diff-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } as unknown as NodeJS.ProcessEnv });
  try {
    git('init', '-q');
    git('config', 'user.email', 't@example.com');
    git('config', 'user.name', 't');
    const put = (rel: string, content: string | Buffer | null) => {
      const abs = path.join(dir, rel);
      if (content === null) {
        try {
          unlinkSync(abs);
        } catch {
          // absent already
        }
        return;
      }
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    };
    for (const [rel, [before]] of Object.entries(files)) put(rel, before);
    git('add', '--all');
    git('commit', '-q', '--allow-empty', '-m', 'before');
    for (const [rel, [, after]] of Object.entries(files)) put(rel, after);
    git('add', '--all');
    return git('diff', '--cached', '-M', '--binary', 'HEAD');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
