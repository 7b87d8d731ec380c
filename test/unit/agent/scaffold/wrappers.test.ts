import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localise } from '../../../../agent/scaffold/index';
import { buildSpectrum } from '../../../../agent/coverage/spectrum';
import type { Evidence } from '../../../../agent/types';

// The wrapper rule (agent/scaffold/rank.ts): a thin function whose body
// mostly delegates to a larger function the failing tests also ran ranks
// below that function. Layouts as css-what and hosted-git-info lay them out
// (not their code): the failing test calls the thin entry point, the fault is
// in the function it delegates to.

const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'flowfix-wrappers-'));
  roots.push(root);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  return root;
}

function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `needle ${needle} not found`);
  return i + 1;
}

function evidence(partial: Partial<Evidence>): Evidence {
  return { failingTests: [], messages: [], expectedActual: [], frames: [], symbols: [], ...partial };
}

// css-what: parse() checks what parseSelector() consumed; parseSelector() does the work (and holds the fault)
const CSS_PARSE = `function isWhitespace(c) {
  return c === 32 || c === 9 || c === 10;
}

function parseSelector(subselects, selector, start) {
  let tokens = [];
  let i = start;
  while (i < selector.length) {
    const c = selector.charCodeAt(i);
    if (isWhitespace(c)) {
      tokens.push({ type: 'descendant' });
      i += 1;
    } else if (c === 91) {
      const end = selector.indexOf(']', i);
      const [name, value] = selector.slice(i + 1, end).split('=');
      tokens.push({ type: 'attribute', name, value: value.slice(1) });
      i = end + 1;
    } else {
      let j = i;
      while (j < selector.length && !isWhitespace(selector.charCodeAt(j)) && selector[j] !== '[') j += 1;
      tokens.push({ type: 'tag', name: selector.slice(i, j) });
      i = j;
    }
  }
  subselects.push(tokens);
  return i;
}

function parse(selector) {
  const subselects = [];
  const endIndex = parseSelector(subselects, \`\${selector}\`, 0);
  if (endIndex < selector.length) {
    throw new Error(\`Unmatched selector: \${selector.slice(endIndex)}\`);
  }
  return subselects;
}

module.exports = { parse };
`;
const CSS_TEST = `const { parse } = require('../src/parse');

test('parses an attribute', () => {
  expect(parse('[a=b]')).toEqual([[{ type: 'attribute', name: 'a', value: 'b' }]]);
});

test('parses a tag', () => {
  expect(parse('div')).toEqual([[{ type: 'tag', name: 'div' }]]);
});
`;

// hosted-git-info: GitHost.fromUrl() caches what the parser in from-url.js returns
const HGI_INDEX = `const parseFromUrl = require('./from-url.js');

const cache = new Map();

class GitHost {
  constructor(type, user, project) {
    this.type = type;
    this.user = user;
    this.project = project;
  }

  static fromUrl(giturl, opts) {
    if (typeof giturl !== 'string') return undefined;
    const key = giturl + JSON.stringify(opts || {});
    if (!cache.has(key)) {
      const args = parseFromUrl(giturl, opts);
      cache.set(key, args ? new GitHost(...args) : undefined);
    }
    return cache.get(key);
  }
}

module.exports = GitHost;
`;
const HGI_FROM_URL = `const shorthand = /^[\\w-]+\\/[\\w.-]+$/;

function parseFromUrl(giturl, opts) {
  if (!giturl) return null;
  let url = giturl;
  if (shorthand.test(url)) url = 'github:' + url;
  const protocol = url.slice(0, url.indexOf(':') + 1);
  let rest = url.slice(protocol.length).replace(/^\\/\\//, '');
  if (protocol === 'git+ssh:') {
    rest = rest.slice(rest.indexOf('@'));
  }
  let host = 'github';
  if (rest.startsWith('github.com/') || rest.startsWith('github.com:')) {
    rest = rest.slice(11);
  } else if (rest.startsWith('gitlab.com/') || rest.startsWith('gitlab.com:')) {
    host = 'gitlab';
    rest = rest.slice(11);
  } else if (rest.startsWith('bitbucket.org/')) {
    host = 'bitbucket';
    rest = rest.slice(14);
  }
  const parts = rest.replace(/\\.git$/, '').split('/');
  if (parts.length < 2) return null;
  const [user, project] = parts;
  if (opts && opts.noCommittish) return [host, user, project];
  return [host, user, project];
}

module.exports = parseFromUrl;
`;
const HGI_TEST = `const t = require('tap');
const GitHost = require('../lib/index.js');

t.test('git+ssh urls', (t) => {
  t.equal(GitHost.fromUrl('git+ssh://git@github.com/a/b.git').user, 'a');
  t.end();
});

t.test('shorthand', (t) => {
  t.equal(GitHost.fromUrl('a/b').user, 'a');
  t.end();
});
`;

