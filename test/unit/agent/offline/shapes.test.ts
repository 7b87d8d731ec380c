import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateCandidates } from '../../../../agent/policies/offline/candidates';
import { pySites } from '../../../../agent/policies/offline/sites';
import { mutationsForSites } from '../../../../agent/policies/offline/templates';
import { cuesOf, usageKinds } from '../../../../agent/policies/offline/shapes';
import type { ChangeContext, Evidence, Suspect } from '../../../../agent/types';

// The bug shapes real runs needed (issue 32), each on a small project built
// like the real bug: the fix must be among the candidates, and within the
// first 50 of the whole ordered list at the suspect.

const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'flowfix-shapes-'));
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

const change: ChangeContext = { title: 'A change', description: '', author: 'dev', diff: '', editedSpans: [], language: 'typescript' };

function suspect(file: string, symbol: string, startLine: number, endLine: number): Suspect {
  return { file, symbol, kind: 'function', startLine, endLine, score: 10, reasons: ['test'] };
}

/** The 1-based rank of the candidate whose file reads `fixed`, and its template; fails when there is none. */
async function rankOf({
  file,
  source,
  fixed,
  symbol,
  lines,
  ev,
}: {
  file: string;
  source: string;
  fixed: string;
  symbol: string;
  lines: [number, number];
  ev: Evidence;
}): Promise<{ rank: number; template: string }> {
  const root = await project({ [file]: source });
  const { candidates } = await generateCandidates({
    root,
    readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
    suspects: [suspect(file, symbol, lines[0], lines[1])],
    evidence: ev,
    change,
    max: 400,
  });
  const hit = candidates.find((c) => c.edits.length === 1 && source.replace(c.edits[0].oldText, () => c.edits[0].newText) === fixed);
  assert.ok(
    hit,
    `no candidate makes the fix; the first ones:\n${candidates
      .slice(0, 12)
      .map((c) => `${c.rank} ${c.template}: ${c.description}`)
      .join('\n')}`,
  );
  return { rank: hit.rank, template: hit.template };
}

describe('regular expressions', () => {
  // a media-type parser whose token class lacks `+` (`image/svg+xml` is refused)
  const SRC = `const TOKEN = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.-]*\\/[A-Za-z0-9][A-Za-z0-9!#$&^_.-]*$/;

export function parseType(header: string): { type: string; params: Record<string, string> } {
  const semi = header.indexOf(';');
  const type = (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
  if (!TOKEN.test(type)) throw new TypeError('invalid media type');
  const params: Record<string, string> = {};
  for (const part of semi === -1 ? [] : header.slice(semi + 1).split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) params[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim();
  }
  return { type, params };
}
`;

  test('a character the class lacks, in a pattern declared outside the suspect, ranks in the first 50', async () => {
    const fixed = SRC.replace('[A-Za-z0-9!#$&^_.-]*$', () => '[A-Za-z0-9!#$&^_.+-]*$');
    const { rank, template } = await rankOf({
      file: 'src/type.ts',
      source: SRC,
      fixed,
      symbol: 'parseType',
      lines: [3, 13],
      ev: evidence({
        failingTests: [{ id: 't::svg', name: "parses 'image/svg+xml'", message: 'TypeError: invalid media type' }],
        messages: ['TypeError: invalid media type'],
      }),
    });
    assert.equal(template, 'regex-edit');
    assert.ok(rank <= 50, `rank ${rank}`);
  });

  test('flags, escapes, `\\s`/`\\w` swaps and anchors (TypeScript literal and a Python raw string)', async () => {
    const ts = `export function isBearer(h: string): boolean {\n  return /^bearer .+/.test(h);\n}\n`;
    const root = await project({ 'a.ts': ts });
    const { candidates } = await generateCandidates({
      root,
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      suspects: [suspect('a.ts', 'isBearer', 1, 3)],
      evidence: evidence(),
      change,
      max: 400,
    });
    const texts = candidates.filter((c) => c.template === 'regex-edit').map((c) => ts.replace(c.edits[0].oldText, () => c.edits[0].newText));
    for (const want of ['/^bearer .+/i', '/^bearer \\.+/', '/^bearer .+$/', '/bearer .+/', '/^bearer .*/'])
      assert.ok(
        texts.some((t) => t.includes(want)),
        want,
      );

    const py = `import re\n\n\ndef words(text):\n    return re.findall(r'\\s+', text)\n`;
    const root2 = await project({ 'w.py': py });
    const sites = await pySites({ root: root2, file: 'w.py', text: py, start: 1, end: 5 });
    assert.ok(
      sites.some((s) => s.kind === 'regex'),
      'a string handed to re.findall is a pattern',
    );
    const { candidates: pyc } = await generateCandidates({
      root: root2,
      readFile: (rel) => readFile(path.join(root2, rel), 'utf8'),
      suspects: [suspect('w.py', 'words', 4, 5)],
      evidence: evidence(),
      change,
      max: 400,
    });
    const pyTexts = pyc.map((c) => py.replace(c.edits[0].oldText, () => c.edits[0].newText));
    assert.ok(pyTexts.includes(py.replace("r'\\s+'", "r'\\w+'")), '`\\s` → `\\w`');
    assert.ok(pyTexts.includes(py.replace(', text)\n', ', text, flags=re.IGNORECASE)\n')), 'a flag goes to the call');
  });
});

