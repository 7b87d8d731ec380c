// Resource limits of one sandboxed command, and the names of the ways a
// command can be stopped by them. A limit hit must reach the run as its name
// (`disk_limit`, …), never as a generic failure, and must never harm the
// server: the kernel enforces memory, processes, CPU and file size (setrlimit,
// set by prlimit inside the sandbox before the uid drop); the workspace's disk
// use and the process count are also watched from outside (see monitor.ts),
// because a full disk or a fork bomb stuck at its cap does not end by itself.

export type LimitReason = 'memory_limit' | 'process_limit' | 'cpu_limit' | 'file_size_limit' | 'disk_limit' | 'timeout';

export interface SandboxLimits {
  /**
   * memory of each process (RLIMIT_DATA: heap and private mappings). Not the
   * address space (RLIMIT_AS): V8 reserves ~10 GB of that for any WebAssembly
   * instance, so tsx (esbuild's wasm lexer) would not even start.
   */
  memoryBytes: number;
  /** processes and threads of the sandbox user (RLIMIT_NPROC) */
  processes: number;
  /** CPU seconds of each process (RLIMIT_CPU) */
  cpuSeconds: number;
  /** largest file a process may write (RLIMIT_FSIZE) */
  fileSizeBytes: number;
  /** bytes of the writable folders together (watched from outside) */
  diskBytes: number;
  /** how often the disk use is measured while a command runs */
  diskCheckMs: number;
}

const GiB = 1024 ** 3;

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 8 * GiB,
  // a Node process alone has ~11 threads, and every thread counts
  processes: 2048,
  cpuSeconds: 2 * 3600,
  fileSizeBytes: 2 * GiB,
  diskBytes: 10 * GiB,
  diskCheckMs: 1000,
};

export function resolveLimits(partial?: Partial<SandboxLimits>): SandboxLimits {
  return { ...DEFAULT_LIMITS, ...(partial ?? {}) };
}

/**
 * The limits as /bin/sh (dash) `ulimit` builtins, for a sandbox whose command
 * is a shell script anyway (saves an exec of prlimit per command). The CPU
 * hard limit comes 5 s after the soft one: at the soft one the process gets
 * SIGXCPU (a named reason), at the hard one a bare SIGKILL. A limit that
 * cannot be set stops the command before anything runs.
 */
export function ulimitScript(limits: SandboxLimits): string {
  const steps = [
    `ulimit -S -t ${limits.cpuSeconds}`,
    `ulimit -H -t ${limits.cpuSeconds + 5}`,
    `ulimit -d ${Math.ceil(limits.memoryBytes / 1024)}`,
    `ulimit -p ${limits.processes}`,
    // dash counts file size in 512-byte blocks
    `ulimit -f ${Math.ceil(limits.fileSizeBytes / 512)}`,
    'ulimit -c 0',
  ];
  return `{ ${steps.join(' && ')}; } || { echo "flowfix: could not set the sandbox limits" >&2; exit 126; };`;
}

const SIGXCPU = 24;
const SIGXFSZ = 25;

/**
 * The limit a finished command ran into, judged from its exit status (a shell
 * reports a child killed by SIGXCPU as 128+24) and the messages runtimes
 * print when the kernel refuses memory or a fork. Only a failed command is
 * judged: a passing test that prints "MemoryError" hit nothing.
 */
export function limitFromExit(exitCode: number | null, signal: string | null, output: string): LimitReason | null {
  if (exitCode === 0) return null;
  if (signal === 'SIGXCPU' || exitCode === 128 + SIGXCPU) return 'cpu_limit';
  if (signal === 'SIGXFSZ' || exitCode === 128 + SIGXFSZ) return 'file_size_limit';
  if (/File size limit exceeded|\bEFBIG\b|\[Errno 27\] File too large/.test(output)) return 'file_size_limit';
  if (/CPU time limit exceeded/.test(output)) return 'cpu_limit';
  if (
    /JavaScript heap out of memory|Array buffer allocation failed|\bMemoryError\b|Cannot allocate memory|std::bad_alloc|\bENOMEM\b|Out of memory/.test(output)
  ) {
    return 'memory_limit';
  }
  if (
    /Cannot fork|fork: Resource temporarily unavailable|fork failed: Resource temporarily unavailable|spawn \S+ EAGAIN|\[Errno 11\] Resource temporarily unavailable/.test(
      output,
    )
  ) {
    return 'process_limit';
  }
  return null;
}

/** One line for the command's log and the run's error text. */
export function describeLimit(reason: LimitReason, limits: SandboxLimits, timeoutMs?: number): string {
  switch (reason) {
    case 'memory_limit':
      return `memory_limit: a process asked for more than ${formatBytes(limits.memoryBytes)} of memory`;
    case 'process_limit':
      return `process_limit: more than ${limits.processes} processes and threads`;
    case 'cpu_limit':
      return `cpu_limit: a process used more than ${limits.cpuSeconds} s of CPU time`;
    case 'file_size_limit':
      return `file_size_limit: a file larger than ${formatBytes(limits.fileSizeBytes)}`;
    case 'disk_limit':
      return `disk_limit: the workspace grew past ${formatBytes(limits.diskBytes)}`;
    case 'timeout':
      return `timeout: killed after ${timeoutMs ?? '?'} ms (time limit)`;
  }
}

export function formatBytes(n: number): string {
  if (n >= GiB) return `${+(n / GiB).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${+(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}
