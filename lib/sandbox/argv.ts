import 'server-only';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readInheritedEnv } from '../env';
import type { SandboxIdentity } from './identity';
import { runningAsRoot } from './identity';
import { ulimitScript, type SandboxLimits } from './limits';

// The bubblewrap command line for one repository command. What the command
// sees, and nothing else:
//   /usr (and /bin, /lib… as on the host), the Node install, the pyenv
//   Python, extra toolchains from FLOWFIX_SANDBOX_TOOLCHAINS — read-only;
//   a few files of /etc (CA certificates, resolver, alternatives) — read-only,
//   and its own passwd/group naming the sandbox user;
//   the `writable` folders (the run's workspace, home and temp folder), at
//   the same paths as outside, so paths in stack traces and reports match;
//   `.git` folders inside them and the `readOnly` folders — read-only;
//   a private /proc (its own PID namespace), /dev and a size-capped /tmp.
// Not the server's checkout, its .data/ or .next/, secrets, other runs'
// workspaces or /root. No network namespace is shared, so 127.0.0.1 is the
// sandbox's own loopback, not the server's or PostgreSQL's; a command that
// may reach registries gets a unix socket to the egress proxy (egress.ts).

export interface SandboxSpec {
  /** folders shown read-write, at the same path */
  writable: string[];
  /** folders shown read-only, at the same path (a dependency cache outside installs) */
  readOnly?: string[];
  cwd: string;
  identity: SandboxIdentity;
  limits: SandboxLimits;
  /** a unix socket to the egress proxy, shown as EGRESS_SOCKET; absent → no network at all */
  egressSocket?: string;
  /**
   * false when the caller already started bubblewrap in a session of its own
   * (spawn's `detached`), with no terminal: the sandbox then stays in that
   * session's process group, so killing the group reaches the command at any
   * moment. With a new session inside, a group kill that lands while
   * bubblewrap is still starting the command kills bubblewrap alone, and the
   * command runs on, orphaned. Default true: a terminal's input is out of reach.
   */
  newSession?: boolean;
}

/** Where the egress socket and the relay appear inside the sandbox. */
export const EGRESS_SOCKET = '/run/flowfix/egress.sock';
export const EGRESS_RELAY = '/run/flowfix/relay.cjs';
/**
 * flowfix's own install (its checkout): two folders up from this module,
 * where `lib/sandbox/relay.cjs` is, whatever folder the process runs in (the
 * CLI runs in the user's repository). A bundle that moved this module away
 * (Next's server chunks) falls back to the working directory, which for the
 * server is its checkout. Not `new URL(…, import.meta.url)`: Next's bundler
 * turns that into an object node:url refuses, and the server crashed at start.
 */
export function flowfixRoot(): string {
  try {
    const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
    if (existsSync(/*turbopackIgnore: true*/ path.join(here, 'lib', 'sandbox', 'relay.cjs'))) return realpathSync(/*turbopackIgnore: true*/ here);
  } catch {
    // import.meta.url is no file: URL in this build
  }
  return realpathSync(/*turbopackIgnore: true*/ process.cwd());
}

/** The relay script on the server, in flowfix's own install. */
export function relaySource(): string {
  return path.join(flowfixRoot(), 'lib', 'sandbox', 'relay.cjs');
}

const ETC_FILES = [
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'alternatives',
  'resolv.conf',
  'hosts',
  'host.conf',
  'gai.conf',
  'nsswitch.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'protocols',
  'services',
  'mime.types',
];

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith('/') ? root : root + '/');
}

let toolchainCache: string[] | undefined;

/**
 * Read-only toolchain folders outside /usr: the Node install running the
 * server (when it is not /usr/bin/node), the pyenv root (PYENV_ROOT or
 * ~/.pyenv) and any folder in FLOWFIX_SANDBOX_TOOLCHAINS (colon-separated).
 * A folder holding the server's own checkout is never shown.
 */
export function toolchainFolders(): string[] {
  if (toolchainCache) return toolchainCache;
  const found = new Set<string>();
  const nodePrefix = path.dirname(path.dirname(realpathSync(/*turbopackIgnore: true*/ process.execPath)));
  if (!isInside('/usr', nodePrefix)) found.add(nodePrefix);
  const inherited = readInheritedEnv(['HOME', 'PYENV_ROOT']);
  const home = inherited.HOME ?? '/root';
  const pyenv = inherited.PYENV_ROOT ?? path.join(home, '.pyenv');
  if (existsSync(/*turbopackIgnore: true*/ pyenv)) found.add(realpathSync(/*turbopackIgnore: true*/ pyenv));
  for (const extra of (readInheritedEnv(['FLOWFIX_SANDBOX_TOOLCHAINS']).FLOWFIX_SANDBOX_TOOLCHAINS ?? '').split(':')) {
    if (extra && path.isAbsolute(extra) && existsSync(/*turbopackIgnore: true*/ extra)) found.add(realpathSync(/*turbopackIgnore: true*/ extra));
  }
  const server = flowfixRoot();
  const folders = [...found].filter((dir) => dir !== '/' && !isInside(dir, server) && !isInside(server, dir) && !isInside('/usr', dir));
  // flowfix's own node_modules, and nothing else of its checkout: the demo,
  // bench and test repositories run TypeScript through its tsx and tsc
  // rather than installing their own (public packages, no secret)
  const own = path.join(server, 'node_modules');
  if (existsSync(/*turbopackIgnore: true*/ own)) folders.push(realpathSync(/*turbopackIgnore: true*/ own));
  toolchainCache = folders;
  return toolchainCache;
}

