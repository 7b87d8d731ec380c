import type { CorpusBug, CorpusProject } from './types';

// Two small projects whose functions take options, for a plausible fix that
// makes an option dead (issue 35): the tests never pass the option, or only
// compare two code paths with each other, so a candidate that stops reading it
// passes them. Written for flowfix from scratch (the shapes, not any library's
// code). Each bug must end without a fix or with the right one; the held-out
// tests pin down the option the repository's own tests leave open.

const ts = (name: string) => `test::${name}`;

// ───── ts-glob: a matcher with a `windows` option, tested on POSIX paths only ─────

const MATCH_TS = `export interface MatchOptions {
  /** Windows paths: either slash separates, and names match whatever their case */
  windows?: boolean;
  /** letters match whatever their case */
  nocase?: boolean;
}

const SPECIAL = /[.+^\${}()|[\\]\\\\]/g;

export function globToRegExp(glob: string, options: MatchOptions = {}): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(SPECIAL, '\\\\$&');
  }
  return new RegExp(\`^\${source}$\`, options.nocase ? 'i' : '');
}

export function isMatch(name: string, glob: string, options: MatchOptions = {}): boolean {
  return globToRegExp(glob, options).test(name);
}

/** The last segment of a path (on POSIX a backslash is part of a name). */
export function basename(path: string): string {
  const parts = path.split('/');
  return parts[parts.length - 1] ?? '';
}

/** Does the path's last segment match the glob? */
export function matchBase(path: string, glob: string, options: MatchOptions = {}): boolean {
  return isMatch(basename(path), glob, options);
}
`;

const MATCH_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename, isMatch, matchBase } from '../src/match.ts';

test('matchBase matches the last segment', () => {
  assert.equal(matchBase('src/app.ts', '*.ts'), true);
  assert.equal(matchBase('src/lib/util.js', '*.ts'), false);
});

test('a backslash is part of a POSIX name', () => {
  assert.equal(basename('docs/notes\\\\draft.md'), 'notes\\\\draft.md');
  assert.equal(matchBase('docs/notes\\\\draft.md', 'notes*'), true);
});

test('names keep their case unless nocase', () => {
  assert.equal(matchBase('src/App.ts', 'App*'), true);
  assert.equal(isMatch('README.md', 'readme.md'), false);
  assert.equal(isMatch('README.md', 'readme.md', { nocase: true }), true);
});

test('question mark is one character', () => {
  assert.equal(isMatch('a1.txt', 'a?.txt'), true);
  assert.equal(isMatch('a12.txt', 'a?.txt'), false);
});
`;

export const tsGlob: CorpusProject = {
  name: 'ts-glob',
  language: 'typescript',
  files: {
    'package.json': '{ "name": "ts-glob", "private": true, "type": "module" }\n',
    'src/match.ts': MATCH_TS,
    'test/match.test.ts': MATCH_TEST,
  },
};

// ───── ts-env: an env-file parser with an \`options.fast\` switch ─────

const ENV_TS = `export interface ParseOptions {
  /** the one-pass parser: quicker, keeps everything after the = (no inline comments) */
  fast?: boolean;
  /** the file load() reads */
  path?: string;
}

export type Env = Record<string, string>;

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0]) return v.slice(1, -1);
  return v;
}

