import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dedupeByTree, generateCandidates, replaceEdit, type Candidate } from '../../../../agent/policies/offline/candidates';
import { tsSites, pySites } from '../../../../agent/policies/offline/sites';
import type { ChangeContext, Evidence, Suspect } from '../../../../agent/types';

const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'flowfix-offline-'));
  roots.push(root);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  return root;
}

function evidence(partial: Partial<Evidence> = {}): Evidence {
  return { failingTests: [], messages: [], expectedActual: [], frames: [], symbols: [], ...partial };
}

function change(partial: Partial<ChangeContext> = {}): ChangeContext {
  return { title: 'A change', description: '', author: 'dev', diff: '', editedSpans: [], language: 'typescript', ...partial };
}

function suspect(file: string, symbol: string, startLine: number, endLine: number, score = 10): Suspect {
  return { file, symbol, kind: 'function', startLine, endLine, score, reasons: ['test'] };
}

/** Applies a replace edit the way the compile gate does: the old text occurs exactly once. */
function apply(source: string, edit: { oldText: string; newText: string }): string {
  assert.equal(source.split(edit.oldText).length - 1, 1, 'old text occurs exactly once');
  return source.replace(edit.oldText, () => edit.newText);
}

const TS_FIRST_N = `// if (a < b) is what a comment says
export function firstN<T>(xs: Array<T>, n: number): T[] {
  const label = 'a < b && c';
  const out: T[] = [];
  for (let i = 0; i < n && i < xs.length; i++) out.push(xs[i]);
  return out;
}
`;

describe('sites', () => {
  test('TypeScript: operators come from the parser, not from comments, strings or generic types', () => {
    const sites = tsSites({ file: 'a.ts', text: TS_FIRST_N, start: 1, end: 7 });
    const ops = sites
      .filter((s) => s.kind === 'operator')
      .map((s) => (s.kind === 'operator' ? `${s.op}@${TS_FIRST_N.slice(0, s.range.start).split('\n').length}` : ''));
    // `i++` is an operator site too (a step the wider search may turn into `--`)
    assert.deepEqual(ops, ['&&@5', '<@5', '<@5', '++@5']);
    const strings = sites.filter((s) => s.kind === 'string');
    assert.equal(strings.length, 1, 'the string is a literal site, its insides are not operators');
  });

  test('Python: tokenize skips comments and string contents; `not in` is not a negation', async () => {
    const src = `def f(a, b, xs):\n    # a < b\n    s = "a < b and c"\n    if not a < b and b not in xs:\n        return a - b\n    return 0\n`;
    const root = await project({ 'm.py': src });
    const sites = await pySites({ root, file: 'm.py', text: src, start: 1, end: 6 });
    const ops = sites.filter((s) => s.kind === 'operator').map((s) => (s.kind === 'operator' ? s.op : ''));
    // `not in` is a membership operator (it may become `in`), never a negation
    assert.deepEqual(ops.sort(), ['-', '<', 'and', 'not in'].sort());
    const negations = sites.filter((s) => s.kind === 'negation');
    assert.equal(negations.length, 1);
    if (negations[0].kind === 'negation') assert.equal(src.slice(negations[0].range.start, negations[0].range.end), 'not ');
    assert.ok(sites.some((s) => s.kind === 'condition'));
    assert.ok(
      sites.some((s) => s.kind === 'operands'),
      'a - b can have its operands swapped',
    );
  });
});

