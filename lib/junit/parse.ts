import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { formatTestId } from './test-id';
import { AppError } from '../errors';
import type { TestProblem, TestResult, TestStatus } from '../../common/test-results';
import { capChars } from '../../common/text';

// One JUnit XML reader for the agent (reports written by the repository's own
// test command) and for the ingestion API (reports uploaded by CI). Both sides
// must compute the same test ids, so the id rule lives here and nowhere else.
//
// The input is untrusted. saxes never fetches external entities, but we still
// refuse any DOCTYPE outright: a JUnit report has no business declaring one,
// and refusing it closes XXE and entity-expansion ("billion laughs") for good.

export type JunitParseErrorReason = 'doctype' | 'malformed' | 'too_many_cases' | 'too_large' | 'not_junit';

/** A report we will not read. An AppError with code bad_request, so the API answers 400. */
export class JunitParseError extends AppError {
  readonly reason: JunitParseErrorReason;

  constructor(reason: JunitParseErrorReason, message: string, options?: { cause?: unknown }) {
    super('bad_request', message, { details: { reason }, cause: options?.cause });
    this.name = 'JunitParseError';
    this.reason = reason;
  }
}

export interface ParseJunitOptions {
  /** refuse reports with more test cases than this (default 20 000) */
  maxTestCases?: number;
  /** refuse reports larger than this many characters/bytes (default 64 MiB) */
  maxBytes?: number;
  /** cap on message / details / system-out of one test case (default 64 KiB each) */
  maxFieldChars?: number;
  /** the folder the tests ran in: names and files given as absolute paths below it are read relative to it (relativeTestPath) */
  root?: string;
}

/** What a whole report says, passing tests included. */
export interface JunitCounts {
  tests: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  /** the report's own time (root, else the sum of its top suites, else of its cases); null when it has none */
  durationMs: number | null;
}

export interface ParsedJunit {
  /** one per <testcase>, in document order, each with an id unique in the report */
  results: TestResult[];
  summary: JunitCounts;
  /** number of <testsuite> elements */
  suites: number;
  warnings: string[];
}

const DEFAULTS = { maxTestCases: 20_000, maxBytes: 64 * 1024 * 1024, maxFieldChars: 64 * 1024 };

// XML 1.0 forbids these code points; test output (ANSI colours, NUL bytes
// from crashed processes) contains them often enough that we replace rather
// than reject. Lone surrogates come from mis-decoded bytes.
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces characters XML cannot carry (and lone surrogates) with U+FFFD. */
export function sanitizeXmlText(text: string): string {
  return text.replace(INVALID_XML_CHARS, '\uFFFD');
}

interface DecodedReport {
  text: string;
  /** how the bytes were read, for an error about them; null for UTF-8 without a byte order mark */
  readAs: string | null;
  warning?: string;
}

const CANNOT_READ = 'which cannot be read here: write it in UTF-8 or UTF-16';

/**
 * The report's bytes as text, by the rules of XML 1.0 (appendix F): a byte
 * order mark first (UTF-8, UTF-16 either way; UTF-32 is refused), else
 * UTF-16 told by its first characters "<?", else the encoding its
 * declaration names (UTF-8 when it names none). CI on Windows (.NET,
 * PowerShell) writes UTF-16 with a mark. Decoding is not fatal: a bad
 * sequence becomes U+FFFD rather than failing the upload, and a report that
 * does not decode to well-formed XML is refused by the parser.
 */