/** The careful parser: blank lines, comments (inline too), \`export \` prefixes, quotes. */
export function parseCareful(text: string): Env {
  const env: Env = {};
  for (const raw of text.split(/\\r?\\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const body = line.startsWith('export ') ? line.slice(7) : line;
    const eq = body.indexOf('=');
    if (eq <= 0) continue;
    const value = body.slice(eq + 1).replace(/\\s+#.*$/, '');
    env[body.slice(0, eq).trim()] = unquote(value);
  }
  return env;
}

/** The quick parser: one regular expression over the whole text. */
export function parseQuick(text: string): Env {
  const env: Env = {};
  for (const m of text.matchAll(/^[ \\t]*(?:export[ \\t]+)?([\\w.-]+)[ \\t]*=(.*)$/gm)) env[m[1]!] = unquote(m[2]!);
  return env;
}

export function parse(text: string, options: ParseOptions = {}): Env {
  return options.fast ? parseQuick(text) : parseCareful(text);
}

/** Where load() reads from. */
export function sourceOf(options: ParseOptions = {}): string {
  return options.path ?? '.env';
}
`;

const ENV_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, sourceOf } from '../src/env.ts';

const SAMPLE = \`# the service
export HOST=localhost
PORT = 8080
NAME="flow fix"
EMPTY=
\`;

test('the quick parser agrees with the careful one', () => {
  assert.deepEqual(parse(SAMPLE, { fast: true }), parse(SAMPLE));
});

test('values are unquoted and trimmed', () => {
  assert.deepEqual(parse(SAMPLE), { HOST: 'localhost', PORT: '8080', NAME: 'flow fix', EMPTY: '' });
});

test('the source defaults to .env', () => {
  assert.equal(sourceOf(), '.env');
  assert.equal(sourceOf({ path: 'prod.env' }), 'prod.env');
});
`;

export const tsEnv: CorpusProject = {
  name: 'ts-env',
  language: 'typescript',
  files: {
    'package.json': '{ "name": "ts-env", "private": true, "type": "module" }\n',
    'src/env.ts': ENV_TS,
    'test/env.test.ts': ENV_TEST,
  },
};

export const optionBugs: CorpusBug[] = [
  {
    id: 'ts-glob/windows-separators',
    project: 'ts-glob',
    kind: 'negated-condition',
    title: 'matchBase: Windows paths behind a `windows` option',
    description: 'On Windows either slash separates a path and names match whatever their case; POSIX paths are unchanged.',
    change: [
      {
        file: 'src/match.ts',
        replace: [
          [
            "/** The last segment of a path (on POSIX a backslash is part of a name). */\nexport function basename(path: string): string {\n  const parts = path.split('/');\n  return parts[parts.length - 1] ?? '';\n}",
            "/** The last segment of a path (on POSIX a backslash is part of a name). */\nexport function basename(path: string, options: MatchOptions = {}): string {\n  let name = path.slice(path.lastIndexOf('/') + 1);\n  if (!options.windows) name = name.slice(name.lastIndexOf('\\\\') + 1).toLowerCase();\n  return name;\n}",
          ],
          ['  return isMatch(basename(path), glob, options);', '  return isMatch(basename(path, options), glob, options);'],
        ],
      },
    ],
    failingTests: [ts('a backslash is part of a POSIX name'), ts('names keep their case unless nocase')],
    truth: { file: 'src/match.ts', symbol: 'basename' },
    offlineFixable: true,
    // the negation goes; deleting the whole Windows line passes the tests too, but leaves `windows` unread
    fix: 'remove-negation',
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { basename, matchBase } from '../src/match.ts';\n\ntest('Windows paths split on either slash and ignore case', () => {\n  assert.equal(basename('C:\\\\Users\\\\Ada\\\\Notes.TXT', { windows: true }), 'notes.txt');\n  assert.equal(matchBase('C:\\\\src/App.TS', 'app*', { windows: true }), true);\n  assert.equal(matchBase('x\\\\y', 'x*'), true);\n});\n",
      },
    ],
  },
  {
    id: 'ts-env/fast-comments',
    project: 'ts-env',
    kind: 'wrong-literal',
    title: 'parse: comment lines never reach the quick parser',
    description: 'Comment lines are the slow part of the quick pattern; parse drops them before it.',
    change: [
      {
        file: 'src/env.ts',
        replace: [
          [
            '  return options.fast ? parseQuick(text) : parseCareful(text);',
            "  if (options.fast) return parseQuick(text.split('\\n').filter((line) => !line.trimStart().startsWith('#')).join(''));\n  return parseCareful(text);",
          ],
        ],
      },
    ],
    failingTests: [ts('the quick parser agrees with the careful one')],
    truth: { file: 'src/env.ts', symbol: 'parse' },
    // the lines must be joined by newlines again (no template writes that string); reading options.path
    // instead of options.fast, or deleting the fast line, passes the tests but makes `fast` dead
    offlineFixable: false,
    fix: null,
    heldOut: [
      {
        file: 'test/heldout.test.ts',
        content:
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { parse } from '../src/env.ts';\n\ntest('fast reads export lines and keeps what follows the =', () => {\n  assert.equal(parse('export HOST=db\\n', { fast: true }).HOST, 'db');\n  assert.equal(parse('A=1 # one\\n', { fast: true }).A, '1 # one');\n  assert.equal(parse('A=1 # one\\n').A, '1');\n});\n",
      },
    ],
  },
];
