import { readdirSync, readFileSync } from 'node:fs';

/** Whether `pid` is running: a killed process whose parent is gone may linger as a zombie until reaped, which counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Outside pids of the live processes whose argv is exactly `argv` (a sandboxed
 * command's own pids are its PID namespace's, so the tests find them by a
 * unique argv).
 */
export function pidsOf(...argv: string[]): number[] {
  const want = argv.join('\0') + '\0';
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8') === want && isAlive(p);
      } catch {
        return false;
      }
    });
}
