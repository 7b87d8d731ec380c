import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pySites, tsSites } from '../../../../agent/policies/offline/sites';
import type { Mutation, TemplateName } from '../../../../agent/policies/offline/model';
import { mutationsForSites } from '../../../../agent/policies/offline/templates';
import type { ExpectedActual } from '../../../../agent/types';

// The wider search's templates, one small source each: the candidate a
// template makes there, as the file reads after it.

const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

function applied(source: string, m: Mutation): string {
  return source.slice(0, m.range.start) + m.replacement + source.slice(m.range.end);
}

function expected(value: string): ExpectedActual[] {
  return [{ testId: 't::x', expected: value, actual: 'whatever' }];
}

function tsResults(source: string, evidence: ExpectedActual[] = []): Array<{ template: TemplateName; text: string }> {
  const sites = tsSites({ file: 'm.ts', text: source, start: 1, end: source.split('\n').length });
  return mutationsForSites({ sites, source, lang: 'ts', evidence }).map((m) => ({ template: m.template, text: applied(source, m) }));
}

async function pyResults(source: string, evidence: ExpectedActual[] = []): Promise<Array<{ template: TemplateName; text: string }>> {
  const root = await mkdtemp(path.join(tmpdir(), 'flowfix-templates-'));
  roots.push(root);
  await writeFile(path.join(root, 'm.py'), source);
  const sites = await pySites({ root, file: 'm.py', text: source, start: 1, end: source.split('\n').length });
  return mutationsForSites({ sites, source, lang: 'py', evidence }).map((m) => ({ template: m.template, text: applied(source, m) }));
}

function has(results: Array<{ template: TemplateName; text: string }>, template: TemplateName, text: string): void {
  const hit = results.find((r) => r.text === text);
  assert.ok(
    hit,
    `no candidate reads:\n${text}\ncandidates of ${template}:\n${results
      .filter((r) => r.template === template)
      .map((r) => r.text)
      .join('\n---\n')}`,
  );
  assert.equal(hit.template, template);
}

function hasNot(results: Array<{ template: TemplateName; text: string }>, text: string): void {
  assert.ok(!results.some((r) => r.text === text), `unexpected candidate:\n${text}`);
}

