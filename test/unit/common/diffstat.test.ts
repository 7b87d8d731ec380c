import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diffStatFromNumstat } from '@/common/diffstat';

test('diff stat from real `git diff --numstat`: text files counted by line, a binary file as a file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-numstat-'));
  try {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' });
    git('init', '-q');
    writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n');
    git('add', '.');
    git('commit', '-qm', 'base');
    writeFileSync(path.join(dir, 'a.txt'), 'one\n2\nthree\nfour\n');
    writeFileSync(path.join(dir, 'b.txt'), 'new\n');
    writeFileSync(path.join(dir, 'c.bin'), Buffer.from([0, 1, 2, 0, 255]));
    git('add', '.');
    git('commit', '-qm', 'head');
    assert.deepEqual(diffStatFromNumstat(git('diff', '--numstat', 'HEAD~1', 'HEAD')), { files: 3, additions: 3, deletions: 1 });
    assert.deepEqual(diffStatFromNumstat(''), { files: 0, additions: 0, deletions: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
