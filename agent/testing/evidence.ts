import { isTestPath } from './test-files';
import path from 'node:path';
import type { Evidence, ExpectedActual, StackFrame, TestResult, TestRun } from '../types';
import { clip, parseExpectedActual } from '../../common/test-results';

// Turns failing test results and logs into evidence the scaffold and the
// policies can act on: which tests fail, with what message, the expected and
// actual values, and stack frames mapped to files of the workspace.
// Pure functions over text: the caller supplies the workspace's file list.

const MAX_FRAMES = 60;
const MAX_SYMBOLS = 40;
const MAX_MESSAGE = 2000;

export interface EvidenceInput {
  run: TestRun;
  /** absolute workspace root (absolute frame paths inside it become relative) */
  root: string;
  /** workspace-relative files (git ls-files): CI paths from another machine are matched by suffix */
  files: string[];
  /** limit to these test ids (default: every failing result) */
  targets?: string[];
  /** the repository's tests and helpers (agent/testing/test-files.ts); default: the conventions */
  isTestFile?: (rel: string) => boolean;
}

// ───── stack frames ─────

interface RawFrame {
  file: string;
  line: number;
  column?: number;
  fn?: string;
}

const V8_FRAME = /^\s*at (?:(?:async )?(.+?) \()?(?:file:\/\/)?([^()\s][^()]*?):(\d+):(\d+)\)?\s*$/;
const VITEST_FRAME = /^\s*❯ (?:(\S+) )?(\S+?):(\d+):(\d+)\s*$/;
const PY_TRACEBACK = /^\s*File "([^"]+)", line (\d+)(?:, in (\S+))?/;
const PYTEST_LOCATION = /^([^\s:][^:]*\.py):(\d+): (\w[\w.]*)?/;
const JAVA_FRAME = /^\s*at ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)/;
const GO_FRAME = /^\s*(\/[^\s:]+\.go):(\d+)(?: \+0x[0-9a-f]+)?\s*$/;
const GO_TESTLOG = /^\s*([\w./-]+_test\.go):(\d+):/;
/** ava's TAP diagnostics: where the failing assertion is (`at: 'file:///…/test.js:5:4'`) */
const AVA_AT = /^\s*at: '(?:file:\/\/)?([^'()\s][^'()]*?):(\d+):(\d+)'\s*$/;

function parseFrames(text: string): RawFrame[] {
  const frames: RawFrame[] = [];
  const lines = text.split('\n');
  let lastGoFn: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m: RegExpExecArray | null;
    if ((m = V8_FRAME.exec(line))) {
      frames.push({ file: m[2], line: Number(m[3]), column: Number(m[4]), fn: cleanV8Fn(m[1]) });
    } else if ((m = VITEST_FRAME.exec(line))) {
      frames.push({ file: m[2], line: Number(m[3]), column: Number(m[4]), fn: m[1] });
    } else if ((m = PY_TRACEBACK.exec(line))) {
      frames.push({ file: m[1], line: Number(m[2]), fn: m[3] && m[3] !== '<module>' ? m[3] : undefined });
    } else if ((m = PYTEST_LOCATION.exec(line))) {
      frames.push({ file: m[1], line: Number(m[2]), fn: pytestFunctionAbove(lines, i) });
    } else if ((m = JAVA_FRAME.exec(line))) {
      const cls = m[1].split('.').at(-1) ?? m[1];
      const pkgDir = m[1].split('.').slice(0, -1).join('/');
      frames.push({ file: pkgDir ? `${pkgDir}/${m[3]}` : m[3], line: Number(m[4]), fn: `${cls}.${m[2]}` });
    } else if ((m = GO_FRAME.exec(line))) {
      frames.push({ file: m[1], line: Number(m[2]), fn: lastGoFn });
    } else if ((m = GO_TESTLOG.exec(line))) {
      frames.push({ file: m[1], line: Number(m[2]) });
    } else if ((m = AVA_AT.exec(line))) {
      frames.push({ file: m[1], line: Number(m[2]), column: Number(m[3]) });
    }
    const goFn = /^([\w./-]+)\.(\w+)\(/.exec(line);
    lastGoFn = goFn ? goFn[2] : undefined;
  }
  return frames;
}

function cleanV8Fn(fn: string | undefined): string | undefined {
  if (!fn) return undefined;
  const cleaned = fn
    .replace(/^new /, '')
    .replace(/ \[as [^\]]+\]$/, '')
    .replace(/^(Object|TestContext|Context|Module)\./, '');
  if (/<anonymous>|^Object$|^TestContext$|^Test\./.test(cleaned)) return undefined;
  return cleaned;
}

