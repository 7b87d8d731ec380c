import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSandboxEnv, sandboxArgv } from '../../agent/workspace/exec';
import { handOver, newSandboxIdentity, resolveLimits } from '../../lib/sandbox';
import { percentile } from '../stats';

// What the sandbox adds to one command: a trivial command (`true`) behind the
// command gate, spawned as agent/workspace/exec.ts spawns it, sandboxed and plain, in
// alternating pairs so load changes hit both; the cost is the difference.

function runOnce(file: string, args: string[], cwd: string, env: Record<string, string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${file} exited ${code}`))));
    child.stdin.end('\n');
  });
}

export async function measureSandboxCost(samples = 40): Promise<{ p50: number; p95: number; sandboxedP50: number; plainP50: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flowfix-bench-sandbox-'));
  try {
    const identity = newSandboxIdentity();
    await handOver([dir], identity);
    const env = buildSandboxEnv({ home: dir, tmpDir: dir });
    const sandboxed = sandboxArgv('true', { cwd: dir, sandbox: { writable: [dir] }, identity, limits: resolveLimits() });
    // the same gate and shell, without bubblewrap
    const shell = sandboxed.args.indexOf('/bin/sh');
    const plain = { file: '/bin/sh', args: sandboxed.args.slice(shell + 1) };
    const costs: number[] = [];
    const withSandbox: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const a = await runOnce(sandboxed.file, sandboxed.args, dir, env);
      const b = await runOnce(plain.file, plain.args, dir, env);
      if (i < 3) continue; // warm-up
      withSandbox.push(a);
      without.push(b);
      costs.push(a - b);
    }
    return { p50: percentile(costs, 50), p95: percentile(costs, 95), sandboxedP50: percentile(withSandbox, 50), plainP50: percentile(without, 50) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