function decodeBytes(b: Uint8Array): DecodedReport {
  const starts = (...head: number[]) => head.every((v, i) => b[i] === v);
  const decode = (encoding: string, skip: number) => new TextDecoder(encoding, { fatal: false, ignoreBOM: true }).decode(b.subarray(skip));
  if (starts(0xff, 0xfe, 0, 0) || starts(0, 0, 0xfe, 0xff)) {
    throw new JunitParseError('malformed', `JUnit report is in UTF-32 (by its byte order mark), ${CANNOT_READ}`);
  }
  if (starts(0xef, 0xbb, 0xbf)) return { text: decode('utf-8', 3), readAs: 'UTF-8, from its byte order mark' };
  if (starts(0xff, 0xfe)) return { text: decode('utf-16le', 2), readAs: 'UTF-16LE, from its byte order mark' };
  if (starts(0xfe, 0xff)) return { text: decode('utf-16be', 2), readAs: 'UTF-16BE, from its byte order mark' };
  if (starts(0x3c, 0, 0x3f, 0)) return { text: decode('utf-16le', 0), readAs: 'UTF-16LE, from its first characters' };
  if (starts(0, 0x3c, 0, 0x3f)) return { text: decode('utf-16be', 0), readAs: 'UTF-16BE, from its first characters' };
  // single bytes from here: the declaration, if any, is ASCII
  const head = new TextDecoder('latin1').decode(b.subarray(0, 512));
  const declared = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([A-Za-z][A-Za-z0-9._:-]*)\1/.exec(head)?.[2];
  if (!declared) return { text: decode('utf-8', 0), readAs: null };
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(declared, { fatal: false, ignoreBOM: true });
  } catch {
    throw new JunitParseError('malformed', `JUnit report declares the encoding "${declared}", ${CANNOT_READ}`);
  }
  if (decoder.encoding === 'utf-8') return { text: decoder.decode(b), readAs: null };
  if (decoder.encoding.startsWith('utf-16')) {
    // UTF-16 would have shown in its first bytes: the declaration is wrong, the bytes are what was written
    return {
      text: decode('utf-8', 0),
      readAs: 'UTF-8',
      warning: `the report declares ${declared.toUpperCase()} but is written in single bytes: read as UTF-8`,
    };
  }
  const text = decoder.encoding === 'windows-1252' ? fixWindows1252(decoder.decode(b)) : decoder.decode(b);
  return { text, readAs: `${decoder.encoding}, as its declaration says` };
}

// windows-1252's 0x80-0x9F as the Encoding Standard maps them (ISO-8859-1 and
// latin1 labels mean windows-1252 there); Node 20's decoder leaves them as the
// C1 controls U+0080-U+009F. The five bytes windows-1252 leaves undefined stay.
const WINDOWS_1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';
function fixWindows1252(text: string): string {
  return text.replace(/[\u0080-\u009F]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]);
}

function decodeInput(input: string | Uint8Array): DecodedReport {
  const decoded = typeof input === 'string' ? { text: input, readAs: null } : decodeBytes(input);
  const text = decoded.text.charCodeAt(0) === 0xfeff ? decoded.text.slice(1) : decoded.text;
  return { ...decoded, text: sanitizeXmlText(text) };
}

interface CaseDraft {
  name: string;
  classname?: string;
  file?: string;
  line?: number;
  durationMs?: number;
  status: TestStatus;
  /** each <failure> and <error>, in order */
  problems: Array<TestProblem & { body: string }>;
  skipMessage?: string;
  skipBody: string;
  out: string;
  err: string;
  suitePath: string[];
}

type Collecting = 'problem' | 'skip' | 'out' | 'err' | null;

function attr(tag: SaxesTagPlain, name: string): string | undefined {
  const value = tag.attributes[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function parseSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value.replace(/,/g, ''));
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : undefined;
}

/**
 * A name or file as an absolute path below `root`, relative to it. node --test
 * names a test file that fails to load by its absolute path; in a run folder
 * that path differs from run to run, and an id built from it would match no
 * other run's. Anything else is returned as it is.
 */
export function relativeTestPath(value: string, root: string | undefined): string {
  if (!root) return value;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return value.startsWith(prefix) && value.length > prefix.length ? value.slice(prefix.length) : value;
}

function looksLikeFilePath(value: string): boolean {
  return /[\\/]/.test(value) || /\.(m?[jt]sx?|cjs|cts|py|go|java|kt|rb|rs)$/.test(value);
}

/**
 * The stable test id "<classname or file>::<name>".
 *
 * - jest-junit writes the same text in classname and name by default; then
 *   the file (or the suite) is the better key.
 * - `node --test --test-reporter=junit` writes classname="test" for every
 *   case and nests describe() blocks as <testsuite>; the suite path goes into
 *   the name so that two describe blocks with a same-named test stay apart.
 */
