// The retrieval scaffold's entry point: index the workspace into AST spans
// and a code graph, then rank suspects from the failure evidence.
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Spectrum } from '../coverage/spectrum';
import type { Evidence, Suspect } from '../types';
import { listSourceFiles } from './files';
import type { CodeGraph } from './graph';
import { buildGraph, packageEntry, type PackageEntry } from './graph';
import type { FileIndex } from './model';
import { indexPyFiles } from './python';
import { rankSpans } from './rank';
import { indexTsFile } from './typescript';

export type { FileIndex, IndexedSpan } from './model';
export { isTestPath } from './model';
export { indexTsFile, parseTs } from './typescript';
export { toRelative } from './rank';

/** Files larger than this are generated or vendored; their spans would only add noise. */
const MAX_FILE_BYTES = 1024 * 1024;

export interface WorkspaceIndex {
  graph: CodeGraph;
  /** files that failed to parse, with the parser's message */
  errors: Record<string, string>;
  durationMs: number;
}

async function indexTs({ root, files }: { root: string; files: string[] }): Promise<{ indexes: FileIndex[]; errors: Record<string, string> }> {
  const indexes: FileIndex[] = [];
  const errors: Record<string, string> = {};
  for (const file of files) {
    try {
      const abs = path.join(root, file);
      if (statSync(abs).size > MAX_FILE_BYTES) continue;
      indexes.push(indexTsFile(file, await readFile(abs, 'utf8')));
    } catch (error) {
      errors[file] = error instanceof Error ? error.message : String(error);
    }
  }
  return { indexes, errors };
}

/** Each package.json's root entries (one that does not parse is skipped). */
async function readPackages(root: string, files: string[]): Promise<PackageEntry[]> {
  const out: PackageEntry[] = [];
  for (const file of files) {
    try {
      const dir = path.posix.dirname(file);
      out.push(packageEntry(dir === '.' ? '' : dir, JSON.parse(await readFile(path.join(root, file), 'utf8'))));
    } catch {
      // not JSON: nothing to resolve through
    }
  }
  return out;
}

export async function indexWorkspace({ root, signal }: { root: string; signal?: AbortSignal }): Promise<WorkspaceIndex> {
  const started = performance.now();
  const files = await listSourceFiles({ root });
  // Python runs in its own process meanwhile.
  const [ts, py] = await Promise.all([indexTs({ root, files: files.ts }), indexPyFiles({ root, files: files.py, signal })]);
  return {
    graph: buildGraph([...ts.indexes, ...py.indexes], await readPackages(root, files.packages)),
    errors: { ...ts.errors, ...py.errors },
    durationMs: performance.now() - started,
  };
}

export interface LocaliseInput {
  root: string;
  evidence: Evidence;
  /** files and line ranges (head side) the change edited */
  editedSpans: Array<{ file: string; startLine: number; endLine: number }>;
  k?: number;
  signal?: AbortSignal;
  /** reuse an index built earlier in the same run */
  index?: WorkspaceIndex;
  /** the repository's tests and helpers (agent/testing/test-files.ts); default: the conventions */
  isTestFile?: (rel: string) => boolean;
  /** keep the failing tests' own cases (a stale expectation the change contradicts) */
  keepFailingTests?: boolean;
  /** per-test coverage of the failing and passing tests (agent/coverage), when collected */
  coverage?: Spectrum;
}

/** The top-K suspects (default 3), each with the reasons it ranks where it does. */
export async function localise({
  root,
  evidence,
  editedSpans,
  k = 3,
  signal,
  index,
  isTestFile,
  keepFailingTests,
  coverage,
}: LocaliseInput): Promise<Suspect[]> {
  const { graph } = index ?? (await indexWorkspace({ root, signal }));
  const ranked = rankSpans({
    root,
    graph,
    evidence,
    editedSpans,
    ...(isTestFile ? { isTestFile } : {}),
    ...(keepFailingTests ? { keepFailingTests } : {}),
    ...(coverage ? { coverage } : {}),
    fileExists: (rel) => {
      const abs = path.resolve(root, rel);
      return abs.startsWith(path.resolve(root) + path.sep) && existsSync(abs);
    },
  });
  return ranked.slice(0, Math.max(0, k));
}
