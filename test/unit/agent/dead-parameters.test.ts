import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { findDeadParameters, optionsReadBy } from '@/agent/filters/dead-parameters';
import { untestedOptionsSentence } from '@/agent/filters/fix-parameters';

// Each case is a function before and after a candidate fix: what the fix
// stops reading (a parameter, an option of an options-like parameter) is
// reported; what it keeps reading, or never read, is not.

const GLOB_BEFORE = `export interface MatchOptions { windows?: boolean; nocase?: boolean }
export function basename(path: string, options: MatchOptions = {}): string {
  const parts = options.windows ? path.toLowerCase().split(/[\\\\/]/) : path.toLowerCase().split('/');
  return parts[parts.length - 1] ?? '';
}
export function matchBase(path: string, glob: string, options: MatchOptions = {}): boolean {
  return new RegExp(glob, options.nocase ? 'i' : '').test(basename(path, options));
}
`;

describe('dead parameters', () => {
  test('an option the fix stops reading is dead (opts.windows)', () => {
    const after = GLOB_BEFORE.replace(
      "const parts = options.windows ? path.toLowerCase().split(/[\\\\/]/) : path.toLowerCase().split('/');",
      "const parts = path.split('/');",
    );
    const found = findDeadParameters('src/match.ts', GLOB_BEFORE, after);
    assert.deepEqual(
      found.map((f) => [f.fn, f.name, f.replacedBy]),
      [['basename', 'options.windows', undefined]],
    );
    assert.match(found[0]!.detail, /basename no longer reads options\.windows/);
  });

  test('an option read under another name of the same object (options.fast → options.path)', () => {
    const before = `export function parse(text: string, options: { fast?: boolean; path?: string } = {}) {
  return options.fast ? fastParse(text) : slowParse(text, options.path);
}`;
    const after = before.replace('return options.fast ?', 'return options.path ?');
    const found = findDeadParameters('src/env.ts', before, after);
    assert.deepEqual(
      found.map((f) => [f.fn, f.name, f.replacedBy]),
      [['parse', 'options.fast', 'options.path']],
    );
    assert.match(found[0]!.detail, /reads options\.path instead/);
  });

  test('an option whose branches the fix made the same is read for nothing: dead', () => {
    const before = `export function parse(text: string, options: { fast?: boolean } = {}) {
  return options.fast ? quick(text) : careful(text);
}
export function pick(text: string, options: { fast?: boolean } = {}) {
  if (options.fast) return quick(text);
  else return careful(text);
}`;
    const after = before.replace('options.fast ? quick(text)', 'options.fast ? careful(text)').replace('return quick(text);', 'return careful(text);');
    assert.deepEqual(
      findDeadParameters('src/env.ts', before, after).map((f) => [f.fn, f.name]),
      [
        ['parse', 'options.fast'],
        ['pick', 'options.fast'],
      ],
    );
  });

  test('a destructured option and a plain parameter the fix stops reading', () => {
    const before = `const split = (path, { windows, dot = false } = {}) => {
  const parts = windows ? path.split(/[\\\\/]/) : path.split('/');
  return dot ? parts : parts.filter((p) => !p.startsWith('.'));
};
function pad(text, width) {
  return text.padStart(width);
}`;
    const after = before
      .replace("const parts = windows ? path.split(/[\\\\/]/) : path.split('/');", 'const parts = path.split(/[\\\\/]/);')
      .replace('text.padStart(width)', 'text');
    const found = findDeadParameters('lib/split.js', before, after);
    assert.deepEqual(
      found.map((f) => [f.fn, f.name]),
      [
        ['split', 'windows'],
        ['pad', 'width'],
      ],
    );
  });

  test('an option read through a destructuring in the body counts only while its name is read', () => {
    const before = `export function load(file: string, opts: { fast?: boolean } = {}) {
  const { fast } = opts;
  return fast ? quick(file) : careful(file);
}`;
    const after = before.replace('return fast ? quick(file) : careful(file);', 'return careful(file);');
    assert.deepEqual(
      findDeadParameters('src/load.ts', before, after).map((f) => f.name),
      ['opts.fast'],
    );
  });

  test('a fix that keeps every parameter and option in use is clean', () => {
    const after = GLOB_BEFORE.replace(": path.toLowerCase().split('/');", ": path.split('/');");
    assert.deepEqual(findDeadParameters('src/match.ts', GLOB_BEFORE, after), []);
  });

  test('a wrong field swapped for the right one, the old one still read elsewhere, is clean', () => {
    const before = `export function pick(o: { a: number; b: number }, options: { first?: boolean; last?: boolean } = {}) {
  if (options.first) return o.a;
  return options.first ? o.b : o.a;
}`;
    const after = before.replace('return options.first ? o.b : o.a;', 'return options.last ? o.b : o.a;');
    assert.deepEqual(findDeadParameters('src/pick.ts', before, after), []);
  });

  test('properties of a parameter that is not options-like are not options', () => {
    // text.trim → text.trimStart is a fix of which method, not a dead option
    const before = `export function clean(text: string) { return text.trim(); }`;
    const after = `export function clean(text: string) { return text.trimStart(); }`;
    assert.deepEqual(findDeadParameters('src/clean.ts', before, after), []);
  });

  test('functions the fix did not touch are not compared; a parameter never read before is not dead', () => {
    const before = `function a(x, options = {}) { return x; }
function b(y, options = {}) { return options.flag ? y : -y; }`;
    const after = `function a(x, options = {}) { return x + 1; }
function b(y, options = {}) { return options.flag ? y : -y; }`;
    assert.deepEqual(findDeadParameters('src/ab.js', before, after), []);
  });

  test('a method of a class is named by its class; a shadowing inner parameter does not count as a read', () => {
    const before = `export class Matcher {
  match(path: string, options: { windows?: boolean } = {}) {
    return options.windows ? path.split('\\\\') : path.split('/');
  }
}`;
    const after = `export class Matcher {
  match(path: string, options: { windows?: boolean } = {}) {
    return [path].map((options) => options).flatMap((p) => p.split('/'));
  }
}`;
    assert.deepEqual(
      findDeadParameters('src/matcher.ts', before, after).map((f) => [f.fn, f.name]),
      [['Matcher.match', 'options.windows']],
    );
  });

  test('a parameter renamed or destructured in its place is still read: not dead (negotiator: preferred → opts → { preferred })', () => {
    const before = `Negotiator.prototype.encoding = function encoding(available, preferred) {
  var set = this.encodings(available, preferred);
  return set && set[0];
};
Negotiator.prototype.encodings = function encodings(available, preferred) {
  return preferredEncodings(this.request.headers['accept-encoding'], available, preferred);
};
`;
    const after = `Negotiator.prototype.encoding = function encoding(available, opts) {
  var set = this.encodings(available, opts);
  return set && set[0];
};
Negotiator.prototype.encodings = function encodings(available, { preferred } = {}) {
  return preferredEncodings(this.request.headers['accept-encoding'], available, preferred);
};
`;
    assert.deepEqual(findDeadParameters('index.js', before, after), []);
    // renamed and then never read: dead under its old name
    const unread = after.replace('var set = this.encodings(available, opts);', 'var set = this.encodings(available);');
    assert.deepEqual(
      findDeadParameters('index.js', before, unread).map((f) => [f.fn, f.name]),
      [['encoding', 'preferred']],
    );
  });

  test('anonymous callbacks the fix reorders are not compared by their order (camelcase: two replace() callbacks swapped)', () => {
    const before = `const postProcess = (input, toUpperCase) => {
  return input.replace(SEPARATORS, (_, identifier) => toUpperCase(identifier))
    .replace(NUMBERS, m => toUpperCase(m));
};
`;
    const after = `const postProcess = (input, toUpperCase) => {
  return input.replace(NUMBERS, (match, pattern, offset) => ['_', '-'].includes(input.charAt(offset + match.length)) ? match : toUpperCase(match))
    .replace(SEPARATORS, (_, identifier) => toUpperCase(identifier));
};
`;
    assert.deepEqual(findDeadParameters('index.js', before, after), []);
  });

  test('unparsable or non-JS sources give no finding', () => {
    assert.deepEqual(findDeadParameters('src/a.py', 'def f(x):\n  return x\n', 'def f(x):\n  return 1\n'), []);
  });
});

describe('the options a function reads', () => {
  test('options of options-like parameters and destructured ones, by function', () => {
    const src = `export function basename(path: string, options: { windows?: boolean } = {}) {
  return options.windows ? path.split('\\\\').pop() : path.split('/').pop();
}
export const parse = (text, { fast, strict: exact } = {}) => (fast ? text : exact ? text.trim() : text);`;
    assert.deepEqual(optionsReadBy('src/x.ts', src, ['basename', 'parse']), ['windows', 'fast', 'strict']);
    assert.deepEqual(optionsReadBy('src/x.ts', src, ['parse']), ['fast', 'strict']);
  });
});

describe('the summary sentence on options no test passes', () => {
  test('one option, several, none; names are escaped', () => {
    assert.equal(
      untestedOptionsSentence(['windows']),
      '<p>The tests never pass <code>windows</code>: its behaviour is not pinned down by them, so check the fix by hand there.</p>',
    );
    assert.match(
      untestedOptionsSentence(['fast', 'strict', 'a<b']),
      /never pass <code>fast<\/code>, <code>strict<\/code> or <code>a&lt;b<\/code>: their behaviour/,
    );
    assert.equal(untestedOptionsSentence([]), '');
  });
});