export function junitTestId(input: { name: string; classname?: string; file?: string; suitePath?: string[] }): {
  id: string;
  name: string;
} {
  const suitePath = input.suitePath ?? [];
  const nodeStyle = input.classname === 'test' && !input.file;
  const name = nodeStyle && suitePath.length > 0 ? [...suitePath, input.name].join(' > ') : input.name;
  const classname = input.classname && input.classname !== input.name ? input.classname : undefined;
  const key = classname ?? input.file ?? suitePath.at(-1) ?? '';
  return { id: formatTestId(key, name), name };
}

function capField(text: string, max: number, warnings: string[], what: string): string {
  if (text.length <= max) return text;
  warnings.push(`${what} cut from ${text.length} to ${max} characters`);
  return capChars(text, max);
}

function trimBlock(text: string): string {
  // Producers indent element bodies; keep internal layout, drop the outer blank lines.
  return text.replace(/^\s*\n/, '').replace(/\s+$/, '');
}

/** Reads JUnit XML as written by jest-junit, vitest, node --test, pytest, Surefire and go-junit-report. */
export function parseJunitXml(input: string | Uint8Array, opts: ParseJunitOptions = {}): ParsedJunit {
  const limits = { ...DEFAULTS, ...opts };
  const size = typeof input === 'string' ? input.length : input.byteLength;
  if (size > limits.maxBytes) {
    throw new JunitParseError('too_large', `JUnit report is ${size} bytes; the limit is ${limits.maxBytes}`);
  }
  const { text: xml, readAs, warning } = decodeInput(input);

  const results: TestResult[] = [];
  const warnings: string[] = warning ? [warning] : [];
  const suitePath: string[] = [];
  let suites = 0;
  let rootSeen = false;
  let rootDurationMs: number | undefined;
  let topSuitesMs: number | undefined;
  let pytest = false;
  let current: CaseDraft | null = null;
  let collecting: Collecting = null;
  let depthInCase = 0;

  const parser = new SaxesParser({ xmlns: false, position: true });

  parser.on('doctype', () => {
    throw new JunitParseError('doctype', 'JUnit report declares a DOCTYPE; refused (no DTDs or entities allowed)');
  });

  parser.on('opentag', (tag) => {
    const name = tag.name;
    if (!rootSeen) {
      rootSeen = true;
      if (name !== 'testsuites' && name !== 'testsuite') {
        throw new JunitParseError('not_junit', `root element is <${name}>, expected <testsuites> or <testsuite>`);
      }
      if (attr(tag, 'name') === 'pytest tests') pytest = true;
      if (name === 'testsuites') rootDurationMs = parseSeconds(attr(tag, 'time'));
    }
    if (current) {
      depthInCase++;
      openInCase(tag);
      return;
    }
    if (name === 'testsuite') {
      suites++;
      if (suitePath.length === 0) {
        const ms = parseSeconds(attr(tag, 'time'));
        if (ms !== undefined) topSuitesMs = (topSuitesMs ?? 0) + ms;
      }
      const suiteName = attr(tag, 'name') ?? '';
      if (suiteName === 'pytest') pytest = true;
      suitePath.push(suiteName);
    } else if (name === 'testcase') {
      if (results.length >= limits.maxTestCases) {
        throw new JunitParseError('too_many_cases', `JUnit report has more than ${limits.maxTestCases} test cases`);
      }
      const line = attr(tag, 'line');
      const parsedLine = line !== undefined && /^\d+$/.test(line) ? Number(line) : undefined;
      const file = attr(tag, 'file');
      current = {
        name: relativeTestPath(attr(tag, 'name') ?? '(unnamed)', limits.root),
        classname: attr(tag, 'classname'),
        file: file === undefined ? undefined : relativeTestPath(file, limits.root),
        // pytest writes the 0-based line of the test function
        line: parsedLine === undefined ? undefined : pytest ? parsedLine + 1 : parsedLine,
        durationMs: parseSeconds(attr(tag, 'time')),
        status: 'passed',
        problems: [],
        skipBody: '',
        out: '',
        err: '',
        suitePath: suitePath.filter((s) => s !== '' && s !== 'pytest'),
      };
      depthInCase = 0;
    }
  });

  function openInCase(tag: SaxesTagPlain): void {
    if (!current || depthInCase !== 1) return;
    switch (tag.name) {
      case 'failure':
      case 'error': {
        // an error (the test crashed) outranks a failure (an assertion) in the status; both are kept
        const kind = tag.name === 'error' ? 'error' : 'failure';
        if (kind === 'error') current.status = 'error';
        else if (current.status !== 'error') current.status = 'failed';
        current.problems.push({ kind, message: attr(tag, 'message'), body: '' });
        collecting = 'problem';
        break;
      }
      case 'skipped':
        if (current.status === 'passed') {
          current.status = 'skipped';
          current.skipMessage ??= attr(tag, 'message');
          collecting = 'skip';
        }
        break;
      case 'system-out':
        collecting = 'out';
        break;
      case 'system-err':
        collecting = 'err';
        break;
      default:
        // properties, Surefire's flakyFailure/rerunFailure (the test passed on rerun): not a status
        collecting = null;
    }
  }

  function collect(text: string): void {
    if (!current || collecting === null) return;
    if (collecting === 'problem') current.problems[current.problems.length - 1].body += text;
    else if (collecting === 'skip') current.skipBody += text;
    else if (collecting === 'out') current.out += text;
    else current.err += text;
  }

  parser.on('text', collect);
  parser.on('cdata', collect);

  parser.on('closetag', (tag) => {
    if (current) {
      if (depthInCase > 0) {
        if (depthInCase === 1) collecting = null;
        depthInCase--;
        return;
      }
      if (tag.name === 'testcase') {
        results.push(finishCase(current));
        current = null;
      }
      return;
    }
    if (tag.name === 'testsuite') suitePath.pop();
  });

  function finishCase(draft: CaseDraft): TestResult {
    const { id, name } = junitTestId(draft);
    const problems = draft.problems.map((p) => {
      const body = trimBlock(p.body);
      return { ...p, body, message: p.message === undefined ? firstLine(body) : withBodyLineBreaks(p.message, body) };
    });
    // one problem: its body as it is; several: each under a heading with its kind and message
    const rawDetails =
      problems.length === 0
        ? trimBlock(draft.skipBody)
        : problems.length === 1
          ? problems[0].body
          : problems.map((p) => `[${p.kind}] ${p.message}\n${p.body}`.trimEnd()).join('\n\n');
    const details = capField(rawDetails, limits.maxFieldChars, warnings, `details of ${id}`);
    const err = trimBlock(draft.err);
    const outText = [trimBlock(draft.out), err ? `[stderr]\n${err}` : ''].filter(Boolean).join('\n');
    const file = draft.file ?? (draft.classname && looksLikeFilePath(draft.classname) ? draft.classname : undefined);
    const message = (problems[0]?.message || undefined) ?? draft.skipMessage ?? (details ? firstLine(details) : undefined);
    const result: TestResult = { id, name, status: draft.status };
    if (draft.classname) result.classname = draft.classname;
    if (file) result.file = file;
    if (draft.line !== undefined) result.line = draft.line;
    if (draft.status !== 'passed' && message) result.message = capField(message, limits.maxFieldChars, warnings, `message of ${id}`);
    if (details && draft.status !== 'passed') result.details = details;
    if (problems.length > 0) {
      result.problems = problems.map(({ kind, message: m }) => ({
        kind,
        ...(m ? { message: capField(m, limits.maxFieldChars, warnings, `message of ${id}`) } : {}),
      }));
    }
    if (outText) result.systemOut = capField(outText, limits.maxFieldChars, warnings, `output of ${id}`);
    if (draft.durationMs !== undefined) result.durationMs = draft.durationMs;
    return result;
  }

  try {
    parser.write(xml).close();
  } catch (err) {
    if (err instanceof JunitParseError) throw err;
    const report = readAs ? `JUnit report (read as ${readAs})` : 'JUnit report';
    throw new JunitParseError('malformed', `${report} is not well-formed XML: ${(err as Error).message}`, { cause: err });
  }
  if (!rootSeen) throw new JunitParseError('not_junit', 'JUnit report has no root element');
  if (results.length === 0) warnings.push('no test cases found');
  for (const renamed of disambiguateTestIds(results)) warnings.push(`repeated test id ${renamed.from} stored as ${renamed.to}`);
  const count = (status: TestStatus) => results.filter((r) => r.status === status).length;
  const caseMs = results.reduce<number | undefined>((sum, r) => (r.durationMs === undefined ? sum : (sum ?? 0) + r.durationMs), undefined);
  const summary: JunitCounts = {
    tests: results.length,
    passed: count('passed'),
    failed: count('failed'),
    errored: count('error'),
    skipped: count('skipped'),
    durationMs: rootDurationMs ?? topSuitesMs ?? caseMs ?? null,
  };
  return { results, summary, suites, warnings };
}

