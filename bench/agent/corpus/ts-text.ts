import type { CorpusBug, CorpusProject } from './types';

// Text helpers in TypeScript: slugs, truncation, initials, greetings, lists, wrapping.

export const tsText: CorpusProject = {
  name: 'ts-text',
  language: 'typescript',
  files: {
    'package.json': '{ "name": "ts-text", "private": true, "type": "module" }\n',
    'src/slug.ts': `export function slugify(title: string, maxLength = 40): string {
  const words = title
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
  let out = '';
  for (const word of words) {
    const next = out ? out + '-' + word : word;
    if (next.length > maxLength) break;
    out = next;
  }
  return out;
}
`,
    'src/truncate.ts': `export function truncate(text: string, max: number, ellipsis = '…'): string {
  if (text.length <= max) return text;
  return text.slice(0, max - ellipsis.length) + ellipsis;
}

export function initials(name: string): string {
  return name
    .split(' ')
    .filter((part) => part.length > 0)
    .map((part) => part[0].toUpperCase())
    .join('');
}
`,
    'src/greet.ts': `export function greeting(name: string, hour: number): string {
  const part = hour < 12 ? 'morning' : hour < 18 ? 'afternoon' : 'evening';
  return 'Good ' + part + ', ' + name + '!';
}

export function listNames(names: string[]): string {
  if (names.length === 0) return 'nobody';
  if (names.length === 1) return names[0];
  return names.slice(0, -1).join(', ') + ' and ' + names[names.length - 1];
}
`,
    'src/wrap.ts': `export function wordWrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? line + ' ' + word : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}
`,
    'test/text.test.ts': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/slug.ts';
import { initials, truncate } from '../src/truncate.ts';
import { wordWrap } from '../src/wrap.ts';

test('slugify lowercases and joins words', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
});

test('slugify stops at the max length', () => {
  assert.equal(slugify('one two three', 7), 'one-two');
  assert.equal(slugify('abc', 3), 'abc');
});

test('truncate keeps short text', () => {
  assert.equal(truncate('hello', 5), 'hello');
});

test('truncate adds an ellipsis', () => {
  assert.equal(truncate('hello world', 8), 'hello w…');
});

test('initials takes first letters', () => {
  assert.equal(initials('ada  lovelace'), 'AL');
});

test('wordWrap breaks at the width', () => {
  assert.deepEqual(wordWrap('the quick brown fox', 10), ['the quick', 'brown fox']);
  assert.deepEqual(wordWrap('a b', 3), ['a b']);
});
`,
    'test/greet.test.ts': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { greeting, listNames } from '../src/greet.ts';

test('greeting depends on the hour', () => {
  assert.equal(greeting('Ann', 9), 'Good morning, Ann!');
  assert.equal(greeting('Ann', 12), 'Good afternoon, Ann!');
  assert.equal(greeting('Ann', 18), 'Good evening, Ann!');
});

test('listNames joins with and', () => {
  assert.equal(listNames(['a', 'b', 'c']), 'a, b and c');
  assert.equal(listNames([]), 'nobody');
  assert.equal(listNames(['a']), 'a');
});
`,
  },
};

const id = (name: string) => `test::${name}`;

