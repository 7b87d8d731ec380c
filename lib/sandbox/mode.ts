// The process-wide switch between sandboxed and unsafe execution. The stored
// setting (SystemSetting `sandboxMode`, lib/sandbox/settings.ts) is read by
// the worker before each run and handed here; commands consult it only when
// the probe says the sandbox does not work. Sandboxed is the default: a
// process that never read the setting never runs a command unsandboxed.

export type SandboxMode = 'sandboxed' | 'unsafe';

let current: SandboxMode = 'sandboxed';

export function setSandboxMode(mode: SandboxMode): void {
  current = mode;
}

export function sandboxMode(): SandboxMode {
  return current;
}
