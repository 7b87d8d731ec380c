import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { tsSites } from '../../../../agent/policies/offline/sites';
import type { Mutation, TemplateName } from '../../../../agent/policies/offline/model';
import { mutationsForSites } from '../../../../agent/policies/offline/templates';

// restore-await (restore.ts): an `await` removed before a call whose promise
// is then used as a value (Stryker-style mutants, and a common slip). Which
// calls give a promise comes from the file itself: an async function declared
// there, or a callee the file awaits elsewhere.

function applied(source: string, m: Mutation): string {
  return source.slice(0, m.range.start) + m.replacement + source.slice(m.range.end);
}

function results(source: string, template: TemplateName): string[] {
  const sites = tsSites({ file: 'm.ts', text: source, start: 1, end: source.split('\n').length });
  return mutationsForSites({ sites, source, lang: 'ts', evidence: [] })
    .filter((m) => m.template === template)
    .sort((a, b) => b.prior - a.prior)
    .map((m) => applied(source, m));
}

describe('restore-await', () => {
  test('a call to an async function of the file used as a value in an async function gets its await back', () => {
    const src = [
      'async function load(id: string): Promise<{ name: string }> {',
      '  return { name: id };',
      '}',
      'export async function title(id: string): Promise<string> {',
      '  const user = load(id);',
      '  return user.name.toUpperCase();',
      '}',
      '',
    ].join('\n');
    const out = results(src, 'restore-await');
    assert.equal(out[0], src.replace('const user = load(id);', 'const user = await load(id);'));
  });

  test('a method the file awaits elsewhere, used as a property access', () => {
    const src = [
      'export class Repo {',
      '  constructor(private db: { get(k: string): Promise<{ n: number }> }) {}',
      '  async first(): Promise<number> {',
      "    const a = await this.db.get('a');",
      '    return a.n;',
      '  }',
      '  async second(): Promise<number> {',
      "    return (this.db.get('b')).n + 1;",
      '  }',
      '}',
      '',
    ].join('\n');
    const out = results(src, 'restore-await');
    assert.ok(out.includes(src.replace("(this.db.get('b')).n", "(await this.db.get('b')).n")), JSON.stringify(out));
  });

  test('a return of an async call inside try in an async function', () => {
    const src = [
      'async function fetchIt(): Promise<number> { throw new Error("x"); }',
      'export async function safe(): Promise<number> {',
      '  try {',
      '    return fetchIt();',
      '  } catch {',
      '    return -1;',
      '  }',
      '}',
      '',
    ].join('\n');
    const out = results(src, 'restore-await');
    assert.ok(out.includes(src.replace('return fetchIt();', 'return await fetchIt();')), JSON.stringify(out));
  });

  test('not outside async functions, not for calls already awaited, not for calls nothing marks as async', () => {
    for (const src of [
      'async function load() { return 1; }\nexport function f() {\n  const x = load();\n  return x;\n}\n',
      'async function load() { return 1; }\nexport async function f() {\n  const x = await load();\n  return x + 1;\n}\n',
      'function add(a: number, b: number) { return a + b; }\nexport async function f() {\n  const x = add(1, 2);\n  return x + 1;\n}\n',
    ]) {
      assert.deepEqual(results(src, 'restore-await'), [], src);
    }
  });
});
