import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SECRET_ENV_NAMES } from '../lib/env';
import { demoGit } from './git';

// Runs a demo repository's test suite at one revision, the way its CI would:
// in a throw-away worktree, with the repository's own test command, keeping
// the JUnit report and the console log.

export interface SuiteRun {
  rev: string;
  command: string;
  exitCode: number | null;
  /** combined stdout and stderr */
  log: string;
  /** the JUnit report the command wrote; '' if it wrote none */
  junitXml: string;
  durationMs: number;
}

// Variables that would change how the repository's own test runner behaves:
// node --test marks its children with NODE_TEST_CONTEXT, and a nested
// `node --test` seeing it would report to us instead of writing its JUnit file.
const DROPPED_ENV = new Set<string>([...SECRET_ENV_NAMES, 'NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'NODE_CHANNEL_FD']);

function childEnv(): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!DROPPED_ENV.has(key)) env[key] = value;
  }
  env.PYTHONDONTWRITEBYTECODE = '1';
  env.FORCE_COLOR = '0';
  env.NO_COLOR = '1';
  return env as NodeJS.ProcessEnv;
}

function runCommand({ argv, cwd, timeoutMs }: { argv: string[]; cwd: string; timeoutMs: number }): Promise<{ exitCode: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, log: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

/** Runs `testCommand` at `rev` of the repository in `repoDir` and returns what CI would have. */
export async function runSuiteAt({
  repoDir,
  rev,
  testCommand,
  junitPath,
  timeoutMs = 120_000,
}: {
  repoDir: string;
  rev: string;
  testCommand: string[];
  junitPath: string;
  timeoutMs?: number;
}): Promise<SuiteRun> {
  const worktree = await fs.mkdtemp(path.join(os.tmpdir(), 'flowfix-demo-ci-'));
  await demoGit(repoDir, ['worktree', 'add', '-q', '--detach', '-f', worktree, rev]);
  try {
    const started = Date.now();
    const { exitCode, log } = await runCommand({ argv: testCommand, cwd: worktree, timeoutMs });
    const junitXml = await fs.readFile(path.join(worktree, junitPath), 'utf8').catch(() => '');
    return { rev, command: testCommand.join(' '), exitCode, log, junitXml, durationMs: Date.now() - started };
  } finally {
    await demoGit(repoDir, ['worktree', 'remove', '--force', worktree]).catch(() => undefined);
    await fs.rm(worktree, { recursive: true, force: true });
    await demoGit(repoDir, ['worktree', 'prune']).catch(() => undefined);
  }
}
