import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// Every transaction that writes what other features read back (changes,
// runs, fixes, decisions, labels and settled labels) goes through writeTx
// (lib/writes.ts), which hands what it wrote to Insights and the code-host
// sync. A plain `$transaction` that writes those rows would leave Insights
// stale and the pull request's check behind, silently: this scan finds one,
// directly or through a `…Tx` helper that writes them. A transaction that
// writes such a row and that nobody needs to hear of says why on the line
// above it: `// write hook: <why>`.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const HOOK = 'lib/writes.ts';

const MODELS = ['change', 'run', 'fix', 'decision', 'grade', 'consensus'];
const TABLES = ['Change', 'Run', 'Fix', 'Decision', 'Grade', 'Consensus'];
const CLIENT_WRITE = new RegExp(`\\btx\\.(${MODELS.join('|')})\\.(create|createMany|update|updateMany|upsert|delete|deleteMany)\\b`);
const SQL_WRITE = new RegExp(`\\b(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+"(${TABLES.join('|')})"`);

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true })
    .map(String)
    .filter((f) => /\.tsx?$/.test(f) && !f.split(path.sep).includes('generated'))
    .map((f) => path.join(dir, f));
}

/** The text from `open` (an opening parenthesis or brace) to its match; strings and comments are not parsed, which these files do not need. */
function balanced(source: string, open: number): string {
  const pairs: Record<string, string> = { '(': ')', '{': '}' };
  const close = pairs[source[open]];
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    if (source[i] === source[open]) depth++;
    else if (source[i] === close && --depth === 0) return source.slice(open, i + 1);
  }
  return source.slice(open);
}

/** Names of `function xTx(` helpers whose bodies write the rows, directly or through another such helper. */
function writingHelpers(files: Array<{ file: string; source: string }>): Set<string> {
  const bodies = new Map<string, string>();
  for (const { source } of files) {
    for (const m of source.matchAll(/\bfunction\s+(\w+Tx)\s*\(/g)) {
      const brace = source.indexOf('{', source.indexOf(')', m.index!));
      bodies.set(m[1], balanced(source, brace));
    }
  }
  const writing = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [name, body] of bodies) {
      if (writing.has(name)) continue;
      if (writes(body, writing)) {
        writing.add(name);
        grew = true;
      }
    }
  }
  return writing;
}

function writes(text: string, helpers: Set<string>): boolean {
  if (CLIENT_WRITE.test(text) || SQL_WRITE.test(text)) return true;
  return [...text.matchAll(/\b(\w+Tx)\s*\(/g)].some((m) => helpers.has(m[1]));
}

/** `file:line` of each plain `$transaction(…)` whose callback writes the rows. */
function bypasses(files: Array<{ file: string; source: string }>): string[] {
  const helpers = writingHelpers(files);
  const out: string[] = [];
  for (const { file, source } of files) {
    if (file === HOOK) continue;
    for (const m of source.matchAll(/\.\$transaction\s*\(/g)) {
      const call = balanced(source, m.index! + m[0].length - 1);
      const line = source.slice(0, m.index).split('\n').length;
      const above = source.split('\n')[line - 2] ?? '';
      if (writes(call, helpers) && !/\/\/ write hook: \S/.test(above)) out.push(`${file}:${line}`);
    }
  }
  return out;
}

describe('the write hook', () => {
  test('no transaction in lib/ or agent/ writes changes, runs, fixes, decisions or labels around writeTx', () => {
    const files = [...sourceFiles('lib'), ...sourceFiles('agent')].map((file) => ({ file, source: fs.readFileSync(path.join(ROOT, file), 'utf8') }));
    assert.ok(
      files.some(({ source }) => /\bwriteTx\(/.test(source)),
      'no writer uses writeTx: the scan is not looking where the writers are',
    );
    assert.deepEqual(bypasses(files), []);
  });

  test('the scan finds a bypass, direct or through a helper, and leaves other writes alone', () => {
    const files = [
      {
        file: 'lib/example.ts',
        source: [
          'async function closeThingTx(tx) {',
          '  await tx.$executeRaw`UPDATE "Run" SET status = \'FAILED\'`;',
          '}',
          'export async function direct() {',
          '  await getDb().$transaction(async (tx) => {',
          '    await tx.fix.updateMany({ where: {}, data: {} });',
          '  });',
          '}',
          'export async function throughHelper() {',
          '  await getDb().$transaction(async (tx) => {',
          '    await closeThingTx(tx);',
          '  });',
          '}',
          'export async function unrelated() {',
          '  await getDb().$transaction(async (tx) => {',
          '    await tx.auditLog.create({ data: {} });',
          '  });',
          '}',
          'export async function excused() {',
          '  // write hook: a counter nobody reads back',
          '  await getDb().$transaction(async (tx) => {',
          '    await tx.run.update({ where: {}, data: {} });',
          '  });',
          '}',
          'export async function hooked() {',
          '  await writeTx(async (tx, written) => {',
          '    await tx.change.update({ where: {}, data: {} });',
          '  });',
          '}',
        ].join('\n'),
      },
    ];
    assert.deepEqual(bypasses(files), ['lib/example.ts:5', 'lib/example.ts:10']);
  });
});
