// Suspect ranking (EviACT's retrieval scaffold): failure evidence matched
// against AST spans and the code graph. Every point a span earns comes with a
// reason a person can read, so a wrong ranking can be argued with.
//
// The one formula, per span (WEIGHTS below):
//
//   score = frames + edited + symbol
//         + min(proximityCap, proximity) × (coverage collected ? proximityWithCoverage : 1)
//         + coverage × Ochiai(span)
//   then × classFactor (a class), × testHelperFactor (helper code in a test
//   file), × notRunFactor (with coverage: no failing test ran the span, though
//   they ran its file)
//   then the wrapper rule: a thin function (at most wrapperMaxLines lines) that
//   calls a function at least wrapperWorkRatio times its length, which the
//   failing tests also ran (with coverage: a failing test ran it; without: the
//   ranking reached it from the failing test), ranks below that function: the
//   callee takes the wrapper's score when it had less, the wrapper keeps
//   wrapperFactor of it. A span a stack frame lies in or the change edited is
//   never demoted so. An entry point the failing test calls (css-what's
//   parse(), hosted-git-info's cached fromUrl()) is not where the work is done.
//
// frames: 13 × 0.7^depth for the frame's innermost span (0.3 of it for the
// spans enclosing it), 4 for a frame that only names the function; edited: 8
// for a span the change edited; symbol: 3 when the evidence names it;
// proximity: imports, calls, folder and file name relative to the failing
// test; Ochiai(span): the most suspicious line's Ochiai score from per-test
// coverage (agent/coverage/spectrum.ts), 0 without coverage. Coverage finds a
// wrong value that raised nowhere in the code (an assertion in the test is the
// only frame) and separates the functions a failing test called from those
// every passing test calls too.
import path from 'node:path';
import { splitTestId, testNameOf } from '../../lib/junit/test-id';
import { failingTestsRan, spanSuspiciousness, type Spectrum } from '../coverage/spectrum';
import type { Evidence, StackFrame, Suspect } from '../types';
import type { CodeGraph } from './graph';
import { callDistances, importDistances, spanKey } from './graph';
import type { IndexedSpan } from './model';
import { isTestPath } from './model';

/**
 * Weights. The stack frame that raised is the most direct evidence; a span the
 * change itself edited is the strongest prior before merge (the failure is new
 * with this change), so it comes close behind; the rest separate ties.
 */
export const WEIGHTS = {
  frame: 13, // a non-test frame lies in the span; decays with the frame's depth
  frameDecay: 0.7, // the caller of the raising function is a suspect, but a lesser one
  frameFnName: 4, // a frame names the function but its file/line did not match
  testFrame: 3, // a frame lies in the failing test's own code
  edited: 8,
  enclosing: 0.3, // factor for a span that merely encloses the matching one
  symbol: 3, // the evidence names the symbol
  testNameMention: 2, // the failing test's name or message mentions it (a proximity part)
  call: [0, 3, 1.5, 1], // by call distance from the failing test
  importDist: [0, 2, 1, 0.5], // by import distance from the failing test file
  sameDir: 0.5,
  namesake: 1, // cart.ts for cart.test.ts / test_cart.py
  /**
   * Proximity (imports, calls, folder, file name) is one signal seen several
   * ways, so its parts are capped together: it orders spans the evidence does
   * not separate, but never outweighs a frame or an edit.
   */
  proximityCap: 4,
  /**
   * × the span's Ochiai score (0–1): between an edit and a stack frame at
   * full strength, so that with no frame in the code the spectrum decides
   * among the spans the failing test reaches, and the change's own edit
   * decides what the spectrum cannot tell apart.
   */
  coverage: 10,
  /**
   * with coverage, proximity counts half: it estimates what the failing test
   * reaches, which the spectrum measures; it still orders what the spectrum ties
   */
  proximityWithCoverage: 0.5,
  /** with coverage: a span in a file the failing tests ran, none of whose lines they ran */
  notRunFactor: 0.5,
  classFactor: 0.5, // classes are coarse: prefer their methods
  otherTestFactor: 0.2, // another test case is rarely where the fix goes
  testHelperFactor: 0.5, // non-test code inside a test file
  /** a function this short (lines, signature included) that calls a larger one may be a thin wrapper */
  wrapperMaxLines: 15,
  /** the callee doing the work is at least this many times the wrapper's length */
  wrapperWorkRatio: 2,
  /** a wrapper's share of its score once the function it delegates to took it */
  wrapperFactor: 0.8,
  windowRadius: 5,
} as const;