/** Several reports' counts as one (shards of one run); the duration is null only when no report had one. */
export function addJunitCounts(all: readonly JunitCounts[]): JunitCounts {
  const sum = (pick: (c: JunitCounts) => number) => all.reduce((n, c) => n + pick(c), 0);
  const timed = all.filter((c) => c.durationMs !== null);
  return {
    tests: sum((c) => c.tests),
    passed: sum((c) => c.passed),
    failed: sum((c) => c.failed),
    errored: sum((c) => c.errored),
    skipped: sum((c) => c.skipped),
    durationMs: timed.length === 0 ? null : timed.reduce((n, c) => n + (c.durationMs ?? 0), 0),
  };
}

/**
 * Makes test ids unique in place: the second and later cases with an id
 * already taken become "<id> [2]", "<id> [3]", … in document order, skipping
 * any id another case really has. Runners repeat names (jest-junit in a
 * broken suite, parametrised tests, retried shards); keying by the bare id
 * would silently drop all but one. Deterministic, so a repost, the agent's
 * own run of the same tests and the ingested failures agree.
 */
export function disambiguateTestIds(results: Array<{ id: string }>): Array<{ from: string; to: string }> {
  const taken = new Set(results.map((r) => r.id));
  const seen = new Set<string>();
  const renamed: Array<{ from: string; to: string }> = [];
  for (const result of results) {
    if (!seen.has(result.id)) {
      seen.add(result.id);
      continue;
    }
    let n = 2;
    while (taken.has(`${result.id} [${n}]`)) n++;
    const to = `${result.id} [${n}]`;
    renamed.push({ from: result.id, to });
    taken.add(to);
    seen.add(to);
    result.id = to;
  }
  return renamed;
}