describe('generateCandidates', () => {
  test('relational, logical and boundary candidates at the suspect, edited lines first', async () => {
    const src = `export function inRange(x: number, lo: number, hi: number): boolean {
  const span = hi - lo;
  if (span < 0) return false;
  return x >= lo && x < hi;
}
`;
    const root = await project({ 'src/range.ts': src });
    const { candidates } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('src/range.ts', 'inRange', 1, 5)],
      evidence: evidence(),
      change: change({ editedSpans: [{ file: 'src/range.ts', startLine: 4, endLine: 4 }] }),
      max: 200,
    });
    assert.ok(candidates.length > 10);
    assert.equal(candidates[0].line, 4, 'the edited line comes first');
    assert.equal(candidates[0].template, 'relational-operator');
    const results = candidates.map((c) => apply(src, c.edits[0]));
    assert.ok(results.includes(src.replace('x < hi', 'x <= hi')), 'boundary swap');
    assert.ok(results.includes(src.replace('x >= lo && x < hi', 'x >= lo || x < hi')), 'logical swap');
    assert.ok(results.includes(src.replace('span < 0', 'span < 1')), 'boundary literal');
    assert.ok(results.includes(src.replace('hi - lo', 'lo - hi')), 'swapped operands');
    assert.ok(results.includes(src.replace('if (span < 0)', 'if (!(span < 0))')), 'negated condition');
    assert.ok(results.includes(src.replace('return false', 'return true')), 'boolean literal');
    assert.deepEqual(
      candidates.map((c) => c.rank),
      candidates.map((_, i) => i + 1),
    );
    for (let i = 1; i < candidates.length; i += 1) assert.ok(candidates[i - 1].score >= candidates[i].score, 'ordered by score');
  });

  // The change turned `===` into `!==` on line 4 (a template the priors rank low) beside
  // relational operators on the same line and the line before (the commonest template).
  const KEEP = `export function keep(xs: number[], min: number, tag: string): number[] {
  const out: number[] = [];
  for (const x of xs) {
    if (x > min && tag !== 'all') out.push(x);
  }
  return out;
}
`;
  const KEEP_DIFF = [
    'diff --git a/src/keep.ts b/src/keep.ts',
    '--- a/src/keep.ts',
    '+++ b/src/keep.ts',
    '@@ -3,3 +3,3 @@ export function keep(xs: number[], min: number, tag: string): number[] {',
    '   for (const x of xs) {',
    "-    if (x > min && tag === 'all') out.push(x);",
    "+    if (x > min && tag !== 'all') out.push(x);",
    '   }',
    '',
  ].join('\n');
  const generateKeep = async (partial: Partial<ChangeContext>, revertKept = true) => {
    const root = await project({ 'src/keep.ts': KEEP });
    return generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('src/keep.ts', 'keep', 1, 7)],
      evidence: evidence(),
      change: change({ diff: KEEP_DIFF, editedSpans: [{ file: 'src/keep.ts', startLine: 4, endLine: 4 }], ...partial }),
      max: 200,
      revertKept,
    });
  };
  const keepCandidates = async (partial: Partial<ChangeContext>) => (await generateKeep(partial)).candidates;

  test("an edit that gives back the line the change removed comes first, whatever its template's prior", async () => {
    const candidates = await keepCandidates({});
    const restore = KEEP.replace("tag !== 'all'", "tag === 'all'");
    assert.equal(apply(KEEP, candidates[0].edits[0]), restore, `first: ${candidates[0].template} ${candidates[0].description}`);
    // another edit of the same line is not a restore: it keeps only the edited-line preference
    const other = candidates.find((c) => apply(KEEP, c.edits[0]) === KEEP.replace('x > min', 'x >= min'));
    assert.ok(other && other.onEditedLine && other.score < candidates[0].score);
    // the same edited line without the change's old text: the priors alone put a relational edit first
    const blind = await keepCandidates({ diff: '' });
    assert.equal(blind[0].template, 'relational-operator');
    assert.ok(blind.find((c) => apply(KEEP, c.edits[0]) === restore)!.score < candidates[0].score / 5);
  });

  test('undoing the whole change is never tried when the post filters would drop it; undoing one of its edits is', async () => {
    const restore = KEEP.replace("tag !== 'all'", "tag === 'all'");
    const { candidates, pruned } = await generateKeep({}, false);
    assert.equal(pruned.reverts, 1);
    assert.ok(!candidates.some((c) => apply(KEEP, c.edits[0]) === restore), 'the revert of the only edit is left out');
    // the same line when the change also edited another line: giving this one back is a partial undo, and first
    const second = ['@@ -6,2 +6,2 @@', '   }', '-  return out.slice();', '+  return out;', ''].join('\n');
    const two = await generateKeep(
      {
        diff: KEEP_DIFF + second,
        editedSpans: [
          { file: 'src/keep.ts', startLine: 4, endLine: 4 },
          { file: 'src/keep.ts', startLine: 6, endLine: 6 },
        ],
      },
      false,
    );
    assert.equal(two.pruned.reverts, 0);
    assert.equal(apply(KEEP, two.candidates[0].edits[0]), restore);
  });

  test('a change that says it meant its new behaviour gets no restore preference', async () => {
    const candidates = await keepCandidates({ title: 'Keep everything but "all", deliberately' });
    const restore = KEEP.replace("tag !== 'all'", "tag === 'all'");
    const at = candidates.findIndex((c) => apply(KEEP, c.edits[0]) === restore);
    assert.notEqual(at, 0, 'the restore is not first');
  });

  test('the evidence aims literal edits: the wrong part of a string becomes the expected part', async () => {
    const src = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';
    const root = await project({ 'src/greet.ts': src });
    const { candidates } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('src/greet.ts', 'greet', 1, 3)],
      evidence: evidence({ expectedActual: [{ testId: 't::greets', expected: "'Hello, Bob.'", actual: "'Hello, Bob!'" }] }),
      change: change(),
    });
    assert.equal(candidates[0].template, 'evidence-literal');
    assert.equal(apply(src, candidates[0].edits[0]), 'export function greet(name: string): string {\n  return `Hello, ${name}.`;\n}\n');
  });

  test('swapped call arguments', async () => {
    const src = 'import { clamp } from "./clamp";\nexport function pct(x: number): number {\n  return clamp(x, 100, 0);\n}\n';
    const root = await project({ 'src/pct.ts': src });
    const { candidates } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('src/pct.ts', 'pct', 2, 4)],
      evidence: evidence(),
      change: change(),
      max: 100,
    });
    const results = candidates.filter((c) => c.template === 'swap-arguments').map((c) => apply(src, c.edits[0]));
    assert.ok(results.includes(src.replace('clamp(x, 100, 0)', 'clamp(x, 0, 100)')));
    assert.ok(results.includes(src.replace('clamp(x, 100, 0)', 'clamp(100, x, 0)')));
  });

  test('Python: `and`/`or`, removed `not`, and arithmetic candidates', async () => {
    const src = 'def eligible(age, member):\n    if not member and age >= 18:\n        return True\n    return False\n\n\ndef total(a, b):\n    return a + b\n';
    const root = await project({ 'shop/rules.py': src });
    const { candidates } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('shop/rules.py', 'eligible', 1, 4, 10), suspect('shop/rules.py', 'total', 7, 8, 5)],
      evidence: evidence(),
      change: change({ language: 'python' }),
      max: 200,
    });
    const results = candidates.map((c) => apply(src, c.edits[0]));
    assert.ok(results.includes(src.replace('not member and', 'not member or')));
    assert.ok(results.includes(src.replace('if not member', 'if member')));
    assert.ok(results.includes(src.replace('age >= 18', 'age > 18')));
    assert.ok(results.includes(src.replace('a + b', 'a - b')));
    const firstTotal = candidates.findIndex((c) => c.symbol === 'total');
    const lastEligibleBoundary = candidates.findIndex((c) => c.symbol === 'eligible' && c.template === 'relational-operator');
    assert.ok(lastEligibleBoundary < firstTotal, 'the higher-ranked suspect comes first at equal prior');
  });

  test('a running extremum or a clamp: `v = e` becomes max/min of v and e, or e clamped at 0 (Python and TypeScript)', async () => {
    const py = 'def longest(xs):\n    best = 0\n    run = 0\n    seen = {}\n    for x in xs:\n        run = run + x\n        best = run\n    return best\n';
    const ts =
      'export function longest(xs: number[]): number {\n  let best = 0;\n  let run = 0;\n  for (const x of xs) {\n    run = run + x;\n    best = run;\n  }\n  return best;\n}\n';
    const root = await project({ 'kadane.py': py, 'src/kadane.ts': ts });
    for (const [file, src, lang, want] of [
      ['kadane.py', py, 'python', ['best = max(best, run)', 'run = max(0, run + x)']],
      ['src/kadane.ts', ts, 'typescript', ['best = Math.max(best, run);', 'run = Math.max(0, run + x);']],
    ] as const) {
      const { candidates } = await generateCandidates({
        root,
        readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
        suspects: [suspect(file, 'longest', 1, src.split('\n').length - 1)],
        evidence: evidence(),
        change: change({ language: lang }),
        max: 500,
      });
      const results = candidates.filter((c) => c.template === 'extremum').map((c) => apply(src, c.edits[0]));
      for (const w of want)
        assert.ok(
          results.some((r) => r.includes(w)),
          `${file}: ${w} in\n${results.join('\n---\n')}`,
        );
      // the declarations are no assignment to wrap: `let best = Math.max(best, 0)` reads before it is set
      assert.ok(!results.some((r) => /(let|const) \w+ = Math\.|^\s*best = max\(best, 0\)|max\(seen, \{\}\)/m.test(r)), results.join('\n'));
    }
  });

  test('an argument that should move like its sibling: `f(a[1:], b)` → `f(a[1:], b[1:])`, `f(i + 1, j)` → `f(i + 1, j + 1)` (Python and TypeScript)', async () => {
    const py =
      "def common(a, b):\n    if not a or not b:\n        return ''\n    elif a[0] == b[0]:\n        return a[0] + common(a[1:], b)\n    return max(common(a, b[1:]), common(a[1:], b), key=len)\n";
    const ts =
      'export function same(a: string, b: string, i: number, j: number): number {\n  if (i >= a.length || j >= b.length) return 0;\n  if (a[i] === b[j]) return 1 + same(a, b, i + 1, j);\n  return Math.max(same(a, b, i + 1, j), same(a, b, i, j + 1));\n}\n';
    const root = await project({ 'lcs.py': py, 'src/lcs.ts': ts });
    for (const [file, fn, src, lang, want, never] of [
      ['lcs.py', 'common', py, 'python', 'a[0] + common(a[1:], b[1:])', /common\(a\[1:\], a\[1:\]\)|key=len\[1:\]/],
      ['src/lcs.ts', 'same', ts, 'typescript', '1 + same(a, b, i + 1, j + 1)', /same\(a, b, i \+ 1, i \+ 1\)|same\(a \+ 1|same\(a, b \+ 1/],
    ] as const) {
      const { candidates } = await generateCandidates({
        root,
        readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
        suspects: [suspect(file, fn, 1, src.split('\n').length - 1)],
        evidence: evidence(),
        change: change({ language: lang }),
        max: 500,
      });
      const results = candidates.filter((c) => c.template === 'mirror-argument').map((c) => apply(src, c.edits[0]));
      assert.ok(
        results.some((r) => r.includes(want)),
        `${file}: ${want} in\n${results.join('\n---\n')}`,
      );
      // only a bare name takes its sibling's shape, never the name the shape is made of, and
      // only a shape the file itself gives that name elsewhere (`b[1:]`, `j + 1`): not `a + 1`
      assert.ok(!results.some((r) => never.test(r)), results.join('\n---\n'));
    }
  });

  test('a property read off a missing value: `?.` at that property, first, and only where the message names it', async () => {
    const src = `export function causeOf(err: Error, options?: { cause?: unknown }): unknown {
  const note = err.message.trim();
  return options.cause ?? note;
}
`;
    const root = await project({ 'src/cause.ts': src });
    const generate = (messages: string[]) =>
      generateCandidates({
        root,
        readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
        suspects: [suspect('src/cause.ts', 'causeOf', 1, 4)],
        evidence: evidence({ messages }),
        change: change(),
        max: 200,
      });
    const named = (await generate(["TypeError [ERR_X]: Cannot read properties of undefined (reading 'cause')"])).candidates;
    assert.equal(named[0].template, 'optional-chain');
    assert.equal(apply(src, named[0].edits[0]), src.replace('options.cause', 'options?.cause'));
    // the other reads are not what failed: no `?.` on them
    const results = named.map((c) => apply(src, c.edits[0]));
    assert.ok(!results.some((r) => r.includes('err?.message') || r.includes('message?.trim')), 'only the property the message names');
    // the older V8 wording and null
    const older = (await generate(["TypeError: Cannot read property 'cause' of null"])).candidates;
    assert.equal(older[0].template, 'optional-chain');
    // an index read: `?.[` before the bracket, the literal key named or a key known only at run time
    const indexed = `export function nonce(csp?: string): string | undefined {
  return /'nonce-(\\w+)'/.exec(csp ?? '')[1];
}
export function script(pkg: { scripts?: Record<string, string> }, name: string): string | undefined {
  return pkg.scripts[name];
}
`;
    const root2 = await project({ 'src/idx.ts': indexed });
    for (const [symbol, start, end, message, want] of [
      ['nonce', 1, 3, "TypeError: Cannot read properties of null (reading '1')", "exec(csp ?? '')?.[1]"],
      ['script', 4, 6, "TypeError: Cannot read properties of undefined (reading 'test')", 'pkg.scripts?.[name]'],
    ] as const) {
      const { candidates } = await generateCandidates({
        root: root2,
        readFile: (rel) => readFile(path.join(root2, rel), 'utf8'),
        suspects: [suspect('src/idx.ts', symbol, start, end)],
        evidence: evidence({ messages: [message] }),
        change: change(),
        max: 200,
      });
      assert.equal(candidates[0].template, 'optional-chain', `${symbol}: ${candidates[0].description}`);
      assert.ok(apply(indexed, candidates[0].edits[0]).includes(want), apply(indexed, candidates[0].edits[0]));
    }
    // no such message: no `?.` anywhere
    const none = (await generate(['AssertionError: expected 1 to equal 2'])).candidates;
    assert.ok(!none.some((c) => c.template === 'optional-chain'));
  });

  test('test files are never mutated as suspects', async () => {
    const root = await project({ 'test/a.test.ts': "test('x', () => { assert.equal(1 + 1, 2); });\n" });
    const { candidates, skipped } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('test/a.test.ts', 'x', 1, 1)],
      evidence: evidence(),
      change: change(),
    });
    assert.equal(candidates.length, 0);
    assert.match(skipped[0], /test file/);
  });
});