/** The sandbox's /etc/passwd and /etc/group: the sandbox user, root and nobody. */
function identityFiles(identity: SandboxIdentity): { passwd: string; group: string } {
  const dir = path.join(tmpdir(), `flowfix-sandbox-etc-${process.getuid?.() ?? 0}`);
  const passwd = path.join(dir, `passwd-${identity.uid}`);
  const group = path.join(dir, `group-${identity.gid}`);
  if (!existsSync(passwd) || !existsSync(group)) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFileSync(
      passwd,
      `root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nsandbox:x:${identity.uid}:${identity.gid}:flowfix sandbox:/nonexistent:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
      { mode: 0o644 },
    );
    writeFileSync(group, `root:x:0:\nsandbox:x:${identity.gid}:\nnogroup:x:65534:\n`, { mode: 0o644 });
  }
  return { passwd, group };
}

/** The object store a `clone --shared` borrows (.git/objects/info/alternates), read-only. */
function alternatesOf(dir: string): string[] {
  try {
    return readFileSync(path.join(dir, '.git', 'objects', 'info', 'alternates'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && path.isAbsolute(l) && existsSync(l));
  } catch {
    return [];
  }
}

/**
 * `--perms 0711 --dir` for every folder above `target` that the sandbox's
 * root does not have yet: bubblewrap would create them 0700 (root-only), and
 * the sandbox user must be able to pass through them — but not list them.
 */
function parentDirs(target: string, made: Set<string>): string[] {
  const out: string[] = [];
  const parts = target.split('/').filter(Boolean);
  for (let i = 1; i < parts.length; i++) {
    const dir = '/' + parts.slice(0, i).join('/');
    if (made.has(dir) || dir === '/usr' || dir === '/tmp' || dir === '/run' || isInside('/usr', dir)) continue;
    made.add(dir);
    out.push('--perms', '0711', '--dir', dir);
  }
  return out;
}

function hostRootLinks(): string[] {
  const out: string[] = [];
  for (const name of ['bin', 'lib', 'lib32', 'lib64', 'libx32', 'sbin']) {
    const p = `/${name}`;
    try {
      const s = lstatSync(p);
      if (s.isSymbolicLink()) out.push('--symlink', readlinkSync(p), p);
      else if (s.isDirectory()) out.push('--ro-bind', p, p);
    } catch {
      // not on this machine
    }
  }
  return out;
}

/** bubblewrap: FLOWFIX_SANDBOX_BWRAP, or `bwrap` on PATH. */
export function bwrapPath(): string {
  return readInheritedEnv(['FLOWFIX_SANDBOX_BWRAP']).FLOWFIX_SANDBOX_BWRAP || 'bwrap';
}

/** The argv that runs `inner` (an argv) in the sandbox described by `spec`. */
export function buildSandboxArgv(inner: string[], spec: SandboxSpec): { file: string; args: string[] } {
  const { identity, limits } = spec;
  const made = new Set<string>();
  const args: string[] = [
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'flowfix-sandbox',
    // the command dies with its runner
    '--die-with-parent',
    '--ro-bind',
    '/usr',
    '/usr',
    ...hostRootLinks(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--size',
    String(Math.min(limits.diskBytes, 1024 ** 3)),
    '--tmpfs',
    '/tmp',
    '--perms',
    '0755',
    '--dir',
    '/run',
    '--perms',
    '0755',
    '--dir',
    '/etc',
  ];
  // a new session keeps it off any terminal (see newSession)
  if (spec.newSession !== false) args.unshift('--new-session');
  if (!runningAsRoot()) args.unshift('--unshare-user', '--uid', String(identity.uid), '--gid', String(identity.gid));
  for (const name of ETC_FILES) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  const ids = identityFiles(identity);
  args.push('--ro-bind', ids.passwd, '/etc/passwd', '--ro-bind', ids.group, '/etc/group');
  for (const dir of toolchainFolders()) args.push(...parentDirs(dir, made), '--ro-bind', dir, dir);
  const readOnly = new Set<string>(spec.readOnly ?? []);
  for (const dir of spec.writable) {
    args.push(...parentDirs(dir, made), '--bind', dir, dir);
    // the server's git runs in .git (hooks, config): the sandbox must never write there
    if (existsSync(path.join(dir, '.git'))) {
      args.push('--ro-bind', path.join(dir, '.git'), path.join(dir, '.git'));
      for (const alt of alternatesOf(dir)) readOnly.add(alt);
    }
  }
  for (const dir of readOnly) if (existsSync(dir)) args.push(...parentDirs(dir, made), '--ro-bind', dir, dir);
  if (spec.egressSocket) {
    args.push('--perms', '0755', '--dir', '/run/flowfix', '--ro-bind', spec.egressSocket, EGRESS_SOCKET, '--ro-bind', relaySource(), EGRESS_RELAY);
  }
  args.push('--chdir', spec.cwd, '--');
  // Limits: a shell command sets them itself (ulimit, after the uid drop: an
  // unprivileged process can lower its limits, never raise them); any other
  // argv gets them from prlimit, still as root, and keeps them across setpriv.
  const shell = inner[0] === '/bin/sh' && inner[1] === '-c' && inner.length >= 3;
  if (!shell) {
    args.push(
      '/usr/bin/prlimit',
      `--data=${limits.memoryBytes}`,
      `--nproc=${limits.processes}`,
      `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 5}`,
      `--fsize=${limits.fileSizeBytes}`,
      '--core=0',
      '--',
    );
  }
  if (runningAsRoot()) {
    args.push(
      '/usr/bin/setpriv',
      `--reuid=${identity.uid}`,
      `--regid=${identity.gid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    );
  }
  if (shell) inner = [inner[0], inner[1], `${ulimitScript(limits)} ${inner[2]}`, ...inner.slice(3)];
  args.push(...inner);
  return { file: bwrapPath(), args };
}
