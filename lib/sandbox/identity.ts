import 'server-only';
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

// Who a sandboxed command runs as. When the server runs as root (the usual
// case here, and CI), every workspace gets its own kernel uid/gid, picked at
// random from a range no account uses, and bubblewrap drops to it with
// setpriv after building the mounts. A real kernel uid, not a user-namespace
// mapping: a mapping of the sandbox user onto root keeps kernel uid 0, so
// RLIMIT_NPROC would count every root process of the machine, and files the
// server owns would count as the sandbox's own. A uid per workspace keeps one
// run's fork bomb from eating another run's process budget. No /etc/passwd
// entry is needed (the sandbox gets its own passwd file, see argv.ts), so
// nothing is created on the machine.
//
// Not root: the commands run as the server's own uid inside a user namespace
// (bubblewrap's unprivileged mode); the mounts still hide everything else.

export interface SandboxIdentity {
  uid: number;
  gid: number;
}

const UID_BASE = 2_000_000;
const UID_RANGE = 1 << 20;

export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** A fresh identity for one workspace (root), or the server's own (not root). */
export function newSandboxIdentity(): SandboxIdentity {
  if (!runningAsRoot()) return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const id = UID_BASE + randomInt(UID_RANGE);
  return { uid: id, gid: id };
}

/**
 * Makes `dirs` (and everything below, except `.git` folders, which the
 * sandbox sees read-only) belong to the sandbox user, so its commands can
 * write the workspace. Only entries owned by someone else are touched, so a
 * second call after a few server-side edits is cheap. A no-op unless root.
 */
export async function handOver(dirs: string[], identity: SandboxIdentity): Promise<void> {
  if (!runningAsRoot() || dirs.length === 0) return;
  const owner = `${identity.uid}:${identity.gid}`;
  await execFileAsync(
    'find',
    [
      ...dirs,
      '-name',
      '.git',
      '-prune',
      '-o',
      '(',
      '!',
      '-uid',
      String(identity.uid),
      '-o',
      '!',
      '-gid',
      String(identity.gid),
      ')',
      '-exec',
      'chown',
      '-h',
      owner,
      '{}',
      '+',
    ],
    { env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv },
  ).catch((err: NodeJS.ErrnoException & { stderr?: string }) => {
    // a file a command removed while we walked is not an error
    if (!/No such file or directory/.test(err.stderr ?? '')) throw err;
  });
}
