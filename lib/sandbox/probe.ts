import 'server-only';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSandboxArgv } from './argv';
import { newSandboxIdentity, runningAsRoot } from './identity';
import { resolveLimits } from './limits';

// Whether this machine can run the sandbox, asked once per process: a real
// sandboxed command must run as the sandbox user, write its workspace, and
// not see a file the server just put beside it. Without a working sandbox no
// repository command runs, unless an admin switched the server to the unsafe
// mode (lib/sandbox/mode.ts), which every page then shows in red.

export type SandboxProbe = { ok: true } | { ok: false; reason: string };

let cached: SandboxProbe | undefined;

export function probeSandbox(): SandboxProbe {
  if (cached) return cached;
  cached = runProbe();
  return cached;
}

/** Forget the cached answer (tests; after installing bubblewrap). */
export function resetSandboxProbe(): void {
  cached = undefined;
}

function runProbe(): SandboxProbe {
  const dir = mkdtempSync(path.join(tmpdir(), 'flowfix-probe-'));
  const ws = path.join(dir, 'ws');
  const secret = path.join(dir, 'server-secret');
  try {
    spawnSync('mkdir', [ws]);
    writeFileSync(secret, 'x');
    const identity = newSandboxIdentity();
    if (runningAsRoot()) spawnSync('chown', [`${identity.uid}:${identity.gid}`, ws]);
    const script = `id -u; echo ok > ${ws}/written; test -e ${secret} && echo SEEN; true`;
    const { file, args } = buildSandboxArgv(['/bin/sh', '-c', script], {
      writable: [ws],
      cwd: ws,
      identity,
      limits: resolveLimits({ diskBytes: 64 * 1024 * 1024 }),
    });
    const r = spawnSync(file, args, { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv });
    if (r.error) return { ok: false, reason: `bubblewrap (bwrap) could not start: ${r.error.message}` };
    if (r.status !== 0) return { ok: false, reason: `bubblewrap failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(0, 500)}` };
    const lines = r.stdout.trim().split('\n');
    if (lines[0] !== String(identity.uid)) return { ok: false, reason: `the sandbox ran as uid ${lines[0]}, not ${identity.uid}` };
    if (lines.includes('SEEN')) return { ok: false, reason: 'the sandbox could see a file outside its workspace' };
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