describe('a length off by one outside an index', () => {
  // the next number that reads the same both ways after all nines: 99 → 101, not 1001
  const SRC = `def next_mirror(digits):
    if all(d == 9 for d in digits):
        return [1] + len(digits) * [0] + [1]
    half = len(digits) // 2
    for i in range(half, len(digits)):
        if digits[i] < 9:
            digits[i] += 1
            digits[len(digits) - 1 - i] = digits[i]
            return digits
        digits[i] = 0
        digits[len(digits) - 1 - i] = 0
    return digits
`;

  test('`len(x) * [0]` → `(len(x) - 1) * [0]`, first 50, when the lists differ by one element', async () => {
    const fixed = SRC.replace('[1] + len(digits) * [0]', '[1] + (len(digits) - 1) * [0]');
    const ev = evidence({ expectedActual: [{ testId: 't::nines', expected: '[1, 0, 1]', actual: '[1, 0, 0, 1]' }] });
    const { rank, template } = await rankOf({ file: 'mirror.py', source: SRC, fixed, symbol: 'next_mirror', lines: [1, 12], ev });
    assert.equal(template, 'length-off-by-one');
    assert.ok(rank <= 50, `rank ${rank}`);
  });

  test('TypeScript: `xs.length` ± 1 in arithmetic, and a stray `- 1` taken off', async () => {
    const src = `export function lastPage(items: string[], size: number): number {\n  return Math.ceil((items.length - 1) / size);\n}\n`;
    const fixed = src.replace('(items.length - 1)', '(items.length)');
    const { template } = await rankOf({ file: 'p.ts', source: src, fixed, symbol: 'lastPage', lines: [1, 3], ev: evidence() });
    assert.equal(template, 'length-off-by-one');
  });
});

describe('two tokens at once', () => {
  const SRC = `def merge_sort(items):
    if len(items) == 0:
        return items
    middle = len(items) // 2
    left = merge_sort(items[:middle])
    right = merge_sort(items[middle:])
    out = []
    while left and right:
        out.append(left.pop(0) if left[0] <= right[0] else right.pop(0))
    return out + left + right
`;

  test('`== 0` → `<= 1`: the operator and its constant together, first 50', async () => {
    const fixed = SRC.replace('len(items) == 0', 'len(items) <= 1');
    const { rank, template } = await rankOf({
      file: 'sort.py',
      source: SRC,
      fixed,
      symbol: 'merge_sort',
      lines: [1, 10],
      ev: evidence({ messages: ['RecursionError: maximum recursion depth exceeded while calling a Python object'] }),
    });
    assert.equal(template, 'two-token');
    assert.ok(rank <= 50, `rank ${rank}`);
  });
});

describe('an option the call leaves out', () => {
  test('TypeScript: `split(input)` → `split(input, options)` where the callee reads it', async () => {
    const src = `interface CaseOptions { separators?: string; locale?: string }

function split(input: string, options: CaseOptions = {}): string[] {
  const seps = options.separators ?? '-_ ';
  return input.split(new RegExp(\`[\${seps}]+\`)).filter(Boolean);
}

export function camelCase(input: string, options: CaseOptions = {}): string {
  const words = split(input);
  return words.map((w, i) => (i === 0 ? w.toLocaleLowerCase(options.locale) : w[0].toLocaleUpperCase(options.locale) + w.slice(1))).join('');
}
`;
    const fixed = src.replace('split(input);', 'split(input, options);');
    const { rank, template } = await rankOf({
      file: 'src/camel.ts',
      source: src,
      fixed,
      symbol: 'camelCase',
      lines: [8, 11],
      ev: evidence({ expectedActual: [{ testId: 't::sep', expected: "'fooBar'", actual: "'foo.bar'" }] }),
    });
    assert.equal(template, 'pass-argument');
    assert.ok(rank <= 50, `rank ${rank}`);
  });

  test('Python: `parse_line(line)` → `parse_line(line, interpolate)`; a parameter the callee never reads is not passed', async () => {
    const src = `def parse_line(line, interpolate=True, strict=False):
    key, _, value = line.partition('=')
    value = value.strip()
    if interpolate and value.startswith('$'):
        value = ENV.get(value[1:], '')
    return key.strip(), value


ENV = {}


def load(text, interpolate=True):
    values = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        key, value = parse_line(line)
        values[key] = value
    return values
`;
    const fixed = src.replace('parse_line(line)\n', 'parse_line(line, interpolate)\n');
    const { rank, template } = await rankOf({
      file: 'env.py',
      source: src,
      fixed,
      symbol: 'load',
      lines: [12, 19],
      ev: evidence({ expectedActual: [{ testId: 't::raw', expected: "{'A': '$B'}", actual: "{'A': ''}" }] }),
    });
    assert.equal(template, 'pass-argument');
    assert.ok(rank <= 50, `rank ${rank}`);
  });
});

