// Whole-process V8 coverage: what NODE_V8_COVERAGE writes when a process
// exits (coverage-<pid>-<ms>-<thread>.json), for the runners that run many
// tests per process with no per-test hook flowfix can reach (jest, vitest,
// mocha, ava, node-tap, tape; agent/coverage/index.ts runs them filtered by
// name). Every process of one run is read and their lines united: one run is
// one execution of the spectrum. The files were written by the repository's
// code: untrusted input (regular files only, size caps, a schema).
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { executedLines, V8CoverageSchema } from './v8';

/** A process of a large test suite writes every script it loaded, node_modules included: tens of MB. */
const MAX_FILE_BYTES = 128 * 1024 * 1024;
const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
const MAX_FILES = 200;

export interface ProcessCoverage {
  /** workspace-relative file → executed lines, over every process */
  lines: Map<string, Set<number>>;
  /** coverage files read */
  processes: number;
}

/**
 * The lines every process of a run executed, for files inside `root` outside
 * node_modules. `readSource` gives a file's text (workspace-relative), for
 * scripts without a source map.
 */
export async function readProcessCoverage({
  v8Dir,
  root,
  readSource,
}: {
  v8Dir: string;
  root: string;
  readSource: (rel: string) => Promise<string | null>;
}): Promise<ProcessCoverage> {
  const realDir = await realpath(v8Dir);
  const relOf = (abs: string): string | null => {
    const rel = path.relative(root, abs);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('node_modules')) return null;
    return rel.split(path.sep).join('/');
  };
  // scripts are named by file URL (CommonJS, ESM) or by path (vm scripts: jest's modules)
  const rootUrl = `${pathToFileURL(root).href}/`;
  const rootPath = `${root}${path.sep}`;
  const mine = (url: string) => (url.startsWith(rootUrl) || url.startsWith(rootPath)) && !url.includes('/node_modules/');
  const lines = new Map<string, Set<number>>();
  let budget = MAX_TOTAL_BYTES;
  let processes = 0;
  const names = (await readdir(realDir)).filter((n) => /^coverage-[\d-]+\.json$/.test(n)).sort();
  for (const name of names.slice(0, MAX_FILES)) {
    const abs = path.join(realDir, name);
    const info = await lstat(abs).catch(() => null);
    if (!info?.isFile() || info.size > MAX_FILE_BYTES || info.size > budget) continue;
    budget -= info.size;
    let raw: { result?: unknown; 'source-map-cache'?: unknown };
    try {
      raw = JSON.parse(await readFile(abs, 'utf8')) as typeof raw;
    } catch {
      continue;
    }
    // the workspace's own scripts only, before the schema: most of a process's scripts are node_modules
    const result = Array.isArray(raw?.result) ? raw.result.filter((s: { url?: unknown }) => typeof s?.url === 'string' && mine(s.url)) : [];
    const allMaps = raw['source-map-cache'] && typeof raw['source-map-cache'] === 'object' ? (raw['source-map-cache'] as Record<string, unknown>) : {};
    const maps = Object.fromEntries(Object.entries(allMaps).filter(([url]) => mine(url)));
    const cov = V8CoverageSchema.safeParse({ result, 'source-map-cache': maps });
    if (!cov.success) continue;
    processes += 1;
    const executed = await executedLines(
      cov.data,
      (file) => relOf(file) !== null,
      (file) => {
        const rel = relOf(file);
        return rel ? readSource(rel) : Promise.resolve(null);
      },
    ).catch(() => null);
    for (const [file, set] of executed?.files ?? []) {
      const rel = relOf(file);
      if (!rel) continue;
      const into = lines.get(rel) ?? new Set<number>();
      for (const l of set) into.add(l);
      lines.set(rel, into);
    }
  }
  return { lines, processes };
}