describe('TypeScript', () => {
  test('wrong variable: another variable in scope, never one declared after the site', () => {
    const src = `export function area(w: number, h: number): number {\n  const a = w * w;\n  const label = 'x';\n  return a;\n}\n`;
    const results = tsResults(src);
    has(results, 'wrong-variable', src.replace('w * w', 'w * h'));
    // `a` is declared by the statement itself, `label` is a string: neither replaces a number
    hasNot(results, src.replace('w * w', 'w * a'));
  });

  test('wrong field: a field the same object has elsewhere, or its interface declares', () => {
    const src = `interface Rect { width: number; height: number }\nexport function area(r: Rect): number {\n  return r.width * r.width;\n}\n`;
    has(tsResults(src), 'wrong-field', src.replace('r.width * r.width', 'r.width * r.height'));
  });

  test('wrong function among same-arity siblings, and built-in swaps', () => {
    const src = `function toCents(x: number): number {\n  return x * 100;\n}\nfunction toUnits(x: number): number {\n  return x / 100;\n}\nexport function price(v: number): number {\n  return Math.min(toCents(v), 500);\n}\nexport function isLabel(s: string): boolean {\n  return s.startsWith(':');\n}\n`;
    const results = tsResults(src);
    has(results, 'wrong-function', src.replace('Math.min(toCents(v)', 'Math.min(toUnits(v)'));
    has(results, 'builtin-function', src.replace('Math.min(', 'Math.max('));
    has(results, 'builtin-function', src.replace('s.startsWith', 's.endsWith'));
  });

  test('off by one in an index and a slice bound (literal bounds are boundary-literal’s)', () => {
    const src = `export function around(xs: number[], i: number, n: number): number[] {\n  return [xs[i], ...xs.slice(0, n)];\n}\n`;
    const results = tsResults(src);
    has(results, 'index-off-by-one', src.replace('xs[i]', 'xs[i - 1]'));
    has(results, 'index-off-by-one', src.replace('xs[i]', 'xs[i + 1]'));
    has(results, 'index-off-by-one', src.replace('slice(0, n)', 'slice(0, n + 1)'));
  });

  test('operand order where the operator does not commute: string concatenation', () => {
    const src = `export function title(name: string): string {\n  return name + ' (draft)';\n}\n`;
    has(tsResults(src), 'swap-operands', src.replace("name + ' (draft)'", "' (draft)' + name"));
  });

  test('a condition clause removed, or added from another condition of the function', () => {
    const src = `export function ok(a: number, b: number): boolean {\n  if (a > 0 && b > 0) return true;\n  if (b < 10) return false;\n  return a === b;\n}\n`;
    const results = tsResults(src);
    has(results, 'remove-clause', src.replace('if (a > 0 && b > 0)', 'if (a > 0)'));
    has(results, 'remove-clause', src.replace('if (a > 0 && b > 0)', 'if (b > 0)'));
    has(results, 'add-clause', src.replace('if (b < 10)', 'if (b < 10 && a > 0)'));
  });

  test('a null/empty guard in a condition, and at the function’s entry with the expected value', () => {
    const src = `export function firstName(users: Array<{ name: string }>): string {\n  const u = users.find((x) => x.name.length > 0);\n  return u ? u.name : '';\n}\n`;
    const results = tsResults(src, expected("'?'"));
    has(results, 'guard-clause', src.replace('(x) => x.name.length > 0', '(x) => x && x.name.length > 0'));
    has(results, 'entry-guard', src.replace('string {\n', "string {\n  if (users.length === 0) return '?';\n"));
  });

  test('a missing base case: a numeric parameter at 0 returns the expected value', () => {
    const src = `export function pageCount(total: number, size: number): number {\n  return Math.ceil(total / size);\n}\n`;
    const results = tsResults(src, expected('1'));
    has(results, 'base-case', src.replace('number {\n', 'number {\n  if (size === 0) return 1;\n'));
    has(results, 'base-case', src.replace('number {\n', 'number {\n  if (size <= 0) return 1;\n'));
  });

  test('a statement copied from similar code nearby, only where what it uses is in scope', () => {
    const src = `export function tally(xs: number[]): { sum: number; count: number } {\n  const t = { sum: 0, count: 0 };\n  for (const x of xs) {\n    if (x > 0) {\n      t.sum += x;\n      t.count += 1;\n    } else {\n      t.sum -= x;\n    }\n  }\n  return t;\n}\nexport function other(y: number): number {\n  console.log(y);\n  return y;\n}\n`;
    const results = tsResults(src);
    has(results, 'copy-statement', src.replace('      t.sum -= x;\n', '      t.sum -= x;\n      t.count += 1;\n'));
    // console.log(y) needs y, which tally does not have
    hasNot(results, src.replace('    if (x > 0) {\n', '    console.log(y);\n    if (x > 0) {\n'));
  });

  test('a deleted statement (never a declaration, never the final return)', () => {
    const src = `export function total(xs: number[], fee: number): number {\n  let sum = 0;\n  for (const x of xs) sum += x;\n  sum += fee;\n  return sum;\n}\n`;
    const results = tsResults(src);
    has(results, 'delete-statement', src.replace('  sum += fee;\n', ''));
    hasNot(results, src.replace('  let sum = 0;\n', ''));
    hasNot(results, src.replace('  return sum;\n', ''));
  });

  test('operators beyond comparisons: steps, bitwise, accumulate versus assign', () => {
    const src = `export function f(n: number, flags: number): number {\n  let acc = 0;\n  for (let i = n; i > 0; i--) acc = i;\n  return acc | flags;\n}\n`;
    const results = tsResults(src);
    has(results, 'other-operator', src.replace('i--', 'i++'));
    has(results, 'other-operator', src.replace('acc | flags', 'acc & flags'));
    has(results, 'other-operator', src.replace('acc = i', 'acc += i'));
  });
});

