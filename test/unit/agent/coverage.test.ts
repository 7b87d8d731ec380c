import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSpectrum, CoverageError, ochiai, readRecords, spanSuspiciousness, spectrumOf } from '../../../agent/coverage/index';
import { countsAt, decodeMappings, executedLines } from '../../../agent/coverage/v8';
import { localise } from '../../../agent/scaffold/index';
import type { Evidence, TestRun } from '../../../agent/types';

const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function folder(files: Record<string, string> = {}): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'flowfix-coverage-'));
  roots.push(root);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  return root;
}

const lines = (entries: Record<string, number[]>) => new Map(Object.entries(entries).map(([f, ls]) => [f, new Set(ls)]));

describe('Ochiai', () => {
  test('failed / sqrt(totalFailed × (failed + passed)), per line; a span takes its most suspicious line', () => {
    const spectrum = buildSpectrum([
      { failed: true, lines: lines({ 'a.ts': [1, 2, 3] }) },
      { failed: true, lines: lines({ 'a.ts': [1, 3] }) },
      { failed: false, lines: lines({ 'a.ts': [1, 2], 'b.ts': [7] }) },
      { failed: false, lines: lines({ 'a.ts': [1] }) },
    ]);
    assert.equal(spectrum.totalFailed, 2);
    assert.equal(spectrum.totalPassed, 2);
    const at = (file: string, line: number) => ochiai(spectrum.lines.get(file)!.get(line)!, spectrum.totalFailed);
    assert.equal(at('a.ts', 1), 2 / Math.sqrt(2 * 4));
    assert.equal(at('a.ts', 2), 1 / Math.sqrt(2 * 2));
    assert.equal(at('a.ts', 3), 1, 'every failing test and no passing test');
    assert.equal(at('b.ts', 7), 0, 'no failing test ran it');
    assert.deepEqual(spanSuspiciousness(spectrum, 'a.ts', 1, 2), { score: 2 / Math.sqrt(8), line: 1, failed: 2, passed: 2 });
    assert.deepEqual(spanSuspiciousness(spectrum, 'a.ts', 1, 3), { score: 1, line: 3, failed: 2, passed: 0 });
    assert.equal(spanSuspiciousness(spectrum, 'b.ts', 1, 10), null);
  });
});

describe('V8 coverage to lines', () => {
  test('source map mappings: VLQ fields, relative columns per line, relative lines across the map', () => {
    // line 0: col 0 → src 0 line 0; col 1 → line 0; col 3 (D = -1 then +3: "G") …; line 1: col 0 → line 1
    assert.deepEqual(decodeMappings('AAAA,CAAC;AACA'), [
      { genLine: 0, genCol: 0, source: 0, origLine: 0 },
      { genLine: 0, genCol: 1, source: 0, origLine: 0 },
      { genLine: 1, genCol: 0, source: 0, origLine: 1 },
    ]);
    // negative deltas (D = -1) and a one-field segment (no original position) that still moves the column
    assert.deepEqual(decodeMappings('AAEA,E,EADA'), [
      { genLine: 0, genCol: 0, source: 0, origLine: 2 },
      { genLine: 0, genCol: 4, source: 0, origLine: 1 },
    ]);
  });

  test('the innermost range decides an offset’s count; offsets outside every range ran 0 times', () => {
    const ranges = [
      { startOffset: 0, endOffset: 100, count: 1 },
      { startOffset: 10, endOffset: 20, count: 0 },
      { startOffset: 50, endOffset: 60, count: 2 },
    ];
    assert.deepEqual(countsAt(ranges, [5, 15, 20, 55, 99, 150]), [1, 0, 1, 2, 1, 0]);
  });

  test('plain JavaScript: a line ran when its first character did', async () => {
    const text = 'function f(x) {\n  if (x) {\n    return 1;\n  }\n  return 2;\n}\n';
    const abs = '/ws/f.js';
    const start = text.indexOf('function');
    const ifBlock = text.indexOf('{\n    return 1');
    const executed = await executedLines(
      {
        result: [
          {
            url: pathToFileURL(abs).href,
            functions: [
              {
                ranges: [
                  { startOffset: start, endOffset: text.length - 1, count: 1 },
                  { startOffset: ifBlock, endOffset: text.indexOf('  return 2'), count: 0 },
                ],
              },
            ],
          },
        ],
      },
      () => true,
      async () => text,
    );
    assert.deepEqual([...(executed.files.get(abs) ?? [])].sort(), [1, 2, 5, 6]);
  });
});