export interface RankInput {
  root: string;
  graph: CodeGraph;
  evidence: Evidence;
  editedSpans: Array<{ file: string; startLine: number; endLine: number }>;
  /** files that exist in the workspace but are not indexed (other languages) */
  fileExists: (rel: string) => boolean;
  /** the repository's tests and test helpers (agent/testing/test-files.ts); default: the conventions */
  isTestFile?: (rel: string) => boolean;
  /**
   * Keep the failing tests' own cases in the ranking: only when the change
   * itself contradicts their expectation (a stale expectation is the one edit
   * a test may get). Otherwise tests and their helpers never rank.
   */
  keepFailingTests?: boolean;
  /** per-test line coverage of the failing and passing tests (agent/coverage), when it was collected */
  coverage?: Spectrum;
}

interface Scored {
  span: IndexedSpan;
  score: number;
  reasons: string[];
}

/** Workspace-relative path for a frame's file, or null when it lies outside. */
export function toRelative(root: string, file: string): string | null {
  let f = file;
  if (f.startsWith('file://')) {
    try {
      f = new URL(f).pathname;
    } catch {
      return null;
    }
  }
  if (path.isAbsolute(f)) {
    const rel = path.relative(root, f);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
    f = rel;
  }
  f = f.split(path.sep).join('/').replace(/^\.\//, '');
  if (f.startsWith('..') || f.startsWith('node:') || f.includes('node_modules/')) return null;
  return f;
}

const COMMON_WORDS = new Set([
  'test',
  'tests',
  'the',
  'and',
  'for',
  'with',
  'when',
  'should',
  'returns',
  'return',
  'value',
  'error',
  'get',
  'set',
  'new',
  'default',
  'constructor',
  'expected',
  'actual',
  'equal',
  'true',
  'false',
  'null',
  'undefined',
  'none',
]);

function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
    out.add(m[0]);
    out.add(m[0].toLowerCase());
    // test_apply_discount → apply_discount; "applies discount" stays two words
    if (m[0].startsWith('test_')) out.add(m[0].slice(5));
  }
  return out;
}

/** pytest ids "tests.test_cart.TestCart::test_total" or "tests/test_cart.py::test_total[1]" → files */
function filesFromTestId(id: string, known: (f: string) => boolean): string[] {
  const head = splitTestId(id)?.key ?? id;
  const out: string[] = [];
  if (known(head)) out.push(head);
  const parts = head.split('.');
  for (let n = parts.length; n >= 1; n -= 1) {
    const candidate = `${parts.slice(0, n).join('/')}.py`;
    if (known(candidate)) {
      out.push(candidate);
      break;
    }
  }
  return out;
}

function testCaseName(id: string, name: string): string {
  const raw = name || testNameOf(id).split('::').pop() || id;
  return raw.replace(/\[.*\]$/, '');
}

function stemOf(file: string): string {
  return path.posix
    .basename(file)
    .replace(/\.(test|spec)(?=\.)/, '')
    .replace(/\.[^.]+$/, '')
    .replace(/^test_|_test$/, '');
}

function innermost(spans: IndexedSpan[], line: number): { inner: IndexedSpan | null; outer: IndexedSpan[] } {
  const containing = spans.filter((s) => s.startLine <= line && line <= s.endLine);
  containing.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine));
  return { inner: containing[0] ?? null, outer: containing.slice(1) };
}

