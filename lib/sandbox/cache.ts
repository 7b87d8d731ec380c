import 'server-only';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { getEnv } from '../env';

// One dependency cache per repository (npm's and pip's), under the data
// folder, so a second run installs without downloading again. It is writable
// only while the repository's install runs, read-only for its other commands,
// and no other repository's commands ever see it (a poisoned cache stays with
// the repository that poisoned it).

/** The cache folder of a repository, named by its source (local path or URL). */
export function dependencyCacheDir(source: string): string {
  const key = createHash('sha256').update(source).digest('hex').slice(0, 24);
  return path.resolve(getEnv().FLOWFIX_DATA_DIR, 'dependency-cache', key);
}

/** Where the package managers keep their caches inside `dir`. */
export function cacheEnv(dir: string): Record<string, string> {
  return {
    npm_config_cache: path.join(dir, 'npm'),
    YARN_CACHE_FOLDER: path.join(dir, 'yarn'),
    npm_config_store_dir: path.join(dir, 'pnpm'),
    PIP_CACHE_DIR: path.join(dir, 'pip'),
  };
}

/**
 * Dependency lifecycle scripts off, whatever install command the admin
 * wrote: npm, pnpm and yarn read these, and pip installs wheels only (a
 * source distribution's setup.py is pip's install script).
 */
export function noInstallScriptsEnv(): Record<string, string> {
  return {
    npm_config_ignore_scripts: 'true',
    YARN_ENABLE_SCRIPTS: 'false',
    YARN_IGNORE_SCRIPTS: 'true',
    PIP_ONLY_BINARY: ':all:',
  };
}
