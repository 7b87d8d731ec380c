import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localise, indexWorkspace } from '../../../../agent/scaffold/index';
import { listSourceFiles } from '../../../../agent/scaffold/files';
import type { Evidence } from '../../../../agent/types';

const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'flowfix-scaffold-'));
  roots.push(root);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  return root;
}

function evidence(partial: Partial<Evidence>): Evidence {
  return { failingTests: [], messages: [], expectedActual: [], frames: [], symbols: [], ...partial };
}

function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `needle ${needle} not found`);
  return i + 1;
}

const TS_PRICE = `export function parsePrice(text: string): number {
  const value = Number(text.replace('$', ''));
  if (Number.isNaN(value)) throw new Error('not a price: ' + text);
  return value;
}

export function formatPrice(cents: number): string {
  return '$' + (cents / 100).toFixed(2);
}
`;
const TS_CART = `import { parsePrice, formatPrice } from './price.js';

export interface Item { name: string; price: string; qty: number }

export function total(items: Item[]): number {
  let sum = 0;
  for (const item of items) sum += parsePrice(item.price) * item.qty;
  return sum;
}

export class Cart {
  items: Item[] = [];
  add(item: Item): void { this.items.push(item); }
  describe(): string { return formatPrice(total(this.items) * 100); }
}
`;
const TS_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total, Cart } from '../src/cart.js';

test('total sums price times quantity', () => {
  assert.equal(total([{ name: 'a', price: '$2', qty: 3 }]), 6);
});

test('describe formats the total', () => {
  const cart = new Cart();
  cart.add({ name: 'a', price: '$2', qty: 1 });
  assert.equal(cart.describe(), '$2.00');
});
`;

describe('localise: TypeScript', () => {
  test("the stack frame's function ranks first, with the frame as its reason", async () => {
    const root = await project({ 'src/price.ts': TS_PRICE, 'src/cart.ts': TS_CART, 'test/cart.test.ts': TS_TEST, 'package.json': '{}' });
    const throwLine = lineOf(TS_PRICE, 'throw new Error');
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [{ id: 'test::total sums price times quantity', name: 'total sums price times quantity', message: 'not a price: $2' }],
        messages: ['not a price: $2'],
        // V8 order: innermost first, absolute paths as the runner prints them
        frames: [
          { file: path.join(root, 'src/price.ts'), line: throwLine, fn: 'parsePrice' },
          { file: 'src/cart.ts', line: lineOf(TS_CART, 'sum += parsePrice'), fn: 'total' },
          { file: 'test/cart.test.ts', line: lineOf(TS_TEST, 'assert.equal(total'), fn: 'TestContext.<anonymous>' },
        ],
      }),
      // the change also touched formatPrice, which is not on the stack
      editedSpans: [{ file: 'src/price.ts', startLine: lineOf(TS_PRICE, "return '$'"), endLine: lineOf(TS_PRICE, "return '$'") }],
    });
    assert.equal(suspects.length, 3);
    assert.equal(suspects[0].file, 'src/price.ts');
    assert.equal(suspects[0].symbol, 'parsePrice');
    assert.equal(suspects[0].kind, 'function');
    assert.ok(suspects[0].reasons.includes(`stack frame src/price.ts:${throwLine} (parsePrice)`), suspects[0].reasons.join('; '));
    assert.equal(suspects[1].symbol, 'total', 'the caller on the stack comes next');
    assert.ok(suspects[0].score > suspects[1].score);
  });

  test("with no frames outside the test, the change's edited span ranks first", async () => {
    const root = await project({ 'src/price.ts': TS_PRICE, 'src/cart.ts': TS_CART, 'test/cart.test.ts': TS_TEST });
    const edited = lineOf(TS_CART, 'sum += parsePrice');
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [
          { id: 'test::total sums price times quantity', name: 'total sums price times quantity', message: 'Expected values to be strictly equal:\n\n5 !== 6' },
        ],
        expectedActual: [{ testId: 'test::total sums price times quantity', expected: '6', actual: '5' }],
        frames: [{ file: 'test/cart.test.ts', line: lineOf(TS_TEST, 'assert.equal(total'), fn: 'TestContext.<anonymous>' }],
      }),
      editedSpans: [{ file: 'src/cart.ts', startLine: edited, endLine: edited }],
    });
    assert.equal(suspects[0].file, 'src/cart.ts');
    assert.equal(suspects[0].symbol, 'total');
    assert.ok(
      suspects[0].reasons.some((r) => r.startsWith('edited by the change')),
      suspects[0].reasons.join('; '),
    );
    assert.ok(suspects[0].reasons.includes('called by the failing test'));
  });

  test('methods are qualified by their class and found through the failing test', async () => {
    const root = await project({ 'src/price.ts': TS_PRICE, 'src/cart.ts': TS_CART, 'test/cart.test.ts': TS_TEST });
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [{ id: 'test::describe formats the total', name: 'describe formats the total', message: "'$2.0' !== '$2.00'" }],
        frames: [{ file: 'test/cart.test.ts', line: lineOf(TS_TEST, 'cart.describe()'), fn: 'TestContext.<anonymous>' }],
      }),
      editedSpans: [],
      k: 10,
    });
    const names = suspects.map((s) => s.symbol);
    assert.ok(names.includes('Cart.describe'), names.join(', '));
    const describeSuspect = suspects.find((s) => s.symbol === 'Cart.describe');
    assert.equal(describeSuspect?.kind, 'method');
    assert.ok(describeSuspect?.reasons.includes('called by the failing test'));
    assert.ok(!names.includes('total sums price times quantity'), 'a passing test case is not a suspect');
  });
});

const PY_PRICE = `def parse_price(text):
    value = float(text.replace("$", ""))
    if value < 0:
        raise ValueError("negative price: " + text)
    return value