export const tsTextBugs: CorpusBug[] = [
  {
    id: 'ts-text/slug-length',
    project: 'ts-text',
    kind: 'off-by-one',
    title: 'slugify: custom separator',
    description: 'Some routes want underscores; add a separator parameter.',
    change: [
      {
        file: 'src/slug.ts',
        replace: [
          [
            'export function slugify(title: string, maxLength = 40): string {',
            "export function slugify(title: string, maxLength = 40, separator = '-'): string {",
          ],
          [
            "    const next = out ? out + '-' + word : word;\n    if (next.length > maxLength) break;",
            '    const next = out ? out + separator + word : word;\n    if (next.length >= maxLength) break;',
          ],
        ],
      },
    ],
    failingTests: [id('slugify stops at the max length')],
    truth: { file: 'src/slug.ts', symbol: 'slugify' },
    offlineFixable: true,
    fix: 'relational-operator',
  },
  {
    id: 'ts-text/greeting-noon',
    project: 'ts-text',
    kind: 'wrong-operator',
    title: 'Greeting: say good night before 5am',
    description: 'Night owls get a night greeting.',
    change: [
      {
        file: 'src/greet.ts',
        replace: [
          [
            "  const part = hour < 12 ? 'morning' : hour < 18 ? 'afternoon' : 'evening';",
            "  const part = hour < 5 ? 'night' : hour <= 12 ? 'morning' : hour < 18 ? 'afternoon' : 'evening';",
          ],
        ],
      },
      { file: 'test/greet.test.ts', append: "\ntest('greeting at night', () => {\n  assert.equal(greeting('Ann', 3), 'Good night, Ann!');\n});\n" },
    ],
    failingTests: [id('greeting depends on the hour')],
    truth: { file: 'src/greet.ts', symbol: 'greeting' },
    offlineFixable: true,
    fix: 'relational-operator',
  },
  {
    id: 'ts-text/initials-particles',
    project: 'ts-text',
    kind: 'wrong-logical',
    title: 'initials: skip name particles',
    description: "'Ludwig van Beethoven' should give LB, not LVB.",
    change: [
      {
        file: 'src/truncate.ts',
        replace: [
          [
            'export function initials(name: string): string {',
            "const PARTICLES = ['van', 'von', 'de', 'der', 'da'];\n\nexport function initials(name: string): string {",
          ],
          ['    .filter((part) => part.length > 0)', '    .filter((part) => part.length > 0 || !PARTICLES.includes(part))'],
        ],
      },
      { file: 'test/text.test.ts', append: "\ntest('initials skips particles', () => {\n  assert.equal(initials('Ludwig van Beethoven'), 'LB');\n});\n" },
    ],
    failingTests: [id('initials takes first letters'), id('initials skips particles')],
    truth: { file: 'src/truncate.ts', symbol: 'initials' },
    offlineFixable: true,
    fix: 'logical-operator',
  },
  {
    id: 'ts-text/truncate-negated',
    project: 'ts-text',
    kind: 'negated-condition',
    title: 'truncate: tiny limits',
    description: 'A limit shorter than the ellipsis returns part of the ellipsis.',
    change: [
      {
        file: 'src/truncate.ts',
        replace: [
          [
            '  if (text.length <= max) return text;\n  return text.slice',
            '  if (!(text.length <= max)) return text;\n  if (max <= ellipsis.length) return ellipsis.slice(0, max);\n  return text.slice',
          ],
        ],
      },
    ],
    failingTests: [id('truncate keeps short text'), id('truncate adds an ellipsis')],
    truth: { file: 'src/truncate.ts', symbol: 'truncate' },
    offlineFixable: true,
    fix: 'remove-negation',
  },
  {
    id: 'ts-text/join-swapped',
    project: 'ts-text',
    kind: 'swapped-args',
    title: 'listNames: share a joinWith helper',
    description: 'Extracts the "a, b and c" join so the invoice footer can use it too.',
    change: [
      {
        file: 'src/greet.ts',
        replace: [
          [
            "  return names.slice(0, -1).join(', ') + ' and ' + names[names.length - 1];\n}",
            "  return joinWith(names, ' and ', ', ');\n}\n\nexport function joinWith(items: string[], separator: string, last: string): string {\n  return items.slice(0, -1).join(separator) + last + items[items.length - 1];\n}",
          ],
        ],
      },
    ],
    failingTests: [id('listNames joins with and')],
    truth: { file: 'src/greet.ts', symbol: 'listNames' },
    offlineFixable: true,
    fix: 'swap-arguments',
  },
  {
    id: 'ts-text/wrap-empty',
    project: 'ts-text',
    kind: 'wrong-return',
    title: 'wordWrap: empty text',
    description: 'Blank input gives no lines at all.',
    change: [
      { file: 'src/wrap.ts', replace: [['  const lines: string[] = [];\n', "  if (text.trim() === '') return [''];\n  const lines: string[] = [];\n"]] },
      { file: 'test/text.test.ts', append: "\ntest('wordWrap of blank text is empty', () => {\n  assert.deepEqual(wordWrap('   ', 10), []);\n});\n" },
    ],
    failingTests: [id('wordWrap of blank text is empty')],
    truth: { file: 'src/wrap.ts', symbol: 'wordWrap' },
    offlineFixable: false,
    fix: null,
  },
  {
    id: 'ts-text/greeting-stale',
    project: 'ts-text',
    kind: 'stale-expectation',
    title: 'Warmer greeting',
    description: 'Product asked for a warmer tone in the header greeting.',
    change: [{ file: 'src/greet.ts', replace: [["  return 'Good ' + part + ', ' + name + '!';", "  return 'Have a good ' + part + ', ' + name + '!';"]] }],
    failingTests: [id('greeting depends on the hour')],
    truth: { file: 'test/greet.test.ts', symbol: 'greeting depends on the hour' },
    offlineFixable: true,
    fix: 'stale-expectation',
  },
  {
    id: 'ts-text/slug-accents-missing',
    project: 'ts-text',
    kind: 'missing-logic',
    title: 'slugify: accented titles',
    description: "'Café crème' should give 'cafe-creme'.",
    change: [
      { file: 'test/text.test.ts', append: "\ntest('slugify folds accents', () => {\n  assert.equal(slugify('Café crème'), 'cafe-creme');\n});\n" },
      { file: 'src/slug.ts', replace: [['export function slugify(', '// Accents are folded to ASCII before splitting.\nexport function slugify(']] },
    ],
    failingTests: [id('slugify folds accents')],
    truth: { file: 'src/slug.ts', symbol: 'slugify' },
    offlineFixable: false,
    fix: null,
  },
];
