import 'server-only';
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import type { SandboxIdentity } from './identity';
import { runningAsRoot } from './identity';
import type { LimitReason, SandboxLimits } from './limits';

// The two limits the kernel cannot end a command for. A workspace filling the
// disk gets ENOSPC only when the server's disk is full too, and a fork bomb at
// its RLIMIT_NPROC cap keeps forking until the time limit. So while a command
// runs, its writable folders are measured (du, every `diskCheckMs`, less often
// when a measurement itself is slow) and the sandbox user's processes counted
// (its uid is the workspace's own, see identity.ts); either one over its limit
// ends the command with that limit's name. Nothing runs for a command shorter
// than one period.

export interface LimitWatch {
  stop(): void;
}

export function watchLimits(input: { identity: SandboxIdentity; limits: SandboxLimits; dirs: string[]; onLimit: (reason: LimitReason) => void }): LimitWatch {
  const { identity, limits, dirs } = input;
  let stopped = false;
  let measuring = false;
  let nearCap = 0;
  let period = limits.diskCheckMs;
  const hit = (reason: LimitReason) => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    input.onLimit(reason);
  };
  const countProcesses = (): number => {
    let n = 0;
    for (const entry of readdirSync('/proc')) {
      if (entry.charCodeAt(0) > 57) continue;
      try {
        if (statSync(`/proc/${entry}`).uid === identity.uid) n++;
      } catch {
        // exited while we looked
      }
    }
    return n;
  };
  const tick = () => {
    if (stopped) return;
    // Only a uid of its own says which processes are the sandbox's (as root);
    // otherwise the kernel's cap and the runtimes' messages have to do.
    if (runningAsRoot()) {
      nearCap = countProcesses() >= Math.floor(limits.processes * 0.9) ? nearCap + 1 : 0;
      if (nearCap >= 2) return hit('process_limit');
    }
    if (!measuring && dirs.length > 0) {
      measuring = true;
      const started = performance.now();
      execFile(
        'du',
        ['-s', '-B1', '-c', ...dirs],
        { env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv, maxBuffer: 1024 * 1024, encoding: 'utf8' },
        (_err: Error | null, stdout: string) => {
          measuring = false;
          // files vanishing mid-walk make du exit 1; its total is still good
          const total = Number(/^(\d+)\s+total$/m.exec(stdout ?? '')?.[1] ?? 0);
          if (total > limits.diskBytes) hit('disk_limit');
          // a slow walk (a huge node_modules) is not repeated more than 1/20 of the time
          period = Math.max(limits.diskCheckMs, (performance.now() - started) * 20);
        },
      );
    }
    timer = setTimeout(tick, period);
    timer.unref();
  };
  let timer = setTimeout(tick, period);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