export function rankSpans(input: RankInput): Suspect[] {
  const { root, graph, evidence } = input;
  const scored = new Map<string, Scored>();
  const known = (f: string) => graph.files.has(f);
  const testFile = (f: string) => !!graph.files.get(f)?.isTestFile || isTestPath(f) || !!input.isTestFile?.(f);

  function bump(span: IndexedSpan, points: number, reason: string | string[]): void {
    if (points <= 0) return;
    const key = spanKey(span);
    const entry = scored.get(key) ?? { span, score: 0, reasons: [] };
    entry.score += points;
    for (const r of Array.isArray(reason) ? reason : [reason]) if (!entry.reasons.includes(r)) entry.reasons.push(r);
    scored.set(key, entry);
  }

  // ── frames, normalised into the workspace and deduplicated ──
  const frames: StackFrame[] = [];
  const seenFrames = new Set<string>();
  for (const fr of evidence.frames) {
    const rel = toRelative(root, fr.file);
    if (!rel) continue;
    const key = `${rel}:${fr.line}`;
    if (seenFrames.has(key)) continue;
    seenFrames.add(key);
    frames.push({ ...fr, file: rel });
  }

  // ── the failing tests: their files and their spans ──
  const testFiles = new Set<string>();
  for (const t of evidence.failingTests) {
    if (t.file) {
      const rel = toRelative(root, t.file);
      if (rel && known(rel)) testFiles.add(rel);
    }
    for (const f of filesFromTestId(t.id, known)) testFiles.add(f);
  }
  for (const fr of frames) {
    const idx = graph.files.get(fr.file);
    if (idx && testFile(fr.file)) testFiles.add(fr.file);
  }
  const testNames = new Set(evidence.failingTests.map((t) => testCaseName(t.id, t.name)));
  const failingTestSpans: IndexedSpan[] = [];
  for (const file of testFiles) {
    const idx = graph.files.get(file);
    if (!idx) continue;
    for (const span of idx.spans) {
      const named = span.isTest && (testNames.has(span.name) || testNames.has(span.symbol));
      const framed = span.isTest && frames.some((fr) => fr.file === file && span.startLine <= fr.line && fr.line <= span.endLine);
      if (named || framed) failingTestSpans.push(span);
    }
  }
  const failingTestKeys = new Set(failingTestSpans.map(spanKey));

  // spans a stack frame lies in or the change edited: direct evidence, never demoted as wrappers
  const direct = new Set<string>();

  // ── stack frames ──
  // V8 prints the innermost frame first, Python's traceback the outermost:
  // when the first workspace frame is the test's own, the list is outermost-first.
  const isTestFrame = (fr: StackFrame) => testFiles.has(fr.file) || testFile(fr.file);
  const ordered = frames.length && isTestFrame(frames[0]) && frames.some((f) => !isTestFrame(f)) ? [...frames].reverse() : frames;
  const windows: Scored[] = [];
  let depth = 0;
  for (const fr of ordered) {
    const idx = graph.files.get(fr.file);
    const { inner, outer } = idx ? innermost(idx.spans, fr.line) : { inner: null, outer: [] };
    const where = `${fr.file}:${fr.line}`;
    if (isTestFrame(fr)) {
      // a test frame closes one failing test's stack: the next frame starts another
      depth = 0;
      if (inner?.isTest) bump(inner, WEIGHTS.testFrame, `failing test's own code (frame ${where})`);
      continue;
    }
    const points = WEIGHTS.frame * WEIGHTS.frameDecay ** depth;
    depth += 1;
    if (inner) {
      bump(inner, points, `stack frame ${where}${fr.fn ? ` (${fr.fn})` : ''}`);
      direct.add(spanKey(inner));
      for (const o of outer) bump(o, points * WEIGHTS.enclosing, `encloses stack frame ${where}`);
    } else if (idx || input.fileExists(fr.file)) {
      // another language, or module-level code: a window of lines around the frame
      windows.push(makeWindow(fr.file, fr.line - WEIGHTS.windowRadius, fr.line + WEIGHTS.windowRadius, points, `stack frame ${where}`));
    }
  }
  // frame function names whose file did not resolve (compiled output, other roots)
  const frameFns = new Set<string>();
  for (const fr of evidence.frames) {
    if (fr.fn && (!toRelative(root, fr.file) || !graph.files.has(toRelative(root, fr.file) ?? ''))) {
      const last = fr.fn.split('.').pop() ?? fr.fn;
      if (last && !/^<|anonymous|^Object$/.test(last)) frameFns.add(last);
    }
  }
  for (const name of frameFns) for (const span of graph.byName.get(name) ?? []) bump(span, WEIGHTS.frameFnName, `a stack frame names ${name}`);

  // ── the change's own edits ──
  for (const edit of input.editedSpans) {
    const idx = graph.files.get(edit.file);
    const where = `${edit.file}:${edit.startLine}-${edit.endLine}`;
    if (!idx) {
      if (input.fileExists(edit.file)) {
        const end = Math.min(edit.endLine, edit.startLine + 4 * WEIGHTS.windowRadius);
        windows.push(makeWindow(edit.file, edit.startLine - 2, end + 2, WEIGHTS.edited, `edited by the change (${where})`));
      }
      continue;
    }
    const overlapping = idx.spans.filter((s) => s.startLine <= edit.endLine && edit.startLine <= s.endLine);
    // The innermost spans get the full prior; those that only enclose them get a share.
    const inner = overlapping.filter((s) => !overlapping.some((o) => o !== s && s.startLine <= o.startLine && o.endLine <= s.endLine));
    for (const s of overlapping) {
      bump(s, inner.includes(s) ? WEIGHTS.edited : WEIGHTS.edited * WEIGHTS.enclosing, `edited by the change (${where})`);
    }
    for (const s of inner) direct.add(spanKey(s));
    if (overlapping.length === 0 && !idx.isTestFile) {
      windows.push(makeWindow(edit.file, edit.startLine - 2, edit.endLine + 2, WEIGHTS.edited * 0.5, `edited by the change at module level (${where})`));
    }
  }

  // ── symbols named by the evidence ──
  const symbolSet = new Set(evidence.symbols.flatMap((s) => [s, s.split('.').pop() ?? s]));
  const mentionText = [...evidence.failingTests.map((t) => `${t.name} ${t.message}`), ...evidence.messages].join('\n');
  const mentioned = words(mentionText);
  const mentions: IndexedSpan[] = []; // scored with proximity below: it relates a span to the test, like a call does
  for (const idx of graph.files.values()) {
    for (const span of idx.spans) {
      if (span.isTest) continue;
      if (symbolSet.has(span.symbol) || symbolSet.has(span.name)) bump(span, WEIGHTS.symbol, `named in the evidence (${span.name})`);
      else if (span.name.length >= 3 && !COMMON_WORDS.has(span.name.toLowerCase()) && (mentioned.has(span.name) || mentioned.has(span.name.toLowerCase()))) {
        mentions.push(span);
      }
    }
  }

  // ── graph: imports and calls from the failing tests ──
  const importDist = importDistances(graph, [...testFiles]);
  const testStems = new Set([...testFiles].map(stemOf));
  const testDirs = new Set([...testFiles].map((f) => path.posix.dirname(f)));
  const callDist = callDistances(
    graph,
    failingTestSpans.length ? failingTestSpans : [...testFiles].flatMap((f) => graph.files.get(f)?.spans.filter((s) => s.isTest) ?? []),
    importDist,
  );
  const proximity = new Map<string, { span: IndexedSpan; graph: number; extra: number; reasons: string[] }>();
  function near(span: IndexedSpan, kind: 'graph' | 'extra', points: number, reason: string): void {
    const key = spanKey(span);
    const p = proximity.get(key) ?? { span, graph: 0, extra: 0, reasons: [] };
    if (kind === 'graph') p.graph = Math.max(p.graph, points);
    else p.extra += points;
    p.reasons.push(reason);
    proximity.set(key, p);
  }
  for (const idx of graph.files.values()) {
    if (testFiles.has(idx.file)) continue;
    const d = importDist.get(idx.file);
    const namesake = testStems.has(stemOf(idx.file));
    const sameDir = testDirs.has(path.posix.dirname(idx.file));
    for (const span of idx.spans) {
      if (span.isTest) continue;
      if (d !== undefined && d > 0 && d < WEIGHTS.importDist.length)
        near(span, 'graph', WEIGHTS.importDist[d], d === 1 ? 'imported by the failing test file' : `${d} imports from the failing test file`);
      if (namesake) near(span, 'extra', WEIGHTS.namesake, 'file named like the failing test file');
      if (sameDir) near(span, 'extra', WEIGHTS.sameDir, 'same folder as the failing test');
    }
  }
  for (const span of mentions) near(span, 'extra', WEIGHTS.testNameMention, `mentioned by the failing test (${span.name})`);
  for (const [key, d] of callDist) {
    const span = findSpan(graph, key);
    if (span && !span.isTest && d < WEIGHTS.call.length)
      near(span, 'graph', WEIGHTS.call[d], d === 1 ? 'called by the failing test' : `call distance ${d} from the failing test`);
  }
  const spectrum = input.coverage && input.coverage.totalFailed > 0 ? input.coverage : undefined;
  for (const p of proximity.values()) {
    bump(p.span, Math.min(WEIGHTS.proximityCap, p.graph + p.extra) * (spectrum ? WEIGHTS.proximityWithCoverage : 1), p.reasons);
  }

  // ── coverage: the spectrum of the failing and passing tests ──
  const ranByFailing = new Set<string>();
  if (spectrum) {
    for (const idx of graph.files.values()) {
      if (testFile(idx.file) || testFiles.has(idx.file)) continue;
      for (const span of idx.spans) {
        if (span.isTest) continue;
        const s = spanSuspiciousness(spectrum, span.file, span.startLine, span.endLine);
        if (!s) continue;
        ranByFailing.add(spanKey(span));
        bump(
          span,
          WEIGHTS.coverage * s.score,
          `Ochiai ${s.score.toFixed(2)}: line ${s.line} ran in ${s.failed}/${spectrum.totalFailed} failing and ${s.passed}/${spectrum.totalPassed} passing ${spectrum.unit === 'run' ? 'runs' : 'tests'}`,
        );
      }
    }
    // A failing test's own case, when it may be the fix's place (a stale
    // expectation): its lines run in that one failing test and no other, so
    // their Ochiai is 1/sqrt(totalFailed). Test code is not in the spectrum.
    if (input.keepFailingTests) {
      const own = 1 / Math.sqrt(spectrum.totalFailed);
      for (const span of failingTestSpans) bump(span, WEIGHTS.coverage * own, `Ochiai ${own.toFixed(2)}: the failing test's own code`);
    }
  }

  // ── factors, then order ──
  const all: Scored[] = [...scored.values()].map((e) => {
    let score = e.score;
    if (e.span.kind === 'class') score *= WEIGHTS.classFactor;
    if (spectrum && !ranByFailing.has(spanKey(e.span)) && !e.span.isTest && failingTestsRan(spectrum, e.span.file)) {
      score *= WEIGHTS.notRunFactor;
      e.reasons.push('no failing test ran it (coverage)');
    }
    if (e.span.isTest && !failingTestKeys.has(spanKey(e.span))) score *= WEIGHTS.otherTestFactor;
    else if (!e.span.isTest && testFiles.has(e.span.file)) score *= WEIGHTS.testHelperFactor;
    return { ...e, score };
  });
  demoteWrappers(
    all.filter((e) => !direct.has(spanKey(e.span))),
    all,
    graph,
    (span) => (spectrum ? ranByFailing.has(spanKey(span)) : true),
    testFile,
  );
  all.push(...mergeWindows(windows));
  // Suspects are where the policy may edit: production code only (the failing
  // test's own case stays when the change contradicts its expectation)
  const production = all.filter((e) => {
    if (input.keepFailingTests && failingTestKeys.has(spanKey(e.span))) return true;
    return !e.span.isTest && !testFile(e.span.file) && !testFiles.has(e.span.file);
  });
  production.sort(
    (a, b) =>
      b.score - a.score ||
      a.span.endLine - a.span.startLine - (b.span.endLine - b.span.startLine) ||
      a.span.file.localeCompare(b.span.file) ||
      a.span.startLine - b.span.startLine,
  );
  return production.map(({ span, score, reasons }) => ({
    file: span.file,
    symbol: span.symbol,
    kind: span.kind,
    startLine: span.startLine,
    endLine: span.endLine,
    score: Math.round(score * 100) / 100,
    reasons,
  }));
}

