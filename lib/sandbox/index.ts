import 'server-only';
import { buildSandboxArgv, type SandboxSpec } from './argv';
import { sandboxMode, type SandboxMode } from './mode';
import { probeSandbox } from './probe';

// The one door to the sandbox: whether a repository command may run here
// (`sandboxRefusal`), the argv that runs one (`sandboxedArgv`), and the parts
// a command's runner needs beside it (its identity, limits, egress relay,
// watchdog and caches). The agent and the worker import the sandbox from here
// and nowhere else (test/unit/boundaries/sandbox-door.test.ts); the admin's
// stored mode is lib/sandbox/settings.ts.

/**
 * Why no repository command may run here, or null when one may: there is no
 * working sandbox on this machine and the mode (the process's, or the one
 * given) is not the admin's unsafe one.
 */
export function sandboxRefusal(mode: SandboxMode = sandboxMode()): string | null {
  const probe = probeSandbox();
  if (probe.ok || mode === 'unsafe') return null;
  return `no working sandbox on this machine (${probe.reason}) and the unsafe mode is off: install bubblewrap, or an admin can switch to the unsafe mode`;
}

/** A command was asked to run where sandboxRefusal says none may. */
export class SandboxRefusedError extends Error {}

/**
 * The argv that runs `inner` in the sandbox; in the unsafe mode on a
 * machine without one, `inner` as it is. Throws SandboxRefusedError where
 * no command may run.
 */
export function sandboxedArgv(inner: string[], spec: SandboxSpec): { file: string; args: string[] } {
  const refusal = sandboxRefusal();
  if (refusal) throw new SandboxRefusedError(refusal);
  if (!probeSandbox().ok) return { file: inner[0]!, args: inner.slice(1) };
  return buildSandboxArgv(inner, spec);
}

export type { SandboxSpec } from './argv';
export { flowfixRoot } from './argv';
export { setSandboxMode, type SandboxMode } from './mode';
export { probeSandbox } from './probe';
export { handOver, newSandboxIdentity, type SandboxIdentity } from './identity';
export { describeLimit, limitFromExit, resolveLimits, type LimitReason, type SandboxLimits } from './limits';
export { watchLimits } from './monitor';
export { startEgressProxy, egressEnv, EGRESS_PRELUDE, type EgressProxy } from './egress';
export { cacheEnv, dependencyCacheDir, noInstallScriptsEnv } from './cache';
