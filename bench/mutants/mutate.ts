// The mutants of one source file: Stryker's instrumenter (9.x, the last line
// whose engines allow Node 20) for the operators it has, and a few classic
// operators it does not have (off-by-one constants, swapped arguments, a
// removed `return` or `await`, a wrong property), written over the
// TypeScript compiler API. Each mutant is one replacement of a span of the
// original text, so applying it is a string splice.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import ts from 'typescript';

export interface Mutant {
  /** stable within a file: the operator and the span */
  id: string;
  file: string;
  operator: string;
  /** character offsets in the original text */
  start: number;
  end: number;
  original: string;
  replacement: string;
  /** 1-based line of the span's start */
  line: number;
  /**
   * a higher-order mutant's first-order mutations, in text order; the mutant
   * itself is then the one span from the first's start to the second's end
   * with both applied, so it applies as a single splice like any other
   */
  parts?: Mutant[];
}

/** 1 for a single mutation, 2 for a pair. */
export function orderOf(m: Pick<Mutant, 'parts'>): number {
  return m.parts?.length ?? 1;
}

/**
 * Stryker's operators kept: the classic ones the issue names (relational and
 * equality with the boundary `<`↔`<=`, `&&`↔`||`, conditions forced
 * true/false, negations dropped) and their arithmetic/unary/update kin.
 * Left out: whole-block removal and string/object/array/regex literal
 * replacement, which mostly break messages and fixtures rather than logic.
 */
export const STRYKER_OPERATORS = [
  'EqualityOperator',
  'LogicalOperator',
  'ConditionalExpression',
  'BooleanLiteral',
  'ArithmeticOperator',
  'UnaryOperator',
  'UpdateOperator',
  'OptionalChaining',
  'MethodExpression',
  'AssignmentOperator',
] as const;

export const OWN_OPERATORS = ['OffByOneConstant', 'SwappedArguments', 'RemovedReturn', 'RemovedAwait', 'WrongProperty'] as const;

const quietLogger = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => true,
  isFatalEnabled: () => true,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (...args: unknown[]) => process.stderr.write(`stryker: ${args.join(' ')}\n`),
  fatal: (...args: unknown[]) => process.stderr.write(`stryker: ${args.join(' ')}\n`),
};

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Stryker's mutants of many files in one pass (its positions: 0-based lines and columns). */
export async function strykerMutants(files: Array<{ file: string; text: string }>): Promise<Mutant[]> {
  // @stryker-mutator/api's Logger has more members than the instrumenter calls
  const instrumenter = new Instrumenter(quietLogger as unknown as ConstructorParameters<typeof Instrumenter>[0]);
  const excluded = [
    'ArithmeticOperator',
    'ArrayDeclaration',
    'ArrowFunction',
    'AssignmentOperator',
    'BlockStatement',
    'BooleanLiteral',
    'ConditionalExpression',
    'EqualityOperator',
    'LogicalOperator',
    'MethodExpression',
    'ObjectLiteral',
    'OptionalChaining',
    'Regex',
    'StringLiteral',
    'UnaryOperator',
    'UpdateOperator',
  ].filter((name) => !(STRYKER_OPERATORS as readonly string[]).includes(name));
  const result = await instrumenter.instrument(
    files.map((f) => ({ name: f.file, content: f.text, mutate: true })),
    { plugins: null, excludedMutations: excluded, ignorers: [], noHeader: true },
  );
  const byFile = new Map(files.map((f) => [f.file, { text: f.text, starts: lineStarts(f.text) }]));
  const out: Mutant[] = [];
  for (const m of result.mutants) {
    const src = byFile.get(m.fileName);
    if (!src || m.statusReason || !(STRYKER_OPERATORS as readonly string[]).includes(m.mutatorName)) continue;
    const start = src.starts[m.location.start.line] + m.location.start.column;
    const end = src.starts[m.location.end.line] + m.location.end.column;
    const original = src.text.slice(start, end);
    if (original === m.replacement) continue;
    out.push({
      id: `${m.mutatorName}@${start}-${end}:${m.replacement}`,
      file: m.fileName,
      operator: m.mutatorName,
      start,
      end,
      original,
      replacement: m.replacement,
      line: lineOf(src.starts, start),
    });
  }
  return out;
}

/**
 * The operators Stryker has no mutator for (it has none for constants,
 * argument order, dropped `return`/`await` or property names), over the
 * TypeScript AST of the file.
 */