/** Every line of the named spans' bodies, as a coverage run would record them for the failing test. */
function ranLines(text: string, from: string, to: string): Set<number> {
  const out = new Set<number>();
  for (let l = lineOf(text, from); l <= lineOf(text, to); l += 1) out.add(l);
  return out;
}

describe('a thin wrapper ranks below the function it delegates to', () => {
  test('css-what (jest): parseSelector does the work parse() only checks; the helper it calls stays below it', async () => {
    const root = await project({ 'src/parse.js': CSS_PARSE, '__tests__/parse.spec.js': CSS_TEST, 'package.json': '{"main":"src/parse.js"}' });
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [
          {
            id: '__tests__/parse.spec.js::parses an attribute',
            name: 'parses an attribute',
            file: '__tests__/parse.spec.js',
            message: 'expect(received).toEqual(expected)',
          },
        ],
        messages: ['expect(received).toEqual(expected)'],
        frames: [{ file: path.join(root, '__tests__/parse.spec.js'), line: lineOf(CSS_TEST, "expect(parse('[a=b]'))"), fn: 'Object.<anonymous>' }],
      }),
      editedSpans: [],
      k: 5,
    });
    const names = suspects.map((s) => s.symbol);
    assert.equal(names[0], 'parseSelector', names.join(', '));
    assert.ok(names.indexOf('parse') > 0, names.join(', '));
    assert.ok(
      suspects[0].reasons.some((r) => r.includes('does the work of parse')),
      suspects[0].reasons.join('; '),
    );
    const wrapper = suspects.find((s) => s.symbol === 'parse');
    assert.ok(
      wrapper?.reasons.some((r) => r.includes('thin wrapper of parseSelector')),
      wrapper?.reasons.join('; '),
    );
    // isWhitespace is called by parseSelector but does not do its work: no lift
    const helper = suspects.find((s) => s.symbol === 'isWhitespace');
    assert.ok(!helper || names.indexOf('isWhitespace') > names.indexOf('parseSelector'));
    assert.ok(!helper?.reasons.some((r) => r.includes('does the work')));
  });

  test('css-what with coverage that cannot tell them apart (failing lines only): the rule still orders them', async () => {
    const root = await project({ 'src/parse.js': CSS_PARSE, '__tests__/parse.spec.js': CSS_TEST, 'package.json': '{"main":"src/parse.js"}' });
    const lines = new Map([
      [
        'src/parse.js',
        new Set([...ranLines(CSS_PARSE, 'function isWhitespace', 'return i;'), ...ranLines(CSS_PARSE, 'function parse(selector)', 'return subselects;')]),
      ],
    ]);
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [
          {
            id: '__tests__/parse.spec.js::parses an attribute',
            name: 'parses an attribute',
            file: '__tests__/parse.spec.js',
            message: 'expect(received).toEqual(expected)',
          },
        ],
        frames: [{ file: '__tests__/parse.spec.js', line: lineOf(CSS_TEST, "expect(parse('[a=b]'))"), fn: 'Object.<anonymous>' }],
      }),
      editedSpans: [],
      coverage: buildSpectrum([{ failed: true, lines }]),
      k: 5,
    });
    const names = suspects.map((s) => s.symbol);
    assert.equal(names[0], 'parseSelector', names.join(', '));
    assert.ok(names.indexOf('parse') > 0, names.join(', '));
  });

  test('hosted-git-info (node-tap 16): the cached GitHost.fromUrl ranks below the parser it calls, with and without coverage', async () => {
    const files = { 'lib/index.js': HGI_INDEX, 'lib/from-url.js': HGI_FROM_URL, 'test/parse-url.js': HGI_TEST, 'package.json': '{"main":"lib/index.js"}' };
    const failing = evidence({
      failingTests: [{ id: 'test/parse-url.js::git+ssh urls', name: 'git+ssh urls', file: 'test/parse-url.js', message: 'should be equal' }],
      messages: ['should be equal'],
      frames: [{ file: 'test/parse-url.js', line: lineOf(HGI_TEST, "GitHost.fromUrl('git+ssh"), fn: 'Test.<anonymous>' }],
    });
    const root = await project(files);
    const plain = await localise({ root, evidence: failing, editedSpans: [], k: 5 });
    const order = plain.map((s) => s.symbol);
    assert.equal(order[0], 'parseFromUrl', order.join(', '));
    assert.ok(order.indexOf('GitHost.fromUrl') > 0, order.join(', '));

    // coverage from a failing run and a passing run: both ran the wrapper whole; the git+ssh branch only the failing one
    const wrapper = ranLines(HGI_INDEX, 'static fromUrl', 'return cache.get(key);');
    const parserAll = ranLines(HGI_FROM_URL, 'function parseFromUrl', 'return [host, user, project];');
    const sshBranch = lineOf(HGI_FROM_URL, 'rest = rest.slice(rest.indexOf');
    const passingParser = new Set([...parserAll].filter((l) => l !== sshBranch));
    const coverage = buildSpectrum([
      {
        failed: true,
        lines: new Map([
          ['lib/index.js', wrapper],
          ['lib/from-url.js', parserAll],
        ]),
      },
      {
        failed: false,
        lines: new Map([
          ['lib/index.js', wrapper],
          ['lib/from-url.js', passingParser],
        ]),
      },
    ]);
    const covered = await localise({ root, evidence: failing, editedSpans: [], coverage, k: 5 });
    assert.equal(covered[0].symbol, 'parseFromUrl', covered.map((s) => s.symbol).join(', '));
    assert.ok(
      covered[0].reasons.some((r) => r.startsWith('Ochiai 1.00')),
      covered[0].reasons.join('; '),
    );
    assert.ok(covered.findIndex((s) => s.symbol === 'GitHost.fromUrl') > 0);
  });

  test('a function that does its own work is not a wrapper: a long caller keeps its rank over a short callee', async () => {
    const root = await project({ 'src/parse.js': CSS_PARSE, '__tests__/parse.spec.js': CSS_TEST });
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [{ id: '__tests__/parse.spec.js::parses a tag', name: 'parses a tag', file: '__tests__/parse.spec.js', message: 'boom' }],
        frames: [
          { file: 'src/parse.js', line: lineOf(CSS_PARSE, "tokens.push({ type: 'tag'"), fn: 'parseSelector' },
          { file: '__tests__/parse.spec.js', line: lineOf(CSS_TEST, "expect(parse('div'))"), fn: 'Object.<anonymous>' },
        ],
      }),
      editedSpans: [],
      k: 5,
    });
    assert.equal(suspects[0].symbol, 'parseSelector');
    assert.ok(suspects.every((s) => !s.reasons.some((r) => r.includes('thin wrapper of isWhitespace'))));
  });
});