describe('Python', () => {
  test('wrong variable, wrong field, a same-arity method and a built-in swap', async () => {
    const src = `class Box:\n    def __init__(self, w, h):\n        self.w = w\n        self.h = h\n\n    def area(self):\n        return self.w * self.w\n\n    def grow(self, k):\n        return min(self.w + k, self.h)\n\n    def shrink(self, k):\n        return self.w - k\n\n    def resize(self, k):\n        return self.grow(k)\n`;
    const results = await pyResults(src);
    has(results, 'wrong-field', src.replace('self.w * self.w', 'self.w * self.h'));
    has(results, 'builtin-function', src.replace('min(self.w + k', 'max(self.w + k'));
    has(results, 'wrong-function', src.replace('self.grow(k)', 'self.shrink(k)'));
    has(results, 'wrong-variable', src.replace('        self.h = h\n', '        self.h = w\n'));
  });

  test('slice bounds, `in`/`not in`, and a clause dropped', async () => {
    const src = `def head(text, n, stop):\n    if n > 0 and text not in stop:\n        return text[:n]\n    return ""\n`;
    const results = await pyResults(src);
    has(results, 'index-off-by-one', src.replace('text[:n]', 'text[:n - 1]'));
    has(results, 'other-operator', src.replace('text not in stop', 'text in stop'));
    has(results, 'remove-clause', src.replace('if n > 0 and text not in stop:', 'if n > 0:'));
  });

  test('a guard in a comprehension’s filter, and at the entry (`if not xs: return …`)', async () => {
    const src = `def join_names(names, sep=", "):\n    """Names joined."""\n    return sep.join(n.strip() for n in names if n.strip())\n`;
    const results = await pyResults(src, expected("''"));
    has(results, 'guard-clause', src.replace('if n.strip())', 'if n and n.strip())'));
    // `names` is iterated: a collection, so the guard is `not names` (after the docstring)
    has(results, 'entry-guard', src.replace('"""Names joined."""\n', '"""Names joined."""\n    if not names:\n        return ""\n'));
  });

  test('a base case, a copied guard (re-indented) and a deleted statement', async () => {
    const src = `def pages(total, size):\n    return -(-total // size)\n\n\ndef mean(xs):\n    if not xs:\n        return 0\n    return sum(xs) / len(xs)\n\n\ndef spread(xs):\n    log = []\n    log.append(len(xs))\n    return max(xs) - min(xs)\n`;
    const results = await pyResults(src, expected('1'));
    has(results, 'base-case', src.replace('def pages(total, size):\n', 'def pages(total, size):\n    if size == 0:\n        return 1\n'));
    has(results, 'copy-statement', src.replace('    log = []\n', '    if not xs:\n        return 0\n    log = []\n'));
    has(results, 'delete-statement', src.replace('    log.append(len(xs))\n', ''));
  });
});

// The missing-case families seen on real public bugs: a value the code's test
// lets through (null in `typeof x === 'object'`, 0 where only None was meant),
// a comparison with a keyword in one letter case, the base class built where
// the instance's own class was meant.
describe('missing cases', () => {
  test('TypeScript: `typeof x === "object"` lets null through; a truthiness test rejects 0 and ""', () => {
    const src = `export function valueOf(key: any, dflt: number) {\n  if (typeof key === 'object' && typeof key.value !== 'undefined') return key.value;\n  if (dflt && key) return dflt;\n  return key;\n}\n`;
    const results = tsResults(src);
    has(results, 'null-check', src.replace("typeof key === 'object' &&", "typeof key === 'object' && key !== null &&"));
    has(results, 'null-check', src.replace('if (dflt && key)', 'if (dflt != null && key)'));
  });

  test('Python: `if key and …` treats 0 like None; `not x` likewise', async () => {
    const src = `def top(n, key=None):\n    if key and not callable(key):\n        return n\n    if not key:\n        return 0\n    return key(n)\n`;
    const results = await pyResults(src);
    has(results, 'null-check', src.replace('if key and not callable(key):', 'if key is not None and not callable(key):'));
    has(results, 'null-check', src.replace('if not key:', 'if key is None:'));
  });

  test('a keyword compared in one letter case is compared case-insensitively', async () => {
    const py = `def is_alias(tok):\n    if tok.value == 'AS':\n        return True\n    return False\n`;
    has(await pyResults(py), 'case-insensitive', py.replace("tok.value == 'AS'", "tok.value.upper() == 'AS'"));
    const ts = `export function isGet(method: string) {\n  return method === 'get';\n}\n`;
    has(tsResults(ts), 'case-insensitive', ts.replace("method === 'get'", "method.toLowerCase() === 'get'"));
  });

  test('a method that builds its own class builds the instance’s class (subclasses)', async () => {
    const py = `class Version:\n    def __init__(self, major):\n        self.major = major\n\n    def bump(self):\n        return Version(self.major + 1)\n\n    def same(self, other):\n        return isinstance(other, (Version, dict))\n`;
    const results = await pyResults(py);
    has(results, 'self-type', py.replace('return Version(self.major + 1)', 'return type(self)(self.major + 1)'));
    has(results, 'self-type', py.replace('(Version, dict)', '(type(self), dict)'));
    hasNot(results, py.replace('class Version:', 'class type(self):'));
    const js = `class Range {\n  constructor(a) { this.a = a; }\n  next() { return new Range(this.a + 1); }\n}\n`;
    const jsResults = mutationsForSites({ sites: tsSites({ file: 'm.js', text: js, start: 1, end: 4 }), source: js, lang: 'ts', evidence: [] }).map((m) => ({
      template: m.template,
      text: applied(js, m),
    }));
    has(jsResults, 'self-type', js.replace('new Range(this.a + 1)', 'new this.constructor(this.a + 1)'));
  });
});
