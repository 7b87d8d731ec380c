import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { tsSites } from '../../../../agent/policies/offline/sites';
import type { Mutation, TemplateName } from '../../../../agent/policies/offline/model';
import { mutationsForSites } from '../../../../agent/policies/offline/templates';

// restore-return and real-condition (restore.ts): a value thrown away where a
// return is missing, a literal condition where a real test is missing. The
// candidates come from the code under repair alone.

function applied(source: string, m: Mutation): string {
  return source.slice(0, m.range.start) + m.replacement + source.slice(m.range.end);
}

function results(source: string, template: TemplateName): Array<{ text: string; prior: number }> {
  const sites = tsSites({ file: 'm.ts', text: source, start: 1, end: source.split('\n').length });
  return mutationsForSites({ sites, source, lang: 'ts', evidence: [] })
    .filter((m) => m.template === template)
    .sort((a, b) => b.prior - a.prior)
    .map((m) => ({ text: applied(source, m), prior: m.prior }));
}

describe('restore-return', () => {
  test('a discarded call in a function with a declared return type gets its return back', () => {
    const src = 'export function f(x: number): number {\n  if (x > 0) {\n    g(x);\n  }\n  return 0;\n}\nfunction g(x: number) { return x * 2; }\n';
    const out = results(src, 'restore-return');
    assert.ok(
      out.some((r) => r.text.includes('    return g(x);\n')),
      JSON.stringify(out),
    );
  });

  test('a discarded pure value where the other paths return one', () => {
    const src = 'export function pick(a: string[], i: number) {\n  if (i < 0) return undefined;\n  a[i];\n}\n';
    const out = results(src, 'restore-return');
    assert.equal(out[0]?.text, 'export function pick(a: string[], i: number) {\n  if (i < 0) return undefined;\n  return a[i];\n}\n');
  });

  test('not in void functions, constructors, nor for assignments, updates or directives', () => {
    for (const src of [
      'export function log(x: number): void {\n  g(x);\n}\n',
      'export function run(x: number) {\n  g(x);\n  x = 2;\n}\n',
      'export class A {\n  n = 0;\n  constructor() {\n    g(1);\n  }\n}\n',
      'export function f(x: number): number {\n  "use strict";\n  x++;\n  x += 1;\n  return x;\n}\n',
      'export async function f(): Promise<void> {\n  await g(1);\n}\n',
    ]) {
      assert.deepEqual(results(src, 'restore-return'), [], src);
    }
  });

  test('a pure value ranks above a call that may be there for its effect', () => {
    const src = 'export function f(x: number): number {\n  g(x);\n  x + 1;\n}\nfunction g(x: number) { return x; }\n';
    const out = results(src, 'restore-return');
    assert.match(out[0].text, /return x \+ 1;/);
    assert.ok(out.some((r) => /return g\(x\);/.test(r.text)));
  });
});

describe('real-condition', () => {
  test('a literal in an else-if chain: the sibling branch conditions and the names the branch reads', () => {
    const src = [
      'export function kind(n: number, label: string | null): string {',
      '  if (n < 0) return "negative";',
      '  else if (true) return label;',
      '  return "other";',
      '}',
      '',
    ].join('\n');
    const out = results(src, 'real-condition').map((r) => r.text.split('\n')[2]);
    assert.ok(out.includes('  else if (label) return label;'), JSON.stringify(out));
    assert.ok(out.includes('  else if (n >= 0) return label;'), JSON.stringify(out));
    assert.ok(!out.some((l) => l.includes('!(true)') || l.includes('(false)')));
  });

  test('a boolean parameter for a forced-false condition, and the negated condition of the other branch', () => {
    const src =
      'export function f(xs: number[], strict: boolean): number {\n  if (xs.length === 0) return 0;\n  if (false) throw new Error("x");\n  return xs[0];\n}\n';
    const out = results(src, 'real-condition').map((r) => r.text.split('\n')[2]);
    assert.ok(out.includes('  if (strict) throw new Error("x");'), JSON.stringify(out));
    assert.ok(out.includes('  if (xs.length !== 0) throw new Error("x");'), JSON.stringify(out));
  });

  test('while, ternary and logical operands that are literals', () => {
    const loop = 'export function f(xs: number[]): number {\n  let i = 0;\n  while (false) i++;\n  return i < xs.length ? i : -1;\n}\n';
    assert.ok(results(loop, 'real-condition').some((r) => r.text.includes('while (i < xs.length) i++;')));
    const ternary = 'export function f(a: number, b: number): number {\n  if (a > b) return a;\n  return true ? a : b;\n}\n';
    assert.ok(results(ternary, 'real-condition').some((r) => r.text.includes('return a > b ? a : b;')));
    const and = 'export function f(a: string | null, b: boolean): boolean {\n  return true && b;\n}\n';
    assert.ok(
      results(and, 'real-condition').some((r) => r.text.includes('return a && b;') || r.text.includes('return b && b;') || r.text.includes('return !b && b;')),
    );
  });

  test('no literal condition, no candidate; and no double negation of a literal', () => {
    const src = 'export function f(a: number): number {\n  if (a > 0) return 1;\n  return 0;\n}\n';
    assert.deepEqual(results(src, 'real-condition'), []);
    const lit = 'export function f(a: number): number {\n  if (true) return a;\n  return 0;\n}\n';
    const idiom = 'export function f(xs: number[]): number {\n  let i = 0;\n  while (true) {\n    if (i >= xs.length) break;\n    i++;\n  }\n  return i;\n}\n';
    assert.deepEqual(results(idiom, 'real-condition'), [], 'while (true) is an idiom');
    const sites = tsSites({ file: 'm.ts', text: lit, start: 1, end: 5 });
    assert.ok(
      !mutationsForSites({ sites, source: lit, lang: 'ts', evidence: [] }).some((m) => m.template === 'negate-condition' && m.replacement.includes('true')),
    );
  });
});

describe('negate-condition', () => {
  test('a name or a call is negated without parentheses; a compound condition with them', () => {
    const src =
      'export function f(file: string, a: number): boolean {\n  if (exists(file)) return false;\n  if (a > 1 && a < 3) return true;\n  return false;\n}\n';
    const out = results(src, 'negate-condition').map((r) => r.text);
    assert.ok(
      out.some((t) => t.includes('  if (!exists(file)) return false;')),
      JSON.stringify(out),
    );
    assert.ok(
      out.some((t) => t.includes('  if (!(a > 1 && a < 3)) return true;')),
      JSON.stringify(out),
    );
  });
});
