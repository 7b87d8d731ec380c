// The working tree on disk, for planFix/writePlan: paths relative to the
// repository's root, never outside it.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkingTree } from './patch';

export function diskTree(root: string): WorkingTree {
  const abs = (rel: string) => {
    const p = path.resolve(root, rel);
    if (p !== root && !p.startsWith(root + path.sep)) throw new Error(`${rel} is outside ${root}`);
    return p;
  };
  return {
    async read(rel) {
      try {
        return await readFile(abs(rel), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async write(rel, text) {
      await mkdir(path.dirname(abs(rel)), { recursive: true });
      await writeFile(abs(rel), text);
    },
    async remove(rel) {
      await rm(abs(rel), { force: true });
    },
  };
}