describe('stale expectations', () => {
  const SRC = 'export function greet(name: string): string {\n  return `Hi, ${name}`;\n}\n';
  const TEST =
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { greet } from '../src/greet.js';\n\ntest('greets', () => {\n  assert.equal(greet('Bob'), 'Hello, Bob');\n});\n";
  const DIFF = [
    'diff --git a/src/greet.ts b/src/greet.ts',
    '--- a/src/greet.ts',
    '+++ b/src/greet.ts',
    '@@ -1,3 +1,3 @@',
    ' export function greet(name: string): string {',
    '-  return `Hello, ${name}`;',
    '+  return `Hi, ${name}`;',
    ' }',
  ].join('\n');
  const EVIDENCE = evidence({
    failingTests: [{ id: 'test::greets', name: 'greets', message: 'Expected values to be strictly equal' }],
    expectedActual: [{ testId: 'test::greets', expected: "'Hello, Bob'", actual: "'Hi, Bob'" }],
    frames: [{ file: 'test/greet.test.ts', line: 6 }],
  });

  test('a change that swapped the old text for the new: the test expectation is updated first', async () => {
    const root = await project({ 'src/greet.ts': SRC, 'test/greet.test.ts': TEST });
    const { candidates, deliberate } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('src/greet.ts', 'greet', 1, 3)],
      evidence: EVIDENCE,
      change: change({ title: 'Friendlier greeting', diff: DIFF, editedSpans: [{ file: 'src/greet.ts', startLine: 2, endLine: 2 }] }),
    });
    assert.equal(deliberate.level, 'strong');
    assert.equal(candidates[0].template, 'stale-expectation');
    assert.equal(candidates[0].file, 'test/greet.test.ts');
    assert.equal(apply(TEST, candidates[0].edits[0]), TEST.replace("'Hello, Bob'", "'Hi, Bob'"));
  });

  test('no sign of intent: the test is left alone', async () => {
    const root = await project({ 'src/greet.ts': SRC, 'test/greet.test.ts': TEST });
    const { candidates, deliberate } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('src/greet.ts', 'greet', 1, 3)],
      evidence: EVIDENCE,
      change: change({ title: 'Refactor greeting', diff: DIFF.replace('Hello', 'Hey'), editedSpans: [{ file: 'src/greet.ts', startLine: 2, endLine: 2 }] }),
    });
    assert.equal(deliberate.level, 'none');
    assert.ok(candidates.every((c) => c.template !== 'stale-expectation' && c.file === 'src/greet.ts'));
  });

  test('an intent stated in the description puts the numeric update last; pytest order (literal first) works', async () => {
    const src = 'def vat(amount):\n    return round(amount * 0.25, 2)\n';
    const testSrc = 'from shop.tax import vat\n\n\ndef test_vat():\n    assert 20 == vat(100)\n';
    const root = await project({ 'shop/__init__.py': '', 'shop/tax.py': src, 'tests/test_tax.py': testSrc });
    const { candidates, deliberate } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('shop/tax.py', 'vat', 1, 2)],
      evidence: evidence({
        failingTests: [{ id: 'tests.test_tax::test_vat', name: 'test_vat', message: 'assert 20 == 25.0' }],
        expectedActual: [{ testId: 'tests.test_tax::test_vat', expected: '25.0', actual: '20' }],
        frames: [{ file: 'tests/test_tax.py', line: 5, fn: 'test_vat' }],
      }),
      change: change({ title: 'VAT rate', description: 'VAT now uses the 25% rate.', language: 'python' }),
    });
    assert.equal(deliberate.level, 'stated');
    const last = candidates[candidates.length - 1];
    assert.equal(last.template, 'stale-expectation');
    assert.equal(apply(testSrc, last.edits[0]), testSrc.replace('assert 20 ==', 'assert 25.0 =='));
  });

  test('an assertion the change itself edited is never rewritten', async () => {
    const root = await project({ 'src/greet.ts': SRC, 'test/greet.test.ts': TEST });
    const { candidates } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('src/greet.ts', 'greet', 1, 3)],
      evidence: EVIDENCE,
      change: change({
        diff: DIFF,
        editedSpans: [
          { file: 'src/greet.ts', startLine: 2, endLine: 2 },
          { file: 'test/greet.test.ts', startLine: 6, endLine: 6 },
        ],
      }),
    });
    assert.ok(candidates.every((c) => c.template !== 'stale-expectation'));
  });
});