const lengthOf = (s: IndexedSpan) => s.endLine - s.startLine + 1;

/**
 * The wrapper rule (the header): each thin function among `wrappers` (the
 * scored spans no stack frame lies in and the change did not edit) hands its score to the larger function it delegates to, which the failing
 * tests ran (`ranByFailing`), and keeps wrapperFactor of it. Wrappers go
 * highest score first, so that a chain of them ends at the function doing
 * the work. Callees are found by name, in the wrapper's own file or the files
 * it imports when one is there.
 */
function demoteWrappers(
  wrappers: Scored[],
  all: Scored[],
  graph: CodeGraph,
  ranByFailing: (span: IndexedSpan) => boolean,
  testFile: (file: string) => boolean,
): void {
  const byKey = new Map(all.map((e) => [spanKey(e.span), e]));
  const isFn = (s: IndexedSpan) => (s.kind === 'function' || s.kind === 'method') && !s.isTest && !testFile(s.file);
  for (const w of [...wrappers].sort((a, b) => b.score - a.score)) {
    if (!isFn(w.span) || lengthOf(w.span) > WEIGHTS.wrapperMaxLines || w.score <= 0) continue;
    const near = new Set([w.span.file, ...(graph.imports.get(w.span.file) ?? [])]);
    const callees = [...(graph.callsFrom.get(spanKey(w.span)) ?? [])]
      .flatMap((name) => graph.byName.get(name) ?? [])
      .filter((c) => isFn(c) && spanKey(c) !== spanKey(w.span) && !(c.file === w.span.file && c.startLine <= w.span.endLine && w.span.startLine <= c.endLine));
    const local = callees.filter((c) => near.has(c.file));
    const doing = (local.length ? local : callees)
      .filter((c) => lengthOf(c) >= WEIGHTS.wrapperWorkRatio * lengthOf(w.span) && ranByFailing(c))
      .map((c) => byKey.get(spanKey(c)))
      .filter((c): c is Scored => !!c)
      .sort((a, b) => b.score - a.score)[0];
    if (!doing) continue;
    const score = w.score;
    if (doing.score < score) doing.score = score;
    w.score = Math.min(score, doing.score) * WEIGHTS.wrapperFactor;
    doing.reasons.push(`does the work of ${w.span.symbol}, a thin wrapper the failing tests ran`);
    w.reasons.push(`thin wrapper of ${doing.span.symbol}: ranked below it`);
  }
}

