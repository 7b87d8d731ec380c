// The code graph: which file imports which (resolved inside the workspace) and
// which span calls which name. Calls are resolved by name only — no types —
// which over-approximates, and that is fine for ranking.
import path from 'node:path';
import type { FileIndex, IndexedSpan } from './model';

export interface CodeGraph {
  files: Map<string, FileIndex>;
  /** file → files it imports (workspace-relative) */
  imports: Map<string, Set<string>>;
  /** unqualified name → spans defining it */
  byName: Map<string, IndexedSpan[]>;
  /** qualified symbol (file-scoped key) → names it calls */
  callsFrom: Map<string, Set<string>>;
}

export function spanKey(span: { file: string; symbol: string }): string {
  return `${span.file}#${span.symbol}`;
}

const TS_RESOLVE_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/** A package.json in the workspace: what importing its folder (or its name) loads. */
export interface PackageEntry {
  /** workspace-relative folder ('' for the root) */
  dir: string;
  name?: string;
  /** entry files named by `exports` (the "." entry, by condition) then `main`, as written */
  entries: string[];
}

/** The entry files a package.json names for its root: `exports["."]` (every condition, in order), then `main`. */
export function packageEntry(dir: string, json: unknown): PackageEntry {
  const pkg = (json && typeof json === 'object' ? json : {}) as { name?: unknown; main?: unknown; exports?: unknown };
  const entries: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') entries.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') for (const [key, v] of Object.entries(value)) if (key !== 'types' && key !== 'typings') collect(v);
  };
  const exp = pkg.exports;
  if (typeof exp === 'string' || Array.isArray(exp)) collect(exp);
  else if (exp && typeof exp === 'object') {
    const keys = Object.keys(exp);
    // either a map of subpaths ("." …) or a map of conditions for the root
    if (keys.some((k) => k.startsWith('.'))) collect((exp as Record<string, unknown>)['.']);
    else collect(exp);
  }
  if (typeof pkg.main === 'string') entries.push(pkg.main);
  return { dir, ...(typeof pkg.name === 'string' ? { name: pkg.name } : {}), entries };
}

const joinRel = (dir: string, rel: string) => path.posix.normalize(dir ? `${dir}/${rel}` : rel).replace(/^\.\/?/, '');

/** A stem as a file: itself, with an extension, a './x.js' written for './x.ts', its index. */
function resolveFile(base: string, known: Set<string>, allowIndex = true): string | null {
  const stems = [base];
  const ext = path.posix.extname(base);
  if (ext) stems.push(base.slice(0, -ext.length));
  for (const stem of stems) {
    if (stem && known.has(stem)) return stem;
    for (const e of TS_RESOLVE_EXTS) if (known.has(stem + e)) return stem + e;
    if (allowIndex) for (const e of TS_RESOLVE_EXTS) if (known.has(stem ? `${stem}/index${e}` : `index${e}`)) return stem ? `${stem}/index${e}` : `index${e}`;
  }
  return null;
}

/**
 * A package folder's entry: its package.json `exports`/`main` (a build output
 * that is not in the workspace is looked for under src/ too), else index.*.
 */
function resolvePackageDir(dir: string, known: Set<string>, packages: Map<string, PackageEntry>): string | null {
  const pkg = packages.get(dir);
  for (const entry of pkg?.entries ?? []) {
    const file = joinRel(dir, entry);
    const found = resolveFile(file, known);
    if (found) return found;
    // "main": "dist/index.js" for a source in src/index.ts
    const built = /^(dist|lib|build|out|cjs|esm)\/(.*)$/.exec(dir ? file.slice(dir.length + 1) : file);
    if (built) {
      const fromSrc = resolveFile(joinRel(dir, `src/${built[2]}`), known);
      if (fromSrc) return fromSrc;
    }
  }
  return resolveFile(dir, known);
}

function resolveTs(from: string, specifier: string, known: Set<string>, packages: Map<string, PackageEntry> = new Map()): string | null {
  let base: string;
  const relative = specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
  if (relative) base = path.posix.join(path.posix.dirname(from), specifier);
  else if (specifier.startsWith('@/'))
    base = specifier.slice(2); // the tsconfig alias these repos use
  else if (specifier.startsWith('/')) base = specifier.slice(1);
  else {
    // a package: the workspace's own (a package importing itself, a monorepo's sibling) or outside its code
    for (const pkg of packages.values()) {
      if (!pkg.name) continue;
      if (specifier === pkg.name) return resolvePackageDir(pkg.dir, known, packages);
      if (specifier.startsWith(`${pkg.name}/`)) return resolveFile(joinRel(pkg.dir, specifier.slice(pkg.name.length + 1)), known);
    }
    return null;
  }
  base = path.posix.normalize(base).replace(/\/$/, '');
  if (base === '.') base = '';
  if (base.startsWith('../')) return null; // out of the workspace
  // a folder with a package.json loads what it names; else the file, else its index
  if (packages.has(base)) return resolvePackageDir(base, known, packages);
  return base ? resolveFile(base, known) : resolveFile('', known);
}

