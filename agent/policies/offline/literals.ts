// Literals between the evidence and the code: a value as the failing test
// printed it, the part of two texts that differs, and a value written back as
// a literal of the language in the code's own quote style.
import type { SiteLanguage } from './model';

/** A string literal's body and where it starts; template pieces (`` `a${ ``, `` }b` ``) too. */
export function unquote(literal: string): { quote: string; body: string; bodyStart: number } | null {
  const m = /^([rRbBuUfF]{0,2})('''|"""|['"`])([\s\S]*)\2$/.exec(literal);
  if (m) return { quote: m[2], body: m[3], bodyStart: m[1].length + m[2].length };
  const t = /^(`|\})([\s\S]*?)(\$\{|`)$/.exec(literal);
  if (t) return { quote: '`', body: t[2], bodyStart: 1 };
  return null;
}

/** Strips the quotes that node:assert and pytest put around string values. */
export function evidenceValue(raw: string): { kind: 'string' | 'number' | 'other'; value: string } {
  let v = raw.trim();
  // Value objects print as their constructor: Decimal('25.00'), BigInt(3), Money("1.50")
  const wrapped = /^[A-Z][\w.]*\((.*)\)$/.exec(v);
  if (wrapped && !wrapped[1].includes(',')) v = wrapped[1].trim();
  const q = /^(['"`])([\s\S]*)\1$/.exec(v);
  if (q) return { kind: 'string', value: q[2].replace(/\\(['"`\\])/g, '$1').replace(/\\n/g, '\n') };
  if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v)) return { kind: 'number', value: v };
  return { kind: 'other', value: v };
}

/** The part of `a` that differs from `b` once their common prefix and suffix are cut. */
export function differingMiddle(a: string, b: string): { a: string; b: string } {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p += 1;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s += 1;
  return { a: a.slice(p, a.length - s), b: b.slice(p, b.length - s) };
}

/**
 * Like differingMiddle, widened to whole words when the difference starts or
 * ends inside one: "Hello, Bob" vs "Hi, Bob" → "Hello" / "Hi", while
 * "ann, bo" vs "ann & bo" stays "," / " &".
 */
export function differingWords(a: string, b: string): { a: string; b: string } {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p += 1;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s += 1;
  const word = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
  while (p > 0 && word(a[p - 1]) && (word(a[p]) || word(b[p]))) p -= 1;
  while (s > 0 && word(a[a.length - s]) && (word(a[a.length - s - 1]) || word(b[b.length - s - 1]))) s -= 1;
  return { a: a.slice(p, a.length - s), b: b.slice(p, b.length - s) };
}

/** A string escaped for a literal between `quote`s. */
export function escapeFor(quote: string, text: string): string {
  let out = text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  if (quote === '`') out = out.replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
  else if (quote.length === 1) out = out.split(quote).join(`\\${quote}`);
  return out;
}

/** A value rendered as a literal of the language, in the quote style of `like` when given. */
export function renderLiteral(value: { kind: 'string' | 'number' | 'other'; value: string }, lang: SiteLanguage, like?: string): string | null {
  if (value.kind === 'number') return value.value;
  if (value.kind === 'string') {
    const parts = like ? unquote(like) : null;
    const quote = parts && (parts.quote === '"' || parts.quote === "'") ? parts.quote : lang === 'py' ? '"' : "'";
    return `${quote}${escapeFor(quote, value.value)}${quote}`;
  }
  if (lang === 'ts' && /^(true|false|null|undefined)$/.test(value.value)) return value.value;
  if (lang === 'py' && /^(True|False|None)$/.test(value.value)) return value.value;
  // empty containers read the same in both languages
  if (/^(\[\]|\{\})$/.test(value.value) || (lang === 'py' && value.value === '()')) return value.value;
  return null;
}