describe('stale expectations across assertions', () => {
  test('later assertions that spell the old text follow the rename, in one candidate', async () => {
    const src =
      "export function greeting(name: string, hour: number): string {\n  const part = hour < 12 ? 'morning' : hour < 18 ? 'afternoon' : 'evening';\n  return 'Have a good ' + part + ', ' + name + '!';\n}\n";
    const testSrc = [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import { greeting } from '../src/greet.ts';",
      '',
      "test('greeting depends on the hour', () => {",
      "  assert.equal(greeting('Ann', 9), 'Good morning, Ann!');",
      "  assert.equal(greeting('Ann', 12), 'Good afternoon, Ann!');",
      "  assert.equal(greeting('Ann', 18), 'Good evening, Ann!');",
      '});',
      '',
      "test('unrelated', () => {",
      "  assert.equal('Good', 'Good');",
      '});',
      '',
    ].join('\n');
    const diff = [
      '--- a/src/greet.ts',
      '+++ b/src/greet.ts',
      '@@ -3 +3 @@',
      "-  return 'Good ' + part + ', ' + name + '!';",
      "+  return 'Have a good ' + part + ', ' + name + '!';",
    ].join('\n');
    const root = await project({ 'src/greet.ts': src, 'test/greet.test.ts': testSrc });
    const { candidates } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('src/greet.ts', 'greeting', 1, 4)],
      evidence: evidence({
        failingTests: [{ id: 'test::greeting depends on the hour', name: 'greeting depends on the hour', message: 'Expected values to be strictly equal' }],
        expectedActual: [{ testId: 'test::greeting depends on the hour', expected: "'Good morning, Ann!'", actual: "'Have a good morning, Ann!'" }],
        frames: [{ file: 'test/greet.test.ts', line: 6 }],
      }),
      change: change({ title: 'Warmer greeting', diff, editedSpans: [{ file: 'src/greet.ts', startLine: 3, endLine: 3 }] }),
    });
    assert.equal(candidates[0].template, 'stale-expectation');
    assert.equal(candidates[0].edits.length, 1);
    const updated = apply(testSrc, candidates[0].edits[0]);
    assert.equal(
      updated,
      testSrc
        .replaceAll("'Good morning", "'Have a good morning")
        .replaceAll("'Good afternoon", "'Have a good afternoon")
        .replaceAll("'Good evening", "'Have a good evening"),
    );
    assert.ok(updated.includes("assert.equal('Good', 'Good')"), 'another test is left alone');
  });

  test('with intent on record, no candidate restores a line the change removed', async () => {
    const src = 'def describe(name, score):\n    return name + ": " + str(score) + "%)"\n';
    const removed = '    return name + ": " + str(score) + ")"';
    const diff = ['--- a/grades/letters.py', '+++ b/grades/letters.py', '@@ -2 +2 @@', `-${removed}`, '+    return name + ": " + str(score) + "%)"'].join('\n');
    const root = await project({
      'grades/letters.py': src,
      'tests/test_letters.py': 'from grades.letters import describe\n\n\ndef test_describe():\n    assert describe("Ann", 85) == "Ann: 85)"\n',
    });
    const { candidates } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('grades/letters.py', 'describe', 1, 2)],
      evidence: evidence({
        failingTests: [{ id: 'tests.test_letters::test_describe', name: 'test_describe', message: 'assert' }],
        expectedActual: [{ testId: 'tests.test_letters::test_describe', expected: "'Ann: 85)'", actual: "'Ann: 85%)'" }],
        frames: [{ file: 'tests/test_letters.py', line: 5, fn: 'test_describe' }],
      }),
      change: change({
        title: 'Percent scores',
        description: 'describe now shows the score as a percentage.',
        diff,
        language: 'python',
        editedSpans: [{ file: 'grades/letters.py', startLine: 2, endLine: 2 }],
      }),
      max: 500,
    });
    const sourceResults = candidates.filter((c) => c.file === 'grades/letters.py').map((c) => apply(src, c.edits[0]));
    assert.ok(sourceResults.length > 0);
    assert.ok(!sourceResults.some((r) => r.includes(removed)), 'the evidence-literal revert is not offered');
    const stale = candidates.find((c) => c.template === 'stale-expectation');
    assert.ok(stale, 'the stale expectation is offered');
  });
});

