import 'server-only';
import fs from 'node:fs';
import path from 'node:path';

// Secrets the demo keeps in its data folder (the session secret, the demo CI
// token). Apart from lib/auth/secret.ts, which proxy.ts loads, so that module
// stays free of file access.

/**
 * A secret kept in a file only its owner may read. The file is made 0600
 * before it is read: one left readable by others (by an older version, a copy,
 * a loose umask) is tightened rather than trusted as it is. Undefined when the
 * file is missing or empty.
 */
export function readSecretFile(file: string): string | undefined {
  if (!fs.existsSync(file)) return undefined;
  fs.chmodSync(file, 0o600);
  const value = fs.readFileSync(file, 'utf8').trim();
  return value || undefined;
}

/** Writes a secret file as 0600; a new file is created with that mode, so it is never readable by others even briefly. */
export function writeSecretFile(file: string, value: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (fs.existsSync(file)) fs.chmodSync(file, 0o600);
  fs.writeFileSync(file, value + '\n', { mode: 0o600 });
  // the umask can only take bits away, but an existing file keeps its old mode
  fs.chmodSync(file, 0o600);
}

/** A value kept in a 0600 file (the demo's session secret), created on first use. */
export function persistedSecret({ file, create }: { file: string; create: () => string }): string {
  const existing = readSecretFile(file);
  if (existing) return existing;
  const value = create();
  writeSecretFile(file, value);
  return value;
}