def format_price(cents):
    return "$%.2f" % (cents / 100)
`;
const PY_CART = `from .price import parse_price, format_price


def total(items):
    s = 0
    for item in items:
        s += parse_price(item["price"]) * item["qty"]
    return s


class Cart:
    def __init__(self):
        self.items = []

    def describe(self):
        return format_price(total(self.items) * 100)
`;
const PY_TEST = `from shop.cart import total, Cart


def test_total():
    assert total([{"price": "$2", "qty": 3}]) == 6


def test_describe():
    c = Cart()
    c.items.append({"price": "$2", "qty": 1})
    assert c.describe() == "$2.00"
`;

describe('localise: Python', () => {
  test("the traceback's innermost function ranks first", async () => {
    const root = await project({ 'shop/__init__.py': '', 'shop/price.py': PY_PRICE, 'shop/cart.py': PY_CART, 'tests/test_cart.py': PY_TEST });
    const raiseLine = lineOf(PY_PRICE, 'raise ValueError');
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [{ id: 'tests.test_cart::test_total', name: 'test_total', message: 'ValueError: negative price: $2' }],
        frames: [
          { file: 'shop/price.py', line: raiseLine, fn: 'parse_price' },
          { file: 'shop/cart.py', line: lineOf(PY_CART, 's += parse_price'), fn: 'total' },
          { file: 'tests/test_cart.py', line: lineOf(PY_TEST, 'assert total'), fn: 'test_total' },
        ],
        symbols: ['parse_price', 'total', 'test_total'],
      }),
      editedSpans: [{ file: 'shop/price.py', startLine: lineOf(PY_PRICE, 'return "$%.2f"'), endLine: lineOf(PY_PRICE, 'return "$%.2f"') }],
    });
    assert.equal(suspects[0].file, 'shop/price.py');
    assert.equal(suspects[0].symbol, 'parse_price');
    assert.ok(suspects[0].reasons.includes(`stack frame shop/price.py:${raiseLine} (parse_price)`), suspects[0].reasons.join('; '));
    assert.equal(suspects[1].symbol, 'total');
  });

  test("with no frames outside the test, the change's edited method ranks first", async () => {
    const root = await project({ 'shop/__init__.py': '', 'shop/price.py': PY_PRICE, 'shop/cart.py': PY_CART, 'tests/test_cart.py': PY_TEST });
    const edited = lineOf(PY_CART, 'return format_price');
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [{ id: 'tests.test_cart::test_describe', name: 'test_describe', message: "AssertionError: assert '$2.0' == '$2.00'" }],
        expectedActual: [{ testId: 'tests.test_cart::test_describe', expected: "'$2.00'", actual: "'$2.0'" }],
        frames: [{ file: 'tests/test_cart.py', line: lineOf(PY_TEST, 'assert c.describe()'), fn: 'test_describe' }],
      }),
      editedSpans: [{ file: 'shop/cart.py', startLine: edited, endLine: edited }],
    });
    assert.equal(suspects[0].symbol, 'Cart.describe');
    assert.equal(suspects[0].kind, 'method');
    assert.equal(suspects[0].file, 'shop/cart.py');
    assert.ok(suspects[0].reasons.some((r) => r.startsWith('edited by the change')));
    // the class enclosing the edit ranks below its method
    const cls = suspects.find((s) => s.symbol === 'Cart');
    if (cls) assert.ok(cls.score < suspects[0].score);
  });

  test('a Python file that does not parse is skipped, the rest still ranks', async () => {
    const root = await project({
      'shop/__init__.py': '',
      'shop/price.py': PY_PRICE,
      'shop/broken.py': 'def oops(:\n',
      'shop/cart.py': PY_CART,
      'tests/test_cart.py': PY_TEST,
    });
    const index = await indexWorkspace({ root });
    assert.match(index.errors['shop/broken.py'] ?? '', /SyntaxError/);
    assert.ok(index.graph.imports.get('tests/test_cart.py')?.has('shop/cart.py'), 'absolute import resolved');
    assert.ok(index.graph.imports.get('shop/cart.py')?.has('shop/price.py'), 'relative import resolved');
  });
});

describe('localise: other languages and hygiene', () => {
  test('frames in other languages become line windows', async () => {
    const go = Array.from({ length: 30 }, (_, i) => `// line ${i + 1}`).join('\n');
    const root = await project({ 'pkg/calc.go': go, 'pkg/calc_test.go': go });
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [{ id: 'pkg::TestAdd', name: 'TestAdd', message: 'got 3 want 4' }],
        frames: [{ file: 'pkg/calc.go', line: 12 }],
      }),
      editedSpans: [{ file: 'pkg/calc.go', startLine: 14, endLine: 14 }],
    });
    assert.equal(suspects.length, 1, 'overlapping windows merge');
    assert.deepEqual(
      { file: suspects[0].file, kind: suspects[0].kind, startLine: suspects[0].startLine, endLine: suspects[0].endLine },
      { file: 'pkg/calc.go', kind: 'window', startLine: 7, endLine: 17 },
    );
    assert.ok(suspects[0].reasons.includes('stack frame pkg/calc.go:12'));
  });

  test('dependency, build and virtualenv folders are not indexed', async () => {
    const root = await project({
      'src/a.ts': 'export function total() { return 1; }\n',
      'node_modules/dep/index.js': 'export function total() { return 2; }\n',
      'dist/a.js': 'export function total() { return 1; }\n',
      '.venv/lib/x.py': 'def total():\n    return 1\n',
      'venv/lib/y.py': 'def total():\n    return 1\n',
      'app/__pycache__/z.py': 'def total():\n    return 1\n',
      'app/m.py': 'def total():\n    return 1\n',
    });
    const files = await listSourceFiles({ root });
    assert.deepEqual(files, { ts: ['src/a.ts'], py: ['app/m.py'], packages: [] });
  });

  test("in a git checkout, what git ignores is not source: a build's copies (css-what's lib/) are never suspects; a new file is", async () => {
    const root = await project({
      '.gitignore': 'lib/\n*.gen.ts\n',
      'package.json': '{"name":"x"}',
      'src/parse.ts': 'export function parse() {}\n',
      'lib/commonjs/parse.js': 'function parse() {}\n',
      'lib/es/parse.js': 'function parse() {}\n',
      'src/table.gen.ts': 'export const t = 1;\n',
    });
    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['add', '.gitignore', 'package.json', 'src/parse.ts'], { cwd: root });
    // a file the candidate wrote and git was not told of yet still counts
    await writeFile(path.join(root, 'src/added.ts'), 'export const a = 1;\n');
    const files = await listSourceFiles({ root });
    assert.deepEqual(files, { ts: ['src/added.ts', 'src/parse.ts'], py: [], packages: ['package.json'] });
  });
});