function findSpan(graph: CodeGraph, key: string): IndexedSpan | null {
  const hash = key.indexOf('#');
  const file = graph.files.get(key.slice(0, hash));
  return file?.spans.find((s) => s.symbol === key.slice(hash + 1)) ?? null;
}

function makeWindow(file: string, start: number, end: number, score: number, reason: string): Scored {
  const startLine = Math.max(1, start);
  return {
    span: { file, symbol: `${file}:${startLine}-${end}`, name: '', kind: 'window', startLine, endLine: end, isTest: false },
    score,
    reasons: [reason],
  };
}

/** Overlapping windows in one file become one, their scores and reasons added. */
function mergeWindows(windows: Scored[]): Scored[] {
  const sorted = [...windows].sort((a, b) => a.span.file.localeCompare(b.span.file) || a.span.startLine - b.span.startLine);
  const out: Scored[] = [];
  for (const w of sorted) {
    const last = out[out.length - 1];
    if (last && last.span.file === w.span.file && w.span.startLine <= last.span.endLine) {
      const endLine = Math.max(last.span.endLine, w.span.endLine);
      last.span = { ...last.span, endLine, symbol: `${last.span.file}:${last.span.startLine}-${endLine}` };
      last.score += w.score;
      for (const r of w.reasons) if (!last.reasons.includes(r)) last.reasons.push(r);
    } else {
      out.push({ ...w, span: { ...w.span }, reasons: [...w.reasons] });
    }
  }
  return out;
}