describe('replaceEdit', () => {
  test('widens the old text until it is unique in the file', () => {
    const source = 'a = 1\nb = x < y\nc = 2\nb = x < y\nd = 3\n';
    const start = source.indexOf('<', source.indexOf('c = 2'));
    const edit = replaceEdit({
      file: 'm.py',
      source,
      mutation: { template: 'relational-operator', range: { start, end: start + 1 }, replacement: '<=', prior: 1, description: '' },
    });
    assert.equal(apply(source, edit), 'a = 1\nb = x < y\nc = 2\nb = x <= y\nd = 3\n');
  });
});

describe('deduplication by syntax tree', () => {
  const cand = (file: string, oldText: string, newText: string, template: Candidate['template'] = 'delete-statement') => ({
    template,
    file,
    line: 1,
    symbol: 'f',
    description: `${oldText} → ${newText}`,
    edits: [{ kind: 'replace' as const, file, oldText, newText }],
    score: 1,
    onEditedLine: false,
  });

  test('TypeScript: layout and comments do not make a new candidate; the file itself is no candidate; what does not parse is none', async () => {
    const src = 'export function f(a: number, b: number): number {\n  return a - b;\n}\n';
    const texts = new Map([['m.ts', src]]);
    const { unique, pruned } = await dedupeByTree({
      candidates: [
        cand('m.ts', '  return a - b;', '  return b - a;'),
        cand('m.ts', '  return a - b;', '  return b  -  a; // swapped'),
        cand('m.ts', '  return a - b;', '  return a  - b;'),
        cand('m.ts', '  return a - b;', '  return a - ;'),
        cand('m.ts', '  return a - b;', '  return a + b;'),
      ],
      texts,
    });
    assert.deepEqual(
      unique.map((c) => c.edits[0].newText),
      ['  return b - a;', '  return a + b;'],
    );
    assert.deepEqual(pruned, { duplicates: 2, unparsable: 1 });
  });

  test('Python: the same through the helper (redundant parentheses are the same tree there)', async () => {
    const src = 'def f(a, b):\n    return a - b\n';
    const texts = new Map([['m.py', src]]);
    const { unique, pruned } = await dedupeByTree({
      candidates: [
        cand('m.py', '    return a - b', '    return (a) - b'),
        cand('m.py', '    return a - b', '    return b - a'),
        cand('m.py', '    return a - b', '    return (b - a)'),
        cand('m.py', '    return a - b', '    return b -'),
      ],
      texts,
    });
    assert.deepEqual(
      unique.map((c) => c.edits[0].newText),
      ['    return b - a'],
    );
    assert.deepEqual(pruned, { duplicates: 2, unparsable: 1 });
  });
});
