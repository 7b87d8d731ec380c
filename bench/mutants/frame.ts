// Which production modules have unit tests, what each needs, and how one
// becomes a small real repository: the module, the in-repo files its unit
// tests import (transitively), the test files, tsconfig.json (tsx reads its
// paths: `@/…`, `server-only`), a package.json whose `scripts.test` the
// product's runner detection reads (agent/testing/runners.ts), and node_modules as a
// symlink to this checkout's (the sandbox binds that folder read-only).
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { workspaceGit } from '../../agent/workspace/git';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const PRODUCT_DIRS = ['lib/', 'agent/', 'common/'];

export interface ModuleUnderTest {
  /** repository-relative path of the production module */
  file: string;
  /** the unit test files that import it directly */
  tests: string[];
  /** every repository file the framed repository needs (module, tests, their imports) */
  files: string[];
  /** files the tests read rather than import (extrasOf) */
  extras: string[];
}

function resolveImport(fromFile: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith('@/')) base = spec.slice(2);
  else if (spec.startsWith('.')) base = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), spec));
  else return null;
  const noJs = base.replace(/\.(m?js)$/, '');
  for (const c of [base, `${noJs}.ts`, `${noJs}.tsx`, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}.json`, `${base}.mjs`, `${base}.cjs`]) {
    const abs = path.join(ROOT, c);
    if (existsSync(abs) && statSync(abs).isFile()) return c;
  }
  return null;
}

const importCache = new Map<string, string[]>();
function importsOf(file: string): string[] {
  const hit = importCache.get(file);
  if (hit) return hit;
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  // import('…') with a literal is in importedFiles too; new URL('…', import.meta.url) is not: such tests read files we do not copy, and fail on the base (screened out)
  const out = info.importedFiles.map((f) => resolveImport(file, f.fileName)).filter((f): f is string => !!f);
  importCache.set(file, out);
  return out;
}

function closure(start: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...start];
  while (todo.length) {
    const f = todo.pop() as string;
    if (seen.has(f)) continue;
    seen.add(f);
    if (/\.(ts|tsx|mts|cts)$/.test(f)) todo.push(...importsOf(f));
  }
  return seen;
}

const isProduct = (f: string) => PRODUCT_DIRS.some((d) => f.startsWith(d)) && /\.tsx?$/.test(f) && !f.startsWith('lib/generated/') && !f.endsWith('.d.ts');

/**
 * The production modules (lib/, agent/, common/) that a unit test imports
 * directly, with those tests. Tests whose imports reach the generated Prisma
 * client or the database module are left out: they need a database, not
 * the module alone.
 */
export function modulesUnderTest(): ModuleUnderTest[] {
  const testsDir = path.join(ROOT, 'test', 'unit');
  const tests = readdirSync(testsDir, { recursive: true })
    .map((e) => path.posix.join('test/unit', String(e).split(path.sep).join('/')))
    .filter((f) => f.endsWith('.test.ts'))
    .sort();
  const byModule = new Map<string, string[]>();
  const closures = new Map<string, Set<string>>();
  for (const t of tests) {
    const c = closure([t]);
    if ([...c].some((f) => f.startsWith('lib/generated/') || f === 'lib/db.ts')) continue;
    closures.set(t, c);
    for (const m of importsOf(t).filter(isProduct)) byModule.set(m, [...(byModule.get(m) ?? []), t]);
  }
  return [...byModule.entries()]
    .map(([file, ts]) => {
      const files = [...new Set(ts.flatMap((t) => [...(closures.get(t) as Set<string>)]))].sort();
      return { file, tests: ts, files, extras: extrasOf(files, ts) };
    })
    .sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * Files read at run time rather than imported: the test fixtures when a test
 * names them, and the non-TypeScript files beside the copied modules (a
 * Python helper script, a JSON table).
 */
function extrasOf(files: string[], tests: string[]): string[] {
  const out = new Set<string>();
  const walk = (dir: string, recursive: boolean) => {
    const abs = path.join(ROOT, dir);
    if (!existsSync(abs)) return;
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory() && recursive) walk(rel, true);
      else if (e.isFile() && !/\.(tsx?|md)$/.test(e.name) && statSync(path.join(ROOT, rel)).size < 256 * 1024) out.add(rel);
    }
  };
  if (tests.some((t) => readFileSync(path.join(ROOT, t), 'utf8').includes('fixtures'))) walk('test/fixtures', true);
  for (const dir of new Set(files.map((f) => path.posix.dirname(f)))) if (dir !== 'test/unit' && !dir.startsWith('test/unit/')) walk(dir, false);
  return [...out].filter((f) => !files.includes(f)).sort();
}

const TSX_LOADER = 'tsx';

/** The unit test command for some test files of a framed repository (node --test through tsx, as scripts/test.mjs runs the unit suite). */
export function packageJson(tests: string[]): string {
  return `${JSON.stringify({ name: 'flowfix-mutant', private: true, type: 'module', scripts: { test: `node --import ${TSX_LOADER} --test ${tests.join(' ')}` } }, null, 2)}\n`;
}

// node_modules is committed as the symlink it is: the run's checkout (a clone) gets it too
const GITIGNORE = 'flowfix-report.xml\njunit.xml\n';

function tsconfig(): string {
  const config = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  delete config.compilerOptions.plugins;
  delete config.compilerOptions.incremental;
  return `${JSON.stringify({ compilerOptions: config.compilerOptions, include: ['**/*.ts', '**/*.tsx'] }, null, 2)}\n`;
}

/** Writes the module's files (the originals, with `overrides` on top) into `dir`. */
export async function writeFrame(dir: string, mod: ModuleUnderTest, overrides: Record<string, string> = {}): Promise<void> {
  for (const f of [...mod.files, ...mod.extras]) {
    const abs = path.join(dir, f);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, overrides[f] ?? readFileSync(path.join(ROOT, f)));
  }
  await writeFile(path.join(dir, 'package.json'), packageJson(mod.tests));
  await writeFile(path.join(dir, 'tsconfig.json'), tsconfig());
  await writeFile(path.join(dir, '.gitignore'), GITIGNORE);
  // to the real folder: the sandbox binds that one (lib/sandbox/argv.ts), not a checkout whose node_modules is itself a link
  if (!existsSync(path.join(dir, 'node_modules'))) await symlink(realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
}

export interface MutantRepo {
  dir: string;
  base: string;
  head: string;
}

/** A real git repository: base commit = the original module, head commit = the mutant. */
export async function buildMutantRepo(input: { parentDir: string; mod: ModuleUnderTest; mutated: string; title: string }): Promise<MutantRepo> {
  const dir = await mkdtemp(path.join(input.parentDir, 'flowfix-mutant-'));
  await workspaceGit(dir, ['init', '--quiet', '-b', 'main']);
  await writeFrame(dir, input.mod);
  await workspaceGit(dir, ['add', '-A']);
  await workspaceGit(dir, ['commit', '--quiet', '-m', 'base']);
  const base = (await workspaceGit(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  await writeFile(path.join(dir, input.mod.file), input.mutated);
  await workspaceGit(dir, ['add', '-A']);
  await workspaceGit(dir, ['commit', '--quiet', '-m', input.title]);
  const head = (await workspaceGit(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  return { dir, base, head };
}