function pyModuleFile(dir: string, dotted: string, known: Set<string>): string | null {
  const rel = dotted ? dotted.split('.').join('/') : '';
  const stem = rel ? path.posix.join(dir, rel) : dir;
  const candidates = [`${stem}.py`, `${stem}/__init__.py`].map((c) => path.posix.normalize(c).replace(/^\.\//, ''));
  for (const c of candidates) if (known.has(c)) return c;
  return null;
}

function resolvePy(from: string, imp: { specifier: string; level: number; names: string[] }, known: Set<string>): string[] {
  const out: string[] = [];
  const bases: string[] = [];
  if (imp.level > 0) {
    let dir = path.posix.dirname(from);
    for (let i = 1; i < imp.level; i += 1) dir = path.posix.dirname(dir);
    bases.push(dir === '.' ? '' : dir);
  } else {
    // Absolute imports resolve from the root, a src/ layout, or the importer's
    // own folder (pytest's rootdir insertion puts test folders on sys.path).
    const importerDir = path.posix.dirname(from);
    bases.push('', 'src', importerDir === '.' ? '' : importerDir);
  }
  for (const base of bases) {
    const mod = pyModuleFile(base || '.', imp.specifier, known);
    if (mod) out.push(mod);
    // `from pkg import mod` may name submodules
    for (const name of imp.names) {
      const sub = pyModuleFile(base || '.', imp.specifier ? `${imp.specifier}.${name}` : name, known);
      if (sub) out.push(sub);
    }
    if (out.length) break;
  }
  return out;
}

export function buildGraph(indexes: FileIndex[], packageList: PackageEntry[] = []): CodeGraph {
  const packages = new Map(packageList.map((p) => [p.dir, p]));
  const files = new Map(indexes.map((f) => [f.file, f]));
  const known = new Set(files.keys());
  const imports = new Map<string, Set<string>>();
  const byName = new Map<string, IndexedSpan[]>();
  const callsFrom = new Map<string, Set<string>>();

  for (const f of indexes) {
    const targets = new Set<string>();
    for (const imp of f.imports) {
      if (f.language === 'ts') {
        const r = resolveTs(f.file, imp.specifier, known, packages);
        if (r && r !== f.file) targets.add(r);
      } else {
        for (const r of resolvePy(f.file, imp, known)) if (r !== f.file) targets.add(r);
      }
    }
    imports.set(f.file, targets);
    for (const span of f.spans) {
      const list = byName.get(span.name) ?? [];
      list.push(span);
      byName.set(span.name, list);
    }
    for (const call of f.calls) {
      const key = spanKey({ file: f.file, symbol: call.from ?? '<module>' });
      const set = callsFrom.get(key) ?? new Set<string>();
      set.add(call.name);
      callsFrom.set(key, set);
    }
  }
  return { files, imports, byName, callsFrom };
}

/** Shortest import distance from any of `sources` to each reachable file (sources are 0). */
export function importDistances(graph: CodeGraph, sources: string[], maxDepth = 4): Map<string, number> {
  const dist = new Map<string, number>();
  let frontier = sources.filter((s) => graph.files.has(s));
  for (const s of frontier) dist.set(s, 0);
  for (let d = 1; d <= maxDepth && frontier.length; d += 1) {
    const next: string[] = [];
    for (const f of frontier) {
      for (const t of graph.imports.get(f) ?? []) {
        if (!dist.has(t)) {
          dist.set(t, d);
          next.push(t);
        }
      }
    }
    frontier = next;
  }
  return dist;
}

/**
 * Call distance by name from the given spans: 1 for what they call, 2 for what
 * those call, and so on. A name defined in several files is followed only into
 * files the callers can reach by imports.
 */
export function callDistances(graph: CodeGraph, sources: IndexedSpan[], reachable: Map<string, number>, maxDepth = 3): Map<string, number> {
  const dist = new Map<string, number>();
  let frontier = sources.map((s) => spanKey(s));
  const seen = new Set(frontier);
  for (let d = 1; d <= maxDepth && frontier.length; d += 1) {
    const next: string[] = [];
    for (const key of frontier) {
      for (const name of graph.callsFrom.get(key) ?? []) {
        const defs = graph.byName.get(name) ?? [];
        const inReach = defs.filter((s) => reachable.has(s.file));
        // Out of import reach, only a name defined exactly once is followed:
        // `get` or `push` would otherwise lead anywhere.
        for (const span of inReach.length ? inReach : defs.length === 1 ? defs : []) {
          const k = spanKey(span);
          if (seen.has(k)) continue;
          seen.add(k);
          dist.set(k, d);
          next.push(k);
        }
      }
    }
    frontier = next;
  }
  return dist;
}