describe('localise: libraries whose tests import the package root', () => {
  const LIBS = path.join(process.cwd(), 'test/fixtures/agent-libs');

  test("require('..') and require('.') reach the library source through package.json main", async () => {
    const { graph } = await indexWorkspace({ root: path.join(LIBS, 'slug-main') });
    assert.deepEqual([...(graph.imports.get('test/slugify.js') ?? [])], ['lib/index.js']);
    assert.deepEqual([...(graph.imports.get('test.js') ?? [])], ['lib/index.js']);
    assert.deepEqual([...(graph.imports.get('lib/index.js') ?? [])], ['lib/slugify.js']);
  });

  test('a package importing itself by name resolves through package.json exports', async () => {
    const { graph } = await indexWorkspace({ root: path.join(LIBS, 'slug-exports') });
    assert.deepEqual([...(graph.imports.get('test.js') ?? [])], ['src/main.js']);
  });

  test("the library's function, not the example with the same name, is the first suspect", async () => {
    const root = path.join(LIBS, 'slug-main');
    const testFile = readFileSync(path.join(root, 'test/slugify.js'), 'utf8');
    const suspects = await localise({
      root,
      evidence: evidence({
        failingTests: [
          { id: 'test/slugify.js::a custom separator', name: 'a custom separator', file: 'test/slugify.js', message: "'hello-world' !== 'hello_world'" },
        ],
        frames: [{ file: 'test/slugify.js', line: lineOf(testFile, "slugify('Hello World', '_')"), fn: 'TestContext.<anonymous>' }],
      }),
      editedSpans: [],
    });
    assert.equal(suspects[0]?.file, 'lib/slugify.js', JSON.stringify(suspects, null, 1));
    assert.equal(suspects[0].symbol, 'slugify');
    // suspects are where a fix may go: no test case, no file of the tests
    assert.deepEqual(
      suspects.filter((s) => s.file.startsWith('test')),
      [],
      JSON.stringify(suspects, null, 1),
    );
  });

  test("the failing test's own case ranks only when the change contradicts its expectation", async () => {
    const root = path.join(LIBS, 'slug-main');
    const testFile = readFileSync(path.join(root, 'test/slugify.js'), 'utf8');
    const line = lineOf(testFile, "slugify('Hello World', '_')");
    const input = {
      root,
      evidence: evidence({
        failingTests: [
          { id: 'test/slugify.js::a custom separator', name: 'a custom separator', file: 'test/slugify.js', message: "'hello-world' !== 'hello_world'" },
        ],
        frames: [{ file: 'test/slugify.js', line, fn: 'TestContext.<anonymous>' }],
      }),
      editedSpans: [{ file: 'test/slugify.js', startLine: line - 1, endLine: line + 1 }],
      k: 10,
    };
    const production = await localise(input);
    assert.ok(
      production.every((s) => !s.file.startsWith('test')),
      JSON.stringify(production, null, 1),
    );
    const stale = await localise({ ...input, keepFailingTests: true });
    assert.ok(
      stale.some((s) => s.file === 'test/slugify.js' && s.symbol === 'a custom separator'),
      JSON.stringify(stale, null, 1),
    );
    assert.ok(stale.every((s) => s.file !== 'test/slugify.js' || s.symbol === 'a custom separator'));
  });
});

describe('spans: CommonJS assignments are functions with names', () => {
  test('module.exports = function, exports.x = function, X.prototype.y = arrow', async () => {
    const { indexTsFile } = await import('../../../../agent/scaffold/typescript');
    const src = [
      "'use strict';",
      'module.exports = function (text) {',
      '  return text;',
      '};',
      'exports.parse = function (a) { return a; };',
      'Parser.prototype.feed = (chunk) => chunk;',
      'module.exports.named = function inner() {};',
      '',
    ].join('\n');
    const spans = indexTsFile('lib/slugify.js', src).spans.map((s) => [s.symbol, s.kind, s.startLine, s.endLine]);
    assert.deepEqual(spans, [
      ['slugify', 'function', 2, 4],
      ['parse', 'function', 5, 5],
      ['feed', 'function', 6, 6],
      ['named', 'function', 7, 7],
    ]);
  });
});
