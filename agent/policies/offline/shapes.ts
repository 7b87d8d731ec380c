// Bug shapes real runs needed and the first templates could not express:
//   value-guard        a guard at a function's entry for the kind of bad value the
//                      failure names: missing (`x == null`), not finite
//                      (`!Number.isFinite(x)`), not a string (`typeof x !== 'string'`),
//                      returning what the function returns or throwing when the
//                      test expected a throw
//   regex-edit         a regular expression's character class (a character added
//                      or removed), an escape, a `\s`/`\w`/`\d` swap, a flag, an anchor
//   pass-argument      a call that leaves out a parameter its callee declares and
//                      reads, where a name in scope matches it (`f(x)` → `f(x, options)`)
//   length-off-by-one  `len(x)` / `x.length` ± 1 wherever it is, not only as an index
//   two-token          an equality test and its constant together (`== 0` → `<= 1`)
// Each edit carries a likelihood from the failure's evidence (what the messages
// and the expected/actual values say), so a shape the evidence points at is
// tried before the many single-token edits around it.
import ts from 'typescript';
import type { Evidence, ExpectedActual } from '../../types';
import { parseTs } from '../../scaffold/typescript';
import { evidenceValue, renderLiteral } from './literals';
import type { Mutation, Range, Site, SiteLanguage } from './model';
import { variablesInScope } from './ts-structure';

type SiteOf<K extends Site['kind']> = Extract<Site, { kind: K }>;

/**
 * How much an edit of a shape the evidence names is likelier than one it is
 * silent about. Below CRASH_SITE_FACTOR (a message that names the very read)
 * and above the spread between a common and a rare pattern prior (8×), so a
 * named shape comes before the single-token edits of the same suspect.
 */
export const SHAPE_CUE_FACTOR = 8;

/** What the failure says about the kind of bug, read off its messages and expected/actual values. */
export interface Cues {
  /** a missing value: undefined/null/None where a value was expected */
  missing: boolean;
  /** the properties the failure read off a missing value, when it names them */
  missingReads: string[];
  /** NaN or an infinity */
  nonFinite: boolean;
  /** methods called on a value that lacks them ("x.trim is not a function", "'int' object has no attribute 'lower'") */
  notAFunction: string[];
  /** the test expected a throw that never came */
  expectsThrow: boolean;
  /** two numbers one apart, or two strings or lists one element apart in length */
  offByOne: boolean;
  /** the failure is about matching or parsing text: a message about a pattern, a match or an invalid value */
  text: boolean;
  /** the code recursed without end: a base case's condition is too narrow */
  recursion: boolean;
  /** punctuation in the expected values and messages: what a character class may lack */
  punctuation: string[];
}