/** pytest prints the failing function's source above "file.py:N: Error": find its `def`. */
function pytestFunctionAbove(lines: string[], index: number): string | undefined {
  for (let j = index - 1; j >= 0 && j >= index - 60; j--) {
    if (/^_ _ _|^_{5,}/.test(lines[j])) break;
    const m = /^\s*(?:async\s+)?def (\w+)\(/.exec(lines[j]);
    if (m) return m[1];
  }
  return undefined;
}

/** Maps a frame's file to a workspace-relative path, or null when it is not ours. */
export function mapFrameFile(file: string, root: string, files: Set<string>, bySuffix: Map<string, string[]>): string | null {
  let f = file.replace(/^file:\/\//, '');
  if (/^node:|^internal\/|node_modules|site-packages|\/usr\/lib\/|^<|\/runtime\/|^testing\//.test(f)) return null;
  if (path.isAbsolute(f)) {
    const rel = path.relative(root, f);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) f = rel;
  }
  f = f.split(path.sep).join('/').replace(/^\.\//, '');
  if (files.has(f)) return f;
  // a path from the CI machine (/home/ci/shop/src/cart.ts) or a Java/Go
  // package path: the longest suffix that names exactly one workspace file
  const segments = f.split('/').filter(Boolean);
  for (let k = Math.min(segments.length, 6); k >= 1; k--) {
    const suffix = segments.slice(-k).join('/');
    const hits = bySuffix.get(suffix) ?? (k === 1 ? [] : filesEndingWith(files, suffix));
    if (hits.length === 1) return hits[0];
    if (hits.length > 1 && k === segments.length) return null;
  }
  return null;
}

function filesEndingWith(files: Set<string>, suffix: string): string[] {
  const out: string[] = [];
  for (const f of files) if (f === suffix || f.endsWith(`/${suffix}`)) out.push(f);
  return out;
}

function basenameIndex(files: string[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const f of files) {
    const base = f.split('/').at(-1) ?? f;
    index.set(base, [...(index.get(base) ?? []), f]);
  }
  return index;
}

// expected/actual parsing lives in lib (the change page reads it too)
export { parseExpectedActual };

// ───── symbols ─────

const NOISE = new Set([
  'assert',
  'expect',
  'equal',
  'strictEqual',
  'deepEqual',
  'deepStrictEqual',
  'notEqual',
  'ok',
  'throws',
  'rejects',
  'toBe',
  'toEqual',
  'toStrictEqual',
  'toMatch',
  'toThrow',
  'toContain',
  'toHaveLength',
  'toBeCloseTo',
  'describe',
  'test',
  'it',
  'fail',
  'Error',
  'TypeError',
  'AssertionError',
  'Promise',
  'Array',
  'map',
  'then',
  'if',
  'for',
  'while',
  'return',
  'function',
  'def',
  'print',
  'len',
  'str',
  'int',
  'repr',
  'isinstance',
  'range',
  'self',
  'new',
  'processTicksAndRejections',
  'runInAsyncScope',
  'run',
  'start',
  'anonymous',
  'where',
  'and',
  'or',
  'not',
]);

function symbolsFrom(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)\(/g)) {
    const sym = m[1].split('.').at(-1) ?? m[1];
    if (sym.length > 1 && !NOISE.has(sym)) out.push(sym);
  }
  return out;
}

// ───── assembly ─────

function failing(results: TestResult[], targets?: string[]): TestResult[] {
  const bad = results.filter((r) => r.status === 'failed' || r.status === 'error');
  if (!targets?.length) return bad;
  const wanted = bad.filter((r) => targets.includes(r.id));
  return wanted.length ? wanted : bad;
}

/** Builds the evidence of a failing run. */
export function extractEvidence(input: EvidenceInput): Evidence {
  const fileSet = new Set(input.files);
  const bySuffix = basenameIndex(input.files);
  const tests = failing(input.run.results, input.targets);
  const messages = new Set<string>();
  const expectedActual: ExpectedActual[] = [];
  const frames: StackFrame[] = [];
  const frameKeys = new Set<string>();
  const symbols: string[] = [];

  const addFrames = (text: string): string[] => {
    const mapped: string[] = [];
    for (const raw of parseFrames(text)) {
      const file = mapFrameFile(raw.file, input.root, fileSet, bySuffix);
      if (!file) continue;
      mapped.push(file);
      const key = `${file}:${raw.line}`;
      if (frameKeys.has(key) || frames.length >= MAX_FRAMES) continue;
      frameKeys.add(key);
      frames.push({ file, line: raw.line, ...(raw.column ? { column: raw.column } : {}), ...(raw.fn ? { fn: raw.fn } : {}) });
      if (raw.fn) symbols.push(raw.fn.split('.').at(-1) ?? raw.fn);
    }
    return mapped;
  };
  const testFileOf = new Map<string, string>();

  for (const t of tests) {
    const body = [t.message ?? '', t.details ?? ''].join('\n');
    if (t.message) messages.add(clip(t.message, MAX_MESSAGE));
    const ea = parseExpectedActual(t.id, body);
    if (ea) expectedActual.push(ea);
    const own = addFrames(body);
    const testFile = own.find((f) => (input.isTestFile ?? isTestPath)(f));
    if (testFile) testFileOf.set(t.id, testFile);
    if (t.systemOut) addFrames(t.systemOut);
    symbols.push(...symbolsFrom(body));
  }
  // No report (a crash before the runner wrote one): the log is all we have.
  if (tests.length === 0 || input.run.reportError) addFrames(input.run.command.output);

  const failingTests = tests.map((t) => {
    const file = t.file ? (mapFrameFile(t.file, input.root, fileSet, bySuffix) ?? t.file) : testFileOf.get(t.id);
    return { id: t.id, name: t.name, ...(file ? { file } : {}), message: clip(t.message ?? '', MAX_MESSAGE) };
  });

  return {
    failingTests,
    messages: [...messages],
    expectedActual,
    frames,
    symbols: [...new Set(symbols)].slice(0, MAX_SYMBOLS),
  };
}