/**
 * A message attribute as its element's body writes it. XML turns every line
 * break and tab of an attribute value into a space (unless the producer wrote
 * `&#10;`, as pytest does), so jest-junit's multi-line assertion messages lose
 * their layout; the body, which usually repeats the message before the stack,
 * keeps it. The message is looked up in the body with every whitespace run
 * taken as one; found, the body's text of it is the message, else the
 * attribute stays as written.
 */
export function withBodyLineBreaks(message: string, body: string): string {
  const wanted = message.trim().replace(/\s+/g, ' ');
  if (wanted === '' || body === '') return message;
  // the body with its whitespace runs collapsed, and where each collapsed character starts in the body
  let collapsed = '';
  const at: number[] = [];
  const runs = /\s+|\S+/g;
  for (let m = runs.exec(body); m; m = runs.exec(body)) {
    if (/^\s/.test(m[0])) {
      collapsed += ' ';
      at.push(m.index);
    } else {
      collapsed += m[0];
      for (let i = 0; i < m[0].length; i++) at.push(m.index + i);
    }
  }
  const start = collapsed.indexOf(wanted);
  if (start < 0) return message;
  const last = start + wanted.length - 1;
  const found = body.slice(at[start], at[last] + 1);
  return /[\n\t]/.test(found) ? found : message;
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  );
}