describe('guards for the kind of bad value the failure names', () => {
  test('not finite: `!Number.isFinite(x)` at the entry, throwing when the test expected a throw', async () => {
    const src = `export function formatBytes(bytes: number): string {
  if (typeof bytes !== 'number') throw new TypeError('expected a number');
  const units = ['B', 'kB', 'MB', 'GB'];
  let i = 0;
  while (bytes >= 1000 && i < units.length - 1) {
    bytes /= 1000;
    i += 1;
  }
  return \`\${bytes.toFixed(i === 0 ? 0 : 1)} \${units[i]}\`;
}
`;
    const ev = evidence({
      failingTests: [{ id: 't::nan', name: 'rejects NaN and Infinity', message: 'Missing expected exception (TypeError).' }],
      messages: ['AssertionError [ERR_ASSERTION]: Missing expected exception (TypeError).'],
    });
    const inCondition = src.replace("typeof bytes !== 'number'", '!Number.isFinite(bytes)');
    const { rank, template } = await rankOf({ file: 'bytes.ts', source: src, fixed: inCondition, symbol: 'formatBytes', lines: [1, 10], ev });
    assert.equal(template, 'value-guard');
    assert.ok(rank <= 50, `rank ${rank}`);
    const atEntry = src.replace('  if (typeof bytes', "  if (!Number.isFinite(bytes)) throw new TypeError('invalid argument');\n  if (typeof bytes");
    assert.ok((await rankOf({ file: 'bytes.ts', source: src, fixed: atEntry, symbol: 'formatBytes', lines: [1, 10], ev })).rank <= 50);
  });

  test('"x.trim is not a function": `typeof x !== \'string\'` for the parameter read that way', async () => {
    const src = `export function slug(title: any, max = 40): string {
  const words = title.trim().toLowerCase().split(/\\s+/);
  return words.join('-').slice(0, max);
}
`;
    const ev = evidence({ messages: ['TypeError: title.trim is not a function'], expectedActual: [{ testId: 't::num', expected: "''", actual: 'undefined' }] });
    const fixed = src.replace('  const words', "  if (typeof title !== 'string') return '';\n  const words");
    const { rank, template } = await rankOf({ file: 'slug.ts', source: src, fixed, symbol: 'slug', lines: [1, 4], ev });
    assert.equal(template, 'value-guard');
    assert.ok(rank <= 50, `rank ${rank}`);
  });

  test('no cue, no guard: nothing in the evidence says what kind of value broke it', () => {
    const cues = cuesOf({ messages: ['AssertionError: expected 3 to equal 4'], expectedActual: [{ testId: 't', expected: '4', actual: '3' }] });
    assert.equal(cues.missing || cues.nonFinite || cues.expectsThrow || cues.notAFunction.length > 0, false);
    assert.equal(cues.offByOne, true);
    // a wrong string is every text bug's sign, not a pattern's
    assert.equal(cuesOf({ messages: ["expected 'a-b' to equal 'a_b'"], expectedActual: [{ testId: 't', expected: "'a_b'", actual: "'a-b'" }] }).text, false);
    assert.equal(cuesOf({ messages: ['TypeError: invalid media type'], expectedActual: [] }).text, true);
  });
});

describe('wrong variable, by what a name holds', () => {
  // the longest strictly rising subsequence: `ends[k]` is where the best rise of length k ends
  const SRC = `def longest_rise(arr):
    ends = {}
    longest = 0
    for i in range(len(arr)):
        shorter = [k for k in range(1, longest + 1) if arr[ends[k]] < arr[i]]
        length = max(shorter) if shorter else 0
        if length == longest or arr[i] < arr[ends[length + 1]]:
            ends[length + 1] = i
            longest = length + 1
    return longest
`;

  test('an integer never becomes a list: `i` is never replaced by `arr`', async () => {
    const kinds = usageKinds(SRC, 'py');
    assert.equal(kinds.get('i'), 'number');
    assert.equal(kinds.get('arr'), 'collection');
    const root = await project({ 'lis.py': SRC });
    const sites = await pySites({ root, file: 'lis.py', text: SRC, start: 1, end: 10 });
    const wrong = mutationsForSites({ sites, source: SRC, lang: 'py', evidence: [] }).filter((m) => m.template === 'wrong-variable');
    assert.ok(wrong.length > 0);
    assert.ok(!wrong.some((m) => SRC.slice(m.range.start, m.range.end) === 'i' && m.replacement === 'arr'), 'i → arr');
  });

  test('the best-so-far `max(longest, length + 1)` ranks in the first 50', async () => {
    const fixed = SRC.replace('longest = length + 1', 'longest = max(longest, length + 1)');
    const ev = evidence({ expectedActual: [{ testId: 't::rise', expected: '3', actual: '2' }] });
    const { rank } = await rankOf({ file: 'lis.py', source: SRC, fixed, symbol: 'longest_rise', lines: [1, 10], ev });
    assert.ok(rank <= 50, `rank ${rank}`);
  });
});