export function ownMutants(file: string, text: string): Mutant[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const starts = lineStarts(text);
  const out: Mutant[] = [];
  const add = (operator: string, start: number, end: number, replacement: string) => {
    const original = text.slice(start, end);
    if (original !== replacement)
      out.push({ id: `${operator}@${start}-${end}:${replacement}`, file, operator, start, end, original, replacement, line: lineOf(starts, start) });
  };
  // a method call's name is not a property read (`a.push(x)` has no wrong-property twin here)
  const isCallee = (node: ts.Node) => ts.isCallExpression(node.parent) && node.parent.expression === node;
  // property names read off each receiver ("opts" → {limit, offset}): a wrong property is another one of them
  const propsOf = new Map<string, Set<string>>();
  const collect = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name) && !isCallee(node)) {
      const receiver = node.expression.getText(sf);
      const set = propsOf.get(receiver) ?? new Set<string>();
      set.add(node.name.text);
      propsOf.set(receiver, set);
    }
    ts.forEachChild(node, collect);
  };
  collect(sf);
  const typeOnly = (node: ts.Node): boolean => {
    for (let n: ts.Node | undefined = node; n; n = n.parent) {
      if (
        ts.isTypeNode(n) ||
        ts.isEnumMember(n) ||
        ts.isImportDeclaration(n) ||
        ts.isExportDeclaration(n) ||
        ts.isTypeAliasDeclaration(n) ||
        ts.isInterfaceDeclaration(n)
      )
        return true;
    }
    return false;
  };
  const visit = (node: ts.Node): void => {
    if (typeOnly(node)) return;
    if (ts.isNumericLiteral(node) && /^\d+$/.test(node.text) && !ts.isPropertyAssignment(node.parent)) {
      const n = Number(node.text);
      if (Number.isSafeInteger(n)) {
        add('OffByOneConstant', node.getStart(sf), node.end, String(n + 1));
        if (n > 0) add('OffByOneConstant', node.getStart(sf), node.end, String(n - 1));
      }
    }
    if (ts.isCallExpression(node) && node.arguments.length >= 2) {
      const [a, b] = node.arguments;
      const at = a.getText(sf);
      const bt = b.getText(sf);
      if (at !== bt && !ts.isSpreadElement(a) && !ts.isSpreadElement(b)) add('SwappedArguments', a.getStart(sf), b.end, `${bt}, ${at}`);
    }
    if (ts.isReturnStatement(node) && node.expression && ts.isBlock(node.parent)) {
      // `return x;` → `x;`: the function goes on and returns whatever comes after (often undefined)
      add('RemovedReturn', node.getStart(sf), node.expression.getStart(sf), '');
    }
    if (ts.isAwaitExpression(node) && !ts.isExpressionStatement(node.parent)) {
      add('RemovedAwait', node.getStart(sf), node.expression.getStart(sf), '');
    }
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.name) &&
      !isCallee(node) &&
      !(ts.isBinaryExpression(node.parent) && node.parent.left === node)
    ) {
      const others = [...(propsOf.get(node.expression.getText(sf)) ?? [])].filter((p) => p !== node.name.text).sort();
      if (others.length) add('WrongProperty', node.name.getStart(sf), node.name.end, others[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** A Python function, method or class, named as the product's Python index names it (agent/python/helper.py). */
export interface PySpan {
  symbol: string;
  kind: 'function' | 'method' | 'class';
  startLine: number;
  endLine: number;
}

const PY_MUTANTS = fileURLToPath(new URL('./python-mutants.py', import.meta.url));
const pyCache = new Map<string, { mutants: Mutant[]; spans: PySpan[] }>();

/**
 * The same operators over a Python file (python-mutants.py, Python's own
 * ast: Stryker reads no Python), and the file's function spans. Our own
 * fixed repositories' sources only: the script parses, it runs nothing.
 */
export function pythonMutants(file: string, text: string): { mutants: Mutant[]; spans: PySpan[] } {
  const hit = pyCache.get(text);
  if (hit) return { mutants: hit.mutants.map((m) => ({ ...m, file })), spans: hit.spans };
  const run = spawnSync('python3', [PY_MUTANTS], { input: text, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`python-mutants.py on ${file}: ${run.error?.message ?? run.stderr.trim().split('\n').pop()}`);
  const parsed = JSON.parse(run.stdout) as { mutants: Array<Omit<Mutant, 'file'>>; spans: PySpan[] };
  const out = { mutants: parsed.mutants.map((m) => ({ ...m, file })), spans: parsed.spans };
  pyCache.set(text, out);
  return out;
}

/** The file's text with one mutant applied. */
export function applyMutant(text: string, m: Pick<Mutant, 'start' | 'end' | 'original' | 'replacement'>): string {
  if (text.slice(m.start, m.end) !== m.original) throw new Error(`mutant does not match the text at ${m.start}-${m.end}`);
  return text.slice(0, m.start) + m.replacement + text.slice(m.end);
}

/**
 * Second-order mutants: two first-order mutants of the same named function
 * (`functionOf` names it; mutants it names nothing for are left out) whose
 * spans do not overlap, paired in the seeded order: each mutant, in `random`'s
 * shuffle of the file's mutants, with the next unpaired one of its function.
 * Each first-order mutant is in at most one pair, so a function's pairs are
 * spread over its mutants rather than all sharing the first one.
 */
export function higherOrderMutants(text: string, mutants: readonly Mutant[], functionOf: (m: Mutant) => string | null, random: () => number): Mutant[] {
  const order = shuffled(
    [...mutants].sort((a, b) => a.id.localeCompare(b.id)),
    random,
  );
  const fn = new Map(order.map((m) => [m, functionOf(m)]));
  const used = new Set<Mutant>();
  const out: Mutant[] = [];
  for (const a of order) {
    if (used.has(a) || fn.get(a) === null) continue;
    const b = order.find((m) => m !== a && !used.has(m) && fn.get(m) === fn.get(a) && (m.end <= a.start || a.end <= m.start));
    if (!b) continue;
    used.add(a);
    used.add(b);
    const [first, second] = a.start < b.start ? [a, b] : [b, a];
    const original = text.slice(first.start, second.end);
    const replacement = first.replacement + text.slice(first.end, second.start) + second.replacement;
    out.push({
      id: `${first.id}+${second.id}`,
      file: a.file,
      operator: `${first.operator}+${second.operator}`,
      start: first.start,
      end: second.end,
      original,
      replacement,
      line: first.line,
      parts: [first, second],
    });
  }
  return out;
}

/** mulberry32: a small seeded generator, so a seed names one sample. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