describe('reading what the bootstrap wrote', () => {
  test('links and malformed files are skipped; Python tests keep their ids, outcomes and workspace files', async () => {
    const root = await folder({ 'pkg/m.py': 'x = 1\n', 'secret.txt': 'not for the server' });
    const out = await folder({
      'python-1.json': JSON.stringify({
        tests: [
          { id: 'tests/test_m.py::test_a', name: 'test_a', file: 'tests/test_m.py', outcome: 'failed', lines: { 'pkg/m.py': [1], '../outside.py': [3] } },
          { id: 'tests/test_m.py::test_b', name: 'test_b', file: 'tests/test_m.py', outcome: 'passed', lines: { 'pkg/m.py': [1] } },
        ],
      }),
      'python-2.json': '{"tests": [{"id": 1}]}',
      'python-3.json': 'not json',
    });
    await symlink(path.join(root, 'secret.txt'), path.join(out, 'python-4.json'));
    const records = await readRecords({ outDir: out, root, readSource: async () => null });
    assert.deepEqual(
      records.map((r) => [r.id, r.outcome, [...r.lines.keys()]]),
      [
        ['tests/test_m.py::test_a', 'failed', ['pkg/m.py']],
        ['tests/test_m.py::test_b', 'passed', ['pkg/m.py']],
      ],
    );
  });

  test('a Node record may only name a coverage file of its own kind in the output folder', async () => {
    const root = await folder({ 'src/a.js': 'module.exports = 1;\n' });
    const out = await folder({
      'node-9-0.jsonl': `${JSON.stringify({ kind: 'test', name: 't', file: path.join(root, 'test/a.test.js'), coverage: '../../etc/passwd' })}\n`,
    });
    assert.deepEqual(await readRecords({ outDir: out, root, readSource: async () => null }), []);
  });
});

describe('spectrumOf', () => {
  const run = (results: TestRun['results']): TestRun => ({
    command: { command: 'x', exitCode: 1, signal: null, timedOut: false, durationMs: 1, output: '', truncatedBytes: 0 },
    results,
  });
  const rec = (id: string, name: string, outcome: 'passed' | 'failed' | undefined, ls: Record<string, number[]>) => ({
    id,
    name,
    file: '',
    ...(outcome ? { outcome } : {}),
    lines: lines(ls),
  });

  test('failing targets and passing tests count; a passing target, another failure and test files do not', () => {
    const result = spectrumOf({
      recorded: [
        rec('tests/test_m.py::test_a', 'test_a', 'failed', { 'pkg/m.py': [1, 2] }),
        rec('tests/test_m.py::test_b', 'test_b', 'passed', { 'pkg/m.py': [1], 'tests/helpers.py': [4] }),
        rec('tests/test_m.py::test_c', 'test_c', 'failed', { 'pkg/m.py': [9] }),
        rec('tests/test_m.py::TestK::test_d', 'test_d', 'passed', { 'pkg/m.py': [5] }),
      ],
      run: run([]),
      // pytest's node ids, read as the JUnit ids flowfix stores
      targets: [{ id: 'tests.test_m::test_a' }, { id: 'tests.test_m.TestK::test_d' }],
      isTestFile: (f) => f.startsWith('tests/'),
    });
    assert.equal(result.failing, 1);
    assert.equal(result.passing, 1, 'test_b; test_d is a target that passed, test_c another failure');
    assert.deepEqual(result.spectrum.lines.get('pkg/m.py')?.get(2), { failed: 1, passed: 0 });
    assert.equal(result.spectrum.lines.has('tests/helpers.py'), false);
    assert.equal(result.spectrum.lines.get('pkg/m.py')?.has(9), false);
  });

  test('Node records take their verdict from the run’s report, by name', () => {
    const result = spectrumOf({
      recorded: [rec('test/a.test.ts::adds', 'adds', undefined, { 'src/a.ts': [1] }), rec('test/a.test.ts::subs', 'subs', undefined, { 'src/a.ts': [5] })],
      run: run([
        { id: 'test::math > adds', name: 'math > adds', status: 'failed' },
        { id: 'test::math > subs', name: 'math > subs', status: 'passed' },
      ]),
      targets: [{ id: 'test::math > adds', name: 'math > adds' }],
    });
    assert.equal(result.failing, 1);
    assert.equal(result.passing, 1);
  });

  test('no failing target among the records: an error, not an empty spectrum', () => {
    assert.throws(
      () => spectrumOf({ recorded: [rec('t::x', 'x', 'passed', { 'a.py': [1] })], run: run([]), targets: [{ id: 't::y' }] }),
      (err: unknown) => err instanceof CoverageError && /none of the 1 recorded test\(s\) is a failing target/.test((err as Error).message),
    );
  });
});