function listLength(v: string): number | null {
  const t = v.trim();
  if (!/^[[(]/.test(t)) return null;
  const inner = t.slice(1, -1).trim();
  if (!inner) return 0;
  let depth = 0;
  let n = 1;
  for (const c of inner) {
    if ('[({'.includes(c)) depth += 1;
    else if ('])}'.includes(c)) depth -= 1;
    else if (c === ',' && depth === 0) n += 1;
  }
  return inner.endsWith(',') ? n - 1 : n;
}

/** What the cues are read from: the failure's messages and values, and the failing tests' names ("rejects NaN"). */
export type CueSource = Pick<Evidence, 'messages' | 'expectedActual'> & { testNames?: string[] };

export function cuesOf(evidence: CueSource): Cues {
  const messages = evidence.messages.join('\n');
  const names = (evidence.testNames ?? []).join('\n');
  const pairs = evidence.expectedActual;
  const actuals = pairs.map((p) => p.actual.trim());
  const notAFunction = new Set<string>();
  for (const m of messages.matchAll(/\.?([A-Za-z_$][\w$]*) is not a function/g)) notAFunction.add(m[1]);
  for (const m of messages.matchAll(/'(?!NoneType)\w+' object has no attribute '(\w+)'/g)) notAFunction.add(m[1]);
  const offByOne = pairs.some(({ expected, actual }) => {
    const e = evidenceValue(expected);
    const a = evidenceValue(actual);
    if (e.kind === 'number' && a.kind === 'number') return Math.abs(Number(e.value) - Number(a.value)) === 1;
    if (e.kind === 'string' && a.kind === 'string') return Math.abs(e.value.length - a.value.length) === 1;
    const le = listLength(expected);
    const la = listLength(actual);
    return le !== null && la !== null && Math.abs(le - la) === 1;
  });
  const punctuation = new Set<string>();
  for (const p of pairs) for (const c of evidenceValue(p.expected).value) if (/[^\w\s]/.test(c)) punctuation.add(c);
  // quoted in a message or a test's name ("parses 'image/svg+xml'"): the input the pattern refused
  for (const m of `${messages}\n${names}`.matchAll(/(['"`])([^'"`\n]{1,80})\1/g)) for (const c of m[2]) if (/[^\w\s]/.test(c)) punctuation.add(c);
  const missingReads = new Set(propertiesReadOffMissing(evidence.messages));
  for (const m of messages.matchAll(/'NoneType' object has no attribute '(\w+)'/g)) missingReads.add(m[1]);
  return {
    missingReads: [...missingReads],
    missing: /\b(undefined|null|None|NoneType)\b/.test(messages) || actuals.some((a) => /^(undefined|null|None)$/.test(a)),
    nonFinite:
      /\bNaN\b|\b-?Infinity\b|\b-?inf\b|\bnan\b|not finite|finite number/.test(`${messages}\n${names}`) ||
      actuals.some((a) => /^(NaN|-?Infinity|nan|-?inf)$/.test(a)),
    notAFunction: [...notAFunction],
    expectsThrow: /Missing expected (exception|rejection)|DID NOT RAISE|to throw|Expected .* to be thrown/i.test(messages),
    offByOne,
    // a string that came out wrong is every text bug's sign, not a pattern's: only a refusal or a pattern named in the failure counts
    text: /\b(match|pattern|regex|regexp|invalid|parse)\w*/i.test(messages),
    recursion: /RecursionError|maximum recursion depth|Maximum call stack size exceeded/.test(messages),
    punctuation: [...punctuation].slice(0, 8),
  };
}

/** The source with every string body and comment blanked (same length, line breaks kept): what is left is code. */
export function codeOnly(source: string, lang: SiteLanguage): string {
  const out = source.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k += 1) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if ((lang === 'py' && c === '#') || (lang === 'ts' && c === '/' && source[i + 1] === '/')) {
      const e = source.indexOf('\n', i);
      const end = e < 0 ? source.length : e;
      blank(i, end);
      i = end;
    } else if (lang === 'ts' && c === '/' && source[i + 1] === '*') {
      const e = source.indexOf('*/', i + 2);
      const end = e < 0 ? source.length : e + 2;
      blank(i, end);
      i = end;
    } else if (c === '"' || c === "'" || (lang === 'ts' && c === '`')) {
      const q = lang === 'py' && source.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      let j = i + q.length;
      while (j < source.length && !source.startsWith(q, j)) {
        if (source[j] === '\\') j += 1;
        else if (q.length === 1 && c !== '`' && source[j] === '\n') break;
        j += 1;
      }
      blank(i + q.length, Math.min(j, source.length));
      i = Math.min(source.length, j + q.length);
    } else i += 1;
  }
  return out.join('');
}

/** The index of the bracket closing the one at `open` in code-only text, or -1. */
function closing(code: string, open: number): number {
  let depth = 0;
  for (let k = open; k < code.length; k += 1) {
    const c = code[k];
    if (c === '(' || c === '[' || c === '{') depth += 1;
    else if (c === ')' || c === ']' || c === '}') {
      depth -= 1;
      if (depth === 0) return k;
    }
  }
  return -1;
}

/** Top-level comma-separated parts of a bracket's content, as ranges (offsets into the text). */
function splitTop(code: string, from: number, to: number): Range[] {
  const parts: Range[] = [];
  let depth = 0;
  let start = from;
  for (let k = from; k < to; k += 1) {
    const c = code[k];
    if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c)) depth -= 1;
    else if (c === ',' && depth === 0) {
      parts.push({ start, end: k });
      start = k + 1;
    }
  }
  if (code.slice(start, to).trim()) parts.push({ start, end: to });
  return parts
    .map((r) => {
      const lead = code.slice(r.start, r.end).length - code.slice(r.start, r.end).trimStart().length;
      const trail = code.slice(r.start, r.end).length - code.slice(r.start, r.end).trimEnd().length;
      return { start: r.start + lead, end: r.end - trail };
    })
    .filter((r) => r.end > r.start);
}

// ───────────────────────── length ± 1 ─────────────────────────

function lengthReads(code: string, lang: SiteLanguage, window: Range): Range[] {
  const out: Range[] = [];
  const part = code.slice(window.start, window.end);
  if (lang === 'py') {
    for (const m of part.matchAll(/(?<![\w.])len\(/g)) {
      const open = window.start + (m.index ?? 0) + 3;
      const close = closing(code, open);
      if (close > 0) out.push({ start: window.start + (m.index ?? 0), end: close + 1 });
    }
  } else {
    for (const m of part.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*\.length\b(?!\s*=[^=])/g)) {
      out.push({ start: window.start + (m.index ?? 0), end: window.start + (m.index ?? 0) + m[0].length });
    }
  }
  return out;
}

function lengthMutations(source: string, code: string, lang: SiteLanguage, window: Range, cues: Cues): Mutation[] {
  const out: Mutation[] = [];
  // two values one apart are also the sign of the commonest slip, a boundary operator: a length edit comes after those
  const likelihood = cues.offByOne ? SHAPE_CUE_FACTOR / 2 : 1;
  for (const r of lengthReads(code, lang, window)) {
    const expr = source.slice(r.start, r.end);
    if (/\n/.test(expr)) continue;
    const after = code.slice(r.end);
    const before = code.slice(0, r.start);
    // `len(x) - 1` → `len(x)`: the ± 1 that should not be there
    const step = /^\s*([-+])\s*1\b(?!\s*[*/%.])/.exec(after);
    if (step && !/[*/%]\s*$|-\s*$/.test(before)) {
      out.push({
        template: 'length-off-by-one',
        range: { start: r.start, end: r.end + step[0].length },
        replacement: expr,
        prior: 1,
        likelihood,
        description: `\`${expr} ${step[1]} 1\` → \`${expr}\``,
      });
      continue;
    }
    // bare where its neighbours cannot bind tighter than `±`
    const bare =
      /(^|[([,=:{?]|return|\bin|\bif|<=?|>=?|[!=]==?|&&|\|\||\band|\bor|\+)\s*$/.test(before) &&
      /^[ \t]*(\r?\n|$|[)\],;:}?]|<|>|[!=]=|&&|\|\||\band\b|\bor\b|\bif\b|\belse\b|[-+])/.test(after);
    for (const delta of ['- 1', '+ 1'] as const) {
      const replacement = bare ? `${expr} ${delta}` : `(${expr} ${delta})`;
      out.push({
        template: 'length-off-by-one',
        range: r,
        replacement,
        prior: 1,
        likelihood,
        description: `\`${expr}\` → \`${expr} ${delta}\`: a length off by one`,
      });
    }
  }
  return out;
}

// ───────────────────────── two tokens: an equality and its constant ─────────────────────────

function twoTokenMutations(source: string, sites: Site[], cues: Cues): Mutation[] {
  const out: Mutation[] = [];
  for (const site of sites) {
    if (site.kind !== 'equality') continue;
    const right = source.slice(site.right.start, site.right.end).trim();
    if (!/^\d+$/.test(right)) continue;
    const c = Number(right);
    const between = source.slice(site.left.end, site.right.start);
    const positive = site.op === '==' || site.op === '===';
    // `== c` widened to a range that holds c and its neighbour: the case an empty-or-single test wanted
    const proposals: Array<[string, number, number]> = positive
      ? [
          ['<=', c + 1, 1],
          ['>=', c - 1, 0.8],
        ]
      : [
          ['>', c + 1, 1],
          ['<', c - 1, 0.8],
        ];
    for (const [op, value, prior] of proposals) {
      if (value < 0) continue;
      const replacement = between.replace(site.op, op) + String(value);
      out.push({
        template: 'two-token',
        range: { start: site.left.end, end: site.right.end },
        replacement,
        prior,
        likelihood: cues.recursion ? SHAPE_CUE_FACTOR / 2 : 1,
        description: `\`${site.op} ${c}\` → \`${op} ${value}\``,
      });
    }
  }
  return out;
}

// ───────────────────────── regular expressions ─────────────────────────

interface RegexPart {
  /** offsets into the pattern text */
  start: number;
  end: number;
  kind: 'class' | 'escape' | 'char';
  text: string;
}

/** A pattern's top-level pieces: character classes, escapes and single characters (`doubled`: backslashes written twice). */
function regexParts(pattern: string, doubled: boolean): RegexPart[] {
  const bs = doubled ? 2 : 1;
  const out: RegexPart[] = [];
  let i = 0;
  while (i < pattern.length) {
    if (pattern[i] === '\\') {
      const end = Math.min(pattern.length, i + bs + 1);
      out.push({ start: i, end, kind: 'escape', text: pattern.slice(i, end) });
      i = end;
    } else if (pattern[i] === '[') {
      let j = i + 1;
      if (pattern[j] === '^') j += 1;
      if (pattern[j] === ']') j += 1;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? bs + 1 : 1;
      const end = Math.min(pattern.length, j + 1);
      out.push({ start: i, end, kind: 'class', text: pattern.slice(i, end) });
      i = end;
    } else {
      out.push({ start: i, end: i + 1, kind: 'char', text: pattern[i] });
      i += 1;
    }
  }
  return out;
}

/** The items of a class's body (`[a-z_\d]` → `a-z`, `_`, `\d`), as offsets into the class text. */
function classItems(cls: string, doubled: boolean): Range[] {
  const bs = doubled ? 2 : 1;
  const out: Range[] = [];
  let i = cls.startsWith('[^') ? 2 : 1;
  const end = cls.endsWith(']') ? cls.length - 1 : cls.length;
  while (i < end) {
    const len = cls[i] === '\\' ? bs + 1 : 1;
    let stop = i + len;
    if (cls[stop] === '-' && stop + 1 < end) stop += 1 + (cls[stop + 1] === '\\' ? bs + 1 : 1);
    out.push({ start: i, end: stop });
    i = stop;
  }
  return out;
}

const SHORTHAND_SWAPS: Record<string, string[]> = { s: ['S', 'w'], S: ['s'], w: ['W', 's', 'd'], W: ['w'], d: ['D', 'w'], D: ['d'], b: ['B'], B: ['b'] };
/** characters a token class most often lacks (a name's `-`, `_`, `.`; a media type's `+`), then separators */
const DEFAULT_CLASS_CHARS: Array<[string, number]> = [
  ['-', 0.8],
  ['_', 0.8],
  ['.', 0.8],
  ['+', 0.8],
  [' ', 0.5],
  ['/', 0.5],
];
const FLAGS: Array<[string, number]> = [
  ['i', 0.6],
  ['g', 0.4],
  ['m', 0.4],
  ['u', 0.3],
  ['s', 0.3],
];

function regexMutations(source: string, site: SiteOf<'regex'>, cues: Cues): Mutation[] {
  const out: Mutation[] = [];
  const pattern = source.slice(site.pattern.start, site.pattern.end);
  if (/\n/.test(pattern)) return out;
  const bs = site.doubled ? '\\\\' : '\\';
  const likelihood = cues.text ? SHAPE_CUE_FACTOR / 2 : 1;
  const at = (start: number, end: number): Range => ({ start: site.pattern.start + start, end: site.pattern.start + end });
  const push = (range: Range, replacement: string, prior: number, description: string) =>
    out.push({
      template: 'regex-edit',
      range,
      replacement,
      prior,
      likelihood,
      description: `${description} in /${pattern.length > 30 ? `${pattern.slice(0, 30)}…` : pattern}/`,
    });
  const parts = regexParts(pattern, site.doubled);
  for (const part of parts) {
    if (part.kind === 'class') {
      const items = classItems(part.text, site.doubled);
      if (items.length >= 2) {
        for (const it of items) {
          push(at(part.start + it.start, part.start + it.end), '', 0.4, `\`${part.text.slice(it.start, it.end)}\` out of the class \`${part.text}\``);
        }
      }
      const body = part.text.slice(0, -1);
      const has = (c: string) => body.includes(c);
      const adds: Array<[string, number]> = [...cues.punctuation.map((c): [string, number] => [c, 1]), ...DEFAULT_CLASS_CHARS, [`${bs}s`, 0.5]];
      const done = new Set<string>();
      for (const [c, prior] of adds) {
        if (done.has(c) || (c.length === 1 && has(c))) continue;
        done.add(c);
        const written = /^[\]\\^]$/.test(c) ? `${bs}${c}` : c;
        // a literal `-` last in the class stays last: new characters go before it
        const insertAt = body.endsWith('-') && written !== '-' ? part.start + body.length - 1 : part.start + body.length;
        push(at(insertAt, insertAt), written, prior, `\`${c}\` into the class \`${part.text}\``);
      }
    } else if (part.kind === 'escape') {
      const letter = part.text.slice(-1);
      for (const [k, to] of (SHORTHAND_SWAPS[letter] ?? []).entries()) {
        push(at(part.start, part.end), `${bs}${to}`, 0.8 - 0.1 * k, `\`\\${letter}\` → \`\\${to}\``);
      }
      if (letter === '.') push(at(part.start, part.end), '.', 0.6, '`\\.` → `.`, any character');
    } else if (part.text === '.') {
      push(at(part.start, part.end), `${bs}.`, 1, '`.` → `\\.`, a literal dot');
    } else if ((part.text === '+' || part.text === '*') && part.start > 0) {
      push(at(part.start, part.end), part.text === '+' ? '*' : '+', 0.6, `\`${part.text}\` → \`${part.text === '+' ? '*' : '+'}\``);
    }
  }
  if (pattern.startsWith('^')) push(at(0, 1), '', 0.6, 'drop the `^` anchor');
  else push(at(0, 0), '^', 0.7, 'anchor at the start (`^`)');
  const last = parts[parts.length - 1];
  if (last?.kind === 'char' && last.text === '$') push(at(last.start, last.end), '', 0.6, 'drop the `$` anchor');
  else push(at(pattern.length, pattern.length), '$', 0.7, 'anchor at the end (`$`)');
  if (site.flags) {
    const flags = source.slice(site.flags.start, site.flags.end);
    for (const [f, prior] of FLAGS) {
      if (flags.includes(f))
        out.push({
          template: 'regex-edit',
          range: site.flags,
          replacement: flags.replace(f, ''),
          prior: prior * 0.8,
          likelihood,
          description: `drop the regular expression's \`${f}\` flag`,
        });
      else
        out.push({
          template: 'regex-edit',
          range: site.flags,
          replacement: flags + f,
          prior,
          likelihood,
          description: `add the \`${f}\` flag to the regular expression`,
        });
    }
  }
  return out;
}

/**
 * Regular expressions declared outside the suspect and used in it (a
 * module-level `const TYPE_RE = /…/` or `TYPE_RE = re.compile(r'…')`): the
 * pattern is the suspect's logic even though its text is elsewhere.
 */
function referencedRegexes(file: string, source: string, code: string, lang: SiteLanguage, window: Range): Array<SiteOf<'regex'>> {
  const out: Array<SiteOf<'regex'>> = [];
  const part = code.slice(window.start, window.end);
  const used = (name: string) => new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(part);
  const outside = (at: number) => at < window.start || at >= window.end;
  if (lang === 'ts') {
    const sf = parseTs(file, source);
    const visit = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && outside(node.getStart(sf)) && used(node.name.text)) {
        const init = node.initializer;
        if (ts.isRegularExpressionLiteral(init)) {
          const at = init.getStart(sf);
          const close = init.getText(sf).lastIndexOf('/');
          out.push({ kind: 'regex', pattern: { start: at + 1, end: at + close }, flags: { start: at + close + 1, end: init.end }, doubled: false });
        } else if (
          (ts.isNewExpression(init) || ts.isCallExpression(init)) &&
          ts.isIdentifier(init.expression) &&
          init.expression.text === 'RegExp' &&
          init.arguments?.[0] &&
          ts.isStringLiteral(init.arguments[0])
        ) {
          const [pattern, flags] = init.arguments;
          const inner = (n: ts.Node): Range => ({ start: n.getStart(sf) + 1, end: n.end - 1 });
          out.push({ kind: 'regex', pattern: inner(pattern), flags: flags && ts.isStringLiteral(flags) ? inner(flags) : null, doubled: true });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    return out;
  }
  for (const m of code.matchAll(/^[ \t]*([A-Za-z_]\w*)\s*=\s*re\.compile\(\s*/gm)) {
    const at = (m.index ?? 0) + m[0].length;
    if (!outside(m.index ?? 0) || !used(m[1])) continue;
    const lit = /^([rRbBuU]{0,2})(['"])/.exec(source.slice(at));
    if (!lit) continue;
    const bodyStart = at + lit[0].length;
    const close = source.indexOf(lit[2], bodyStart);
    if (close < 0 || source.slice(bodyStart, close).includes('\n')) continue;
    out.push({ kind: 'regex', pattern: { start: bodyStart, end: close }, flags: null, doubled: !/[rR]/.test(lit[1]) });
  }
  return out;
}

/** Python's flags go to the `re` call, not the pattern: `re.search(p, s)` → `re.search(p, s, flags=re.IGNORECASE)`. */
function pyRegexFlags(source: string, code: string, site: SiteOf<'regex'>, cues: Cues): Mutation[] {
  const head = /\bre\.(\w+)\(\s*[rRbBuU]{0,2}['"]$/.exec(source.slice(Math.max(0, site.pattern.start - 60), site.pattern.start));
  if (!head) return [];
  const open = site.pattern.start - head[0].length + head[0].indexOf('(');
  const close = closing(code, open);
  if (close < 0) return [];
  const args = splitTop(code, open + 1, close);
  if (args.length === 0 || args.some((r) => /^flags\s*=|^\*/.test(code.slice(r.start, r.end)))) return [];
  const likelihood = cues.text ? SHAPE_CUE_FACTOR / 2 : 1;
  const at = args[args.length - 1].end;
  return (
    [
      ['IGNORECASE', 0.6],
      ['MULTILINE', 0.4],
      ['DOTALL', 0.3],
    ] as const
  ).map(([flag, prior]) => ({
    template: 'regex-edit' as const,
    range: { start: at, end: at },
    replacement: `, flags=re.${flag}`,
    prior,
    likelihood,
    description: `add \`re.${flag}\` to \`re.${head[1]}\``,
  }));
}

// ───────────────────────── a guard for the kind of bad value the failure names ─────────────────────────

const STRING_METHODS = new Set([
  'trim',
  'trimStart',
  'trimEnd',
  'toLowerCase',
  'toUpperCase',
  'split',
  'replace',
  'replaceAll',
  'startsWith',
  'endsWith',
  'padStart',
  'padEnd',
  'charAt',
  'charCodeAt',
  'normalize',
  'lower',
  'upper',
  'strip',
  'lstrip',
  'rstrip',
  'startswith',
  'endswith',
  'encode',
]);
const ARRAY_METHODS = new Set(['map', 'filter', 'forEach', 'reduce', 'some', 'every', 'find', 'push', 'join', 'append', 'extend']);

function guardMutations(source: string, sites: Site[], lang: SiteLanguage, cues: Cues, expected: ExpectedActual[], window: Range): Mutation[] {
  if (!cues.missing && !cues.nonFinite && !cues.notAFunction.length && !cues.expectsThrow) return [];
  const out: Mutation[] = [];
  const body = source.slice(window.start, window.end);
  const step = /\n\t/.test(source) ? '\t' : /\n {2}\S/.test(source) && !/\n {4}\S/.test(source) ? '  ' : '    ';
  for (const entry of sites) {
    if (entry.kind !== 'entry') continue;
    const values: Array<{ stmt: (cond: string) => string; prior: number }> = [];
    const returns = new Set<string>();
    for (const e of expected) {
      const lit = renderLiteral(evidenceValue(e.expected), lang);
      if (lit) returns.add(lit);
    }
    for (const r of entry.returns) returns.add(r);
    if (entry.empty) returns.add(entry.empty);
    if (lang === 'ts') returns.add('undefined');
    else returns.add('None');
    const rs = [...returns].slice(0, 3);
    if (cues.expectsThrow) {
      values.push({
        stmt: (cond) =>
          lang === 'py'
            ? `${entry.indent}if ${cond}:\n${entry.indent}${step}raise TypeError('invalid argument')\n`
            : `${entry.indent}if (${cond}) throw new TypeError('invalid argument');\n`,
        prior: 1,
      });
    }
    rs.forEach((r, i) =>
      values.push({
        stmt: (cond) => (lang === 'py' ? `${entry.indent}if ${cond}:\n${entry.indent}${step}return ${r}\n` : `${entry.indent}if (${cond}) return ${r};\n`),
        prior: (cues.expectsThrow ? 0.8 : 1) - 0.1 * i,
      }),
    );
    for (const p of entry.params) {
      if (['self', 'cls', 'this'].includes(p.name)) continue;
      // how strongly the evidence names this guard: a kind of value and the read it broke (8), a missing value at a named read (4: `?.` there is likelier), a kind of value alone (4), a missing value alone (2)
      const conds: Array<{ cond: string; weight: number }> = [];
      const reads = (method: string) => new RegExp(`(?<![\\w$.])${p.name}\\s*\\??\\.\\s*${method}\\b`).test(body);
      // a read the message names off a missing value: only the parameter read that way (`?.` at the read is optional-chain's)
      const named = cues.missingReads.some((r) => reads(r.replace(/[^\w$]/g, '')));
      if (cues.missing && (named || cues.missingReads.length === 0))
        conds.push({ cond: lang === 'py' ? `${p.name} is None` : `${p.name} == null`, weight: named ? SHAPE_CUE_FACTOR / 2 : SHAPE_CUE_FACTOR / 4 });
      if (cues.nonFinite && (p.type === 'number' || p.type === 'unknown')) {
        conds.push({
          cond: lang === 'py' ? `${p.name} is None or not abs(${p.name}) < float('inf')` : `!Number.isFinite(${p.name})`,
          weight: SHAPE_CUE_FACTOR,
        });
      }
      for (const m of cues.notAFunction) {
        if (!reads(m)) continue;
        const isString = STRING_METHODS.has(m);
        const isArray = ARRAY_METHODS.has(m);
        const cond =
          lang === 'py'
            ? isString
              ? `not isinstance(${p.name}, str)`
              : isArray
                ? `not isinstance(${p.name}, list)`
                : `not hasattr(${p.name}, '${m}')`
            : isString
              ? `typeof ${p.name} !== 'string'`
              : isArray
                ? `!Array.isArray(${p.name})`
                : `typeof ${p.name}?.${m} !== 'function'`;
        conds.push({ cond, weight: SHAPE_CUE_FACTOR });
      }
      // a throw the test expected for a value of the wrong type: the type the body treats it as
      if (cues.expectsThrow && !cues.missing && !cues.nonFinite && !cues.notAFunction.length) {
        if (p.type === 'string')
          conds.push({ cond: lang === 'py' ? `not isinstance(${p.name}, str)` : `typeof ${p.name} !== 'string'`, weight: SHAPE_CUE_FACTOR / 2 });
        if (p.type === 'number')
          conds.push({ cond: lang === 'py' ? `not isinstance(${p.name}, (int, float))` : `!Number.isFinite(${p.name})`, weight: SHAPE_CUE_FACTOR / 2 });
        if (p.type === 'unknown') conds.push({ cond: lang === 'py' ? `${p.name} is None` : `${p.name} == null`, weight: SHAPE_CUE_FACTOR / 4 });
      }
      for (const { cond, weight } of conds) {
        for (const v of values) {
          const stmt = v.stmt(cond);
          out.push({
            template: 'value-guard',
            range: { start: entry.insertAt, end: entry.insertAt },
            replacement: stmt,
            prior: v.prior,
            likelihood: weight,
            description: `at the function's entry: ${stmt.trim().replace(/\s*\n\s*/g, ' ')}`,
          });
        }
      }
    }
  }
  // `typeof x === 'number'` lets NaN and the infinities through
  if (cues.nonFinite && lang === 'ts') {
    for (const site of sites) {
      if (site.kind !== 'equality') continue;
      const left = source.slice(site.left.start, site.left.end).trim();
      const right = source.slice(site.right.start, site.right.end).trim();
      const x = /^typeof\s+([\w$.]+)$/.exec(left)?.[1];
      if (!x || !/^(['"])number\1$/.test(right)) continue;
      const positive = site.op === '===' || site.op === '==';
      out.push({
        template: 'value-guard',
        range: { start: site.left.start, end: site.right.end },
        replacement: positive ? `Number.isFinite(${x})` : `!Number.isFinite(${x})`,
        prior: 1,
        likelihood: SHAPE_CUE_FACTOR,
        description: `\`typeof ${x}\` is 'number' for NaN and the infinities too: \`Number.isFinite(${x})\``,
      });
    }
  }
  return out;
}

// ───────────────────────── a parameter the call leaves out ─────────────────────────

/** Names alike enough to be the same value passed on: `options`/`opts`/`option`, any case or `_`. */
function sameValue(a: string, b: string): boolean {
  const norm = (s: string) => {
    const t = s.toLowerCase().replace(/_/g, '');
    const stem = t.replace(/s$/, '');
    return { opt: 'option', opts: 'option', cfg: 'config', conf: 'config', settings: 'setting', ctx: 'context' }[t] ?? stem;
  };
  return norm(a) === norm(b);
}

interface Callee {
  params: Array<{ name: string; keywordOnly: boolean }>;
  /** the callee's body text: a parameter it never reads is no fix to pass */
  body: string;
}

function passArgument({
  callee,
  args,
  calleeName,
  insertAt,
  scope,
  enclosingParams,
  lang,
  hasKeywords,
}: {
  callee: Callee;
  args: number;
  calleeName: string;
  insertAt: number;
  scope: string[];
  enclosingParams: Set<string>;
  lang: SiteLanguage;
  hasKeywords: Set<string>;
}): Mutation[] {
  const out: Mutation[] = [];
  callee.params.forEach((p, index) => {
    if ((index < args && !p.keywordOnly) || hasKeywords.has(p.name)) return;
    if (!new RegExp(`(?<![\\w$.])${p.name}(?![\\w$])`).test(callee.body)) return;
    const matches = scope.filter((n) => sameValue(n, p.name)).sort((a, b) => Number(b === p.name) - Number(a === p.name));
    for (const [k, name] of matches.slice(0, 2).entries()) {
      const positional = index === args && !p.keywordOnly && (lang === 'ts' || hasKeywords.size === 0);
      if (!positional && lang === 'ts') continue;
      const text = positional ? name : `${p.name}=${name}`;
      const passedThrough = enclosingParams.has(name);
      out.push({
        template: 'pass-argument',
        range: { start: insertAt, end: insertAt },
        replacement: args > 0 || hasKeywords.size > 0 ? `, ${text}` : text,
        prior: 1 - 0.2 * k,
        likelihood: passedThrough ? SHAPE_CUE_FACTOR / 2 : 1,
        description: `pass \`${name}\` on to \`${calleeName}\` (its parameter \`${p.name}\`)`,
      });
    }
  });
  return out;
}

function tsPassArguments(file: string, source: string, window: Range): Mutation[] {
  const sf = parseTs(file, source);
  const callees = new Map<string, Callee>();
  const declare = (name: string, fn: ts.SignatureDeclaration & { body?: ts.Node }) => {
    if (!fn.body || fn.parameters.some((p) => p.dotDotDotToken || !ts.isIdentifier(p.name))) return;
    callees.set(name, { params: fn.parameters.map((p) => ({ name: (p.name as ts.Identifier).text, keywordOnly: false })), body: fn.body.getText(sf) });
  };
  const collect = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name) declare(node.name.text, node);
    else if (ts.isMethodDeclaration(node) && ts.isIdentifier(node.name)) declare(node.name.text, node);
    else if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      declare(node.name.text, node.initializer);
    ts.forEachChild(node, collect);
  };
  collect(sf);
  const out: Mutation[] = [];
  const visit = (node: ts.Node): void => {
    if (node.end < window.start || node.getStart(sf) > window.end) return;
    if (ts.isCallExpression(node) && node.getStart(sf) >= window.start) {
      const e = node.expression;
      const name = ts.isIdentifier(e)
        ? e.text
        : ts.isPropertyAccessExpression(e) && (e.expression.kind === ts.SyntaxKind.ThisKeyword || ts.isIdentifier(e.expression))
          ? e.name.text
          : null;
      const callee = name ? callees.get(name) : undefined;
      if (name && callee && callee.params.length > node.arguments.length && !node.arguments.some(ts.isSpreadElement)) {
        let fn: ts.Node | undefined = node.parent;
        while (fn && !ts.isFunctionLike(fn)) fn = fn.parent;
        const enclosingParams = new Set(
          fn && ts.isFunctionLike(fn) ? fn.parameters.filter((p) => ts.isIdentifier(p.name)).map((p) => (p.name as ts.Identifier).text) : [],
        );
        const scope = variablesInScope(node, sf).map((v) => v.name);
        const insertAt = node.arguments.length ? node.arguments[node.arguments.length - 1].end : node.arguments.pos;
        out.push(
          ...passArgument({ callee, args: node.arguments.length, calleeName: name, insertAt, scope, enclosingParams, lang: 'ts', hasKeywords: new Set() }),
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function pyParams(code: string, open: number): { params: Callee['params']; ok: boolean } {
  const close = closing(code, open);
  if (close < 0) return { params: [], ok: false };
  const params: Callee['params'] = [];
  let keywordOnly = false;
  for (const r of splitTop(code, open + 1, close)) {
    const t = code.slice(r.start, r.end).trim();
    if (t === '*') keywordOnly = true;
    else if (t.startsWith('**')) continue;
    else if (t.startsWith('*')) keywordOnly = true;
    else if (t === '/') continue;
    else {
      const name = /^(\w+)/.exec(t)?.[1];
      if (name) params.push({ name, keywordOnly });
    }
  }
  return { params, ok: true };
}

function pyPassArguments(source: string, code: string, window: Range): Mutation[] {
  const callees = new Map<string, Callee>();
  const lines = source.split('\n');
  for (const m of code.matchAll(/^([ \t]*)(?:async\s+)?def\s+(\w+)\s*\(/gm)) {
    const open = (m.index ?? 0) + m[0].length - 1;
    const { params, ok } = pyParams(code, open);
    if (!ok) continue;
    const isMethod = m[1].length > 0 && ['self', 'cls'].includes(params[0]?.name ?? '');
    const defLine = source.slice(0, m.index).split('\n').length;
    const bodyLines: string[] = [];
    for (let l = defLine; l < lines.length; l += 1) {
      const line = lines[l];
      if (line.trim() && (/^[ \t]*/.exec(line)?.[0].length ?? 0) <= m[1].length) break;
      bodyLines.push(line);
    }
    callees.set(m[2], { params: isMethod ? params.slice(1) : params, body: bodyLines.join('\n') });
  }
  const out: Mutation[] = [];
  const part = code.slice(window.start, window.end);
  // the enclosing function: the last `def` before the window's calls
  const defs = [...code.slice(0, window.end).matchAll(/^([ \t]*)(?:async\s+)?def\s+(\w+)\s*\(/gm)];
  for (const m of part.matchAll(/(?<![\w.])(?:self\.)?(\w+)\(/g)) {
    const at = window.start + (m.index ?? 0);
    if (/\bdef\s+$/.test(code.slice(Math.max(0, at - 10), at))) continue;
    const callee = callees.get(m[1]);
    if (!callee) continue;
    const open = at + m[0].length - 1;
    const close = closing(code, open);
    if (close < 0) continue;
    const args = splitTop(code, open + 1, close);
    if (args.some((r) => code.slice(r.start, r.end).startsWith('*'))) continue;
    const keywords = new Set(args.map((r) => /^(\w+)\s*=(?!=)/.exec(code.slice(r.start, r.end))?.[1]).filter((k): k is string => !!k));
    const positional = args.filter((r) => !/^(\w+)\s*=(?!=)/.test(code.slice(r.start, r.end))).length;
    if (callee.params.length <= positional + keywords.size) continue;
    const enclosing = defs.filter((d) => (d.index ?? 0) < at).pop();
    const enclosingParams = new Set(enclosing ? pyParams(code, (enclosing.index ?? 0) + enclosing[0].length - 1).params.map((p) => p.name) : []);
    const from = enclosing?.index ?? 0;
    const assigned = [...code.slice(from, at).matchAll(/^[ \t]*(\w+)\s*(?::[^=\n]*)?=(?!=)/gm)].map((a) => a[1]);
    const scope = [...new Set([...enclosingParams, ...assigned])].filter((n) => n !== 'self' && n !== 'cls');
    const insertAt = args.length ? args[args.length - 1].end : open + 1;
    out.push(...passArgument({ callee, args: positional, calleeName: m[1], insertAt, scope, enclosingParams, lang: 'py', hasKeywords: keywords }));
  }
  return out;
}

/**
 * The properties a failing test read off `undefined` or `null`, by V8's
 * messages ("Cannot read properties of undefined (reading 'x')", and the
 * older "Cannot read property 'x' of null"): where a missing value was not
 * expected, `?.` at that property is the smallest fix.
 */
export function propertiesReadOffMissing(messages: string[]): string[] {
  const out = new Set<string>();
  for (const m of messages) {
    for (const x of m.matchAll(/Cannot read propert(?:ies|y) of (?:undefined|null) \(reading '([^']{1,100})'\)/g)) out.add(x[1]);
    for (const x of m.matchAll(/Cannot read property '([^']{1,100})' of (?:undefined|null)/g)) out.add(x[1]);
  }
  return [...out];
}

// ───────────────────────── what a name holds, by how the code uses it ─────────────────────────

/**
 * What each name holds by how the file uses it: a number (`i = 0`, `i += 1`,
 * `xs[i]`, `range(n)`) or a collection (`len(xs)`, `xs[…]`, `xs.append`,
 * `for x in xs`, `xs.length`). A name used both ways is left out: the
 * wrong-variable template never puts a list where the code counts with an
 * integer, or the other way round, unless nothing says which is which.
 */
export function usageKinds(source: string, lang: SiteLanguage): Map<string, 'number' | 'collection'> {
  const code = codeOnly(source, lang);
  const seen = new Map<string, Set<'number' | 'collection'>>();
  const mark = (name: string, kind: 'number' | 'collection') => {
    if (!seen.has(name)) seen.set(name, new Set());
    seen.get(name)!.add(kind);
  };
  const rules: Array<[RegExp, 'number' | 'collection']> =
    lang === 'py'
      ? [
          [/(?<![\w.])len\((\w+)\)/g, 'collection'],
          [/(?<![\w.])(\w+)\[/g, 'collection'],
          [/(?<![\w.])(\w+)\.(?:append|extend|insert|pop|sort|index|count)\(/g, 'collection'],
          [/\bfor\s+[\w, ()]+\s+in\s+(\w+)\s*:/g, 'collection'],
          [/^[ \t]*(\w+)\s*=\s*(?:\[|list\(|sorted\(|tuple\()/gm, 'collection'],
          [/^[ \t]*(\w+)\s*=\s*-?\d+\s*$/gm, 'number'],
          [/(?<![\w.])(\w+)\s*[-+]=\s*\d/g, 'number'],
          [/\bfor\s+(\w+)\s+in\s+range\(/g, 'number'],
          [/[\w\])]\[(\w+)\s*[\]+-]/g, 'number'],
          [/(?<![\w.])range\((\w+)\)/g, 'number'],
        ]
      : [
          [/(?<![\w$.])([A-Za-z_$][\w$]*)\.(?:length|push|pop|shift|unshift|map|filter|forEach|slice|indexOf|includes)\b/g, 'collection'],
          [/\bof\s+([A-Za-z_$][\w$]*)\s*\)/g, 'collection'],
          [/(?<![\w$.])([A-Za-z_$][\w$]*)\s*=\s*\[/g, 'collection'],
          [/(?<![\w$.])([A-Za-z_$][\w$]*)\s*=\s*-?\d+\s*[;,\n]/g, 'number'],
          [/(?<![\w$.])([A-Za-z_$][\w$]*)(?:\+\+|--|\s*[-+]=\s*\d)/g, 'number'],
          [/[\w$\])]\[([A-Za-z_$][\w$]*)\s*[\]+-]/g, 'number'],
        ];
  for (const [re, kind] of rules) for (const m of code.matchAll(re)) mark(m[1], kind);
  const out = new Map<string, 'number' | 'collection'>();
  for (const [name, kinds] of seen) if (kinds.size === 1) out.set(name, [...kinds][0]);
  return out;
}

/** Every shape at one suspect: `window` is the suspect's text (offsets into the source). */
export function shapeMutations({
  file,
  sites,
  source,
  lang,
  evidence,
  window,
}: {
  file: string;
  sites: Site[];
  source: string;
  lang: SiteLanguage;
  evidence: CueSource;
  window: Range;
}): Mutation[] {
  const cues = cuesOf(evidence);
  const code = codeOnly(source, lang);
  const out: Mutation[] = [];
  out.push(...lengthMutations(source, code, lang, window, cues));
  out.push(...twoTokenMutations(source, sites, cues));
  const regexes = [...sites.filter((x): x is SiteOf<'regex'> => x.kind === 'regex'), ...referencedRegexes(file, source, code, lang, window)];
  for (const [i, site] of regexes.entries()) {
    if (regexes.findIndex((r) => r.pattern.start === site.pattern.start) !== i) continue;
    out.push(...regexMutations(source, site, cues));
    if (lang === 'py') out.push(...pyRegexFlags(source, code, site, cues));
  }
  out.push(...guardMutations(source, sites, lang, cues, evidence.expectedActual, window));
  out.push(...(lang === 'ts' ? tsPassArguments(file, source, window) : pyPassArguments(source, code, window)));
  return out;
}