describe('ranking with coverage', () => {
  const SRC = `export function rate(kind: string): number {
  if (kind === 'gold') {
    return 0.2;
  }
  return 0.1;
}

export function discount(cents: number, kind: string): number {
  return cents - cents * rate(kind);
}

export function describe(cents: number): string {
  return String(cents);
}
`;
  const TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { discount, describe as d } from '../src/shop.ts';
test('gold discount', () => { assert.equal(discount(100, 'gold'), 85); });
test('plain discount', () => { assert.equal(discount(100, 'x'), 90); });
test('describe', () => { assert.equal(d(1), '1'); });
`;
  const ev: Evidence = {
    failingTests: [{ id: 'test::gold discount', name: 'gold discount', message: 'Expected values to be strictly equal:\n\n80 !== 85' }],
    messages: [],
    expectedActual: [{ testId: 'test::gold discount', expected: '85', actual: '80' }],
    frames: [{ file: 'test/shop.test.ts', line: 4, fn: 'TestContext.<anonymous>' }],
    symbols: [],
  };
  const spectrum = buildSpectrum([
    { failed: true, lines: lines({ 'src/shop.ts': [1, 2, 3, 8, 9] }) },
    { failed: false, lines: lines({ 'src/shop.ts': [1, 2, 5, 8, 9] }) },
    { failed: false, lines: lines({ 'src/shop.ts': [12, 13] }) },
  ]);

  test('with no frame in the code, the line only the failing test ran names its function', async () => {
    const root = await folder({ 'src/shop.ts': SRC, 'test/shop.test.ts': TEST });
    const without = await localise({ root, evidence: ev, editedSpans: [], k: 5 });
    // without coverage, discount() is a thin wrapper of rate() (agent/scaffold/rank.ts): rate() leads, on structure alone
    assert.equal(without[0].symbol, 'rate');
    assert.ok(without[0].reasons.includes('does the work of discount, a thin wrapper the failing tests ran'), without[0].reasons.join('; '));
    assert.equal(without[1].symbol, 'discount');
    const suspects = await localise({ root, evidence: ev, editedSpans: [], k: 5, coverage: spectrum });
    assert.equal(suspects[0].symbol, 'rate');
    assert.ok(suspects[0].reasons.includes('Ochiai 1.00: line 3 ran in 1/1 failing and 0/2 passing tests'), suspects[0].reasons.join('; '));
    assert.equal(suspects[1].symbol, 'discount');
    const described = suspects.find((s) => s.symbol === 'describe');
    assert.ok(described, 'describe is still a suspect (imported by the failing test)');
    assert.ok(described.reasons.includes('no failing test ran it (coverage)'));
    assert.ok(described.score < suspects[1].score);
  });
});
