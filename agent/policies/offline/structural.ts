// Statement- and clause-level repair templates of the wider search: a
// condition clause removed or added, a null/empty guard (in a condition or at
// a function's entry), a missing base case, a statement copied from similar
// code in the same file (the plastic-surgery hypothesis: the fix's
// ingredients are already there), a statement deleted. Unlike the token
// templates they combine sites: a donor with a place, a clause with another
// condition, a parameter with a return value.
import { renderLiteral } from './literals';
import type { Mutation, Range, Site, SiteLanguage } from './model';

type SiteOf<K extends Site['kind']> = Extract<Site, { kind: K }>;

const MAX_DONORS_PER_PLACE = 8;
const MAX_RETURNS = 3;

const textOf = (source: string, r: Range) => source.slice(r.start, r.end);
const short = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** A clause or condition joined to another by `op`: in parentheses when it holds a logical operator of its own. */
function joinable(expr: string, lang: SiteLanguage): string {
  const logical = lang === 'py' ? /\s(and|or)\s|\sif\s|^not\s/ : /&&|\|\||\?/;
  return logical.test(expr) ? `(${expr})` : expr;
}

/** One indentation step in the file's own style. */
function indentStep(source: string): string {
  return /\n\t/.test(source) ? '\t' : /\n {2}\S/.test(source) && !/\n {4}\S/.test(source) ? '  ' : '    ';
}

function guardStatement(lang: SiteLanguage, cond: string, value: string, indent: string, step: string): string {
  return lang === 'py' ? `${indent}if ${cond}:\n${indent}${step}return ${value}\n` : `${indent}if (${cond}) return ${value};\n`;
}

/** What a guard may return: the value the failing test expected, the function's own simple return values, the empty value of its type. */
function guardReturns(
  entry: SiteOf<'entry'>,
  lang: SiteLanguage,
  expected: Array<{ kind: 'string' | 'number' | 'other'; value: string }>,
): Array<{ value: string; fromEvidence: boolean }> {
  const out: Array<{ value: string; fromEvidence: boolean }> = [];
  for (const e of expected) {
    const lit = renderLiteral(e, lang);
    if (lit && !out.some((o) => o.value === lit)) out.push({ value: lit, fromEvidence: true });
  }
  for (const r of entry.returns) if (!out.some((o) => o.value === r)) out.push({ value: r, fromEvidence: false });
  if (entry.empty && !out.some((o) => o.value === entry.empty)) out.push({ value: entry.empty, fromEvidence: false });
  return out.slice(0, MAX_RETURNS);
}

const KEYWORDS = new Set([
  'true',
  'false',
  'null',
  'undefined',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'void',
  'this',
  'await',
  'and',
  'or',
  'not',
  'is',
  'None',
  'True',
  'False',
  'if',
  'else',
  'for',
  'lambda',
  'self',
]);

/** The names an expression reads, roughly: identifiers outside strings that are not a property after a dot. */
function namesIn(expr: string, lang: SiteLanguage): string[] {
  const bare = expr.replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, '""');
  const out = new Set<string>();
  for (const m of bare.matchAll(/(?<![.\w$])[A-Za-z_$][\w$]*/g)) if (!KEYWORDS.has(m[0])) out.add(m[0]);
  void lang;
  return [...out];
}

/** What the innermost statement holding `r` can see (null when no statement site holds it). */
function scopeAt(statements: Array<SiteOf<'statement'>>, r: Range, lang: SiteLanguage): Set<string> | null {
  const holding = statements
    .filter((s) => s.range.start <= r.start && r.end <= s.range.end)
    .sort((a, b) => a.range.end - a.range.start - (b.range.end - b.range.start));
  if (!holding.length) return null;
  const scope = new Set(holding[0].scope);
  // Python's scope leaves its builtins out (the helper's); TypeScript's has the globals in
  if (lang === 'py') for (const b of PY_BUILTINS) scope.add(b);
  return scope;
}

const PY_BUILTINS = [
  'len',
  'min',
  'max',
  'abs',
  'sum',
  'any',
  'all',
  'int',
  'str',
  'float',
  'bool',
  'list',
  'dict',
  'set',
  'tuple',
  'round',
  'sorted',
  'isinstance',
  'range',
  'enumerate',
  'zip',
];

export function structuralMutations({
  sites,
  source,
  lang,
  evidence,
}: {
  sites: Site[];
  source: string;
  lang: SiteLanguage;
  evidence: Array<{ kind: 'string' | 'number' | 'other'; value: string }>;
}): Mutation[] {
  const out: Mutation[] = [];
  const of = <K extends Site['kind']>(kind: K) => sites.filter((s): s is SiteOf<K> => s.kind === kind);
  const and = lang === 'py' ? 'and' : '&&';
  const or = lang === 'py' ? 'or' : '||';
  const step = indentStep(source);

  // ── remove a clause: `a && b && c` → `a && c` ──
  for (const site of of('clauses')) {
    const whole = textOf(source, site.range);
    site.clauses.forEach((clause, i) => {
      const cut = i < site.clauses.length - 1 ? { start: clause.start, end: site.clauses[i + 1].start } : { start: site.clauses[i - 1].end, end: clause.end };
      const replacement = source.slice(site.range.start, cut.start) + source.slice(cut.end, site.range.end);
      out.push({
        template: 'remove-clause',
        range: site.range,
        replacement,
        prior: 1,
        description: `drop \`${short(textOf(source, clause))}\` from \`${short(whole)}\``,
      });
    });
  }

  // ── add a clause: another condition's clause in the same suspect, joined by && or || ──
  const conditions = [...of('condition').map((c) => c.range), ...of('clauses').map((c) => c.range)].filter(
    (r, i, all) => all.findIndex((o) => o.start === r.start && o.end === r.end) === i,
  );
  const clauseTexts = new Set<string>();
  for (const c of of('clauses')) for (const cl of c.clauses) clauseTexts.add(textOf(source, cl));
  for (const r of conditions) clauseTexts.add(textOf(source, r));
  for (const r of conditions) {
    const cond = textOf(source, r);
    if (/\n/.test(cond)) continue;
    const scope = scopeAt(of('statement'), r, lang);
    for (const extra of clauseTexts) {
      if (cond.includes(extra) || extra.includes(cond) || /\n/.test(extra)) continue;
      if (scope && !namesIn(extra, lang).every((n) => scope.has(n))) continue;
      for (const [op, prior] of [
        [and, 1],
        [or, 0.8],
      ] as const) {
        out.push({
          template: 'add-clause',
          range: r,
          replacement: `${joinable(cond, lang)} ${op} ${joinable(extra, lang)}`,
          prior,
          description: `\`${short(cond)}\` → also \`${op} ${short(extra)}\``,
        });
      }
    }
  }

  // ── guard a condition: `x.ok` → `x && x.ok` ──
  for (const site of of('guardable')) {
    const cond = textOf(source, site.range);
    if (/\n/.test(cond)) continue;
    site.receivers.forEach((name, i) => {
      if (name === 'self' || name === 'this') return;
      out.push({
        template: 'guard-clause',
        range: site.range,
        replacement: `${name} ${and} ${joinable(cond, lang)}`,
        prior: 1 - 0.1 * i,
        description: `guard \`${short(cond)}\` with \`${name} ${and}\``,
      });
    });
  }

  // ── a function's entry: null/empty guards and base cases ──
  for (const entry of of('entry')) {
    const returns = guardReturns(entry, lang, evidence);
    const at = { start: entry.insertAt, end: entry.insertAt };
    for (const p of entry.params) {
      const guards: Array<{ template: 'entry-guard' | 'base-case'; cond: string; prior: number }> = [];
      if (p.type === 'collection' || p.type === 'string')
        guards.push({ template: 'entry-guard', cond: lang === 'py' ? `not ${p.name}` : `${p.name}.length === 0`, prior: 1 });
      if (p.type === 'unknown') guards.push({ template: 'entry-guard', cond: lang === 'py' ? `${p.name} is None` : `${p.name} == null`, prior: 1 });
      if (p.type === 'number') {
        guards.push({ template: 'base-case', cond: lang === 'py' ? `${p.name} == 0` : `${p.name} === 0`, prior: 1 });
        guards.push({ template: 'base-case', cond: `${p.name} <= 0`, prior: 0.9 });
      }
      for (const g of guards) {
        returns.forEach((r, i) => {
          const stmt = guardStatement(lang, g.cond, r.value, entry.indent, step);
          out.push({
            template: g.template,
            range: at,
            replacement: stmt,
            prior: g.prior * (1 - 0.1 * i),
            ...(r.fromEvidence ? { fromEvidence: true } : {}),
            description: `at the function's entry: ${stmt.trim().replace(/\s*\n\s*/g, ' ')}`,
          });
        });
      }
    }
  }

  // ── copy a statement from similar code nearby, before (or after the last) statement of a block ──
  const donors = of('donor');
  for (const place of of('statement')) {
    const scope = new Set(place.scope);
    const placeText = textOf(source, place.range);
    const previousLine = source.slice(source.lastIndexOf('\n', place.lineStart - 2) + 1, place.lineStart).trim();
    const fitting = donors
      .filter((d) => d.uses.every((u) => scope.has(u)) && d.text !== placeText && d.text.split('\n')[0].trim() !== previousLine)
      .filter((d) => d.range.end <= place.range.start || d.range.start >= place.range.end)
      .sort((a, b) => Math.abs(a.range.start - place.range.start) - Math.abs(b.range.start - place.range.start))
      .slice(0, MAX_DONORS_PER_PLACE);
    for (const [k, d] of fitting.entries()) {
      const body = d.text
        .split('\n')
        .map((l, i) => (i === 0 ? `${place.indent}${l}` : `${place.indent}${l}`))
        .join('\n');
      const prior = 1 - 0.05 * k;
      out.push({
        template: 'copy-statement',
        range: { start: place.lineStart, end: place.lineStart },
        replacement: `${body}\n`,
        prior,
        description: `copy \`${short(d.text.split('\n')[0])}\` from line nearby before \`${short(placeText.split('\n')[0])}\``,
      });
      if (place.last) {
        out.push({
          template: 'copy-statement',
          range: { start: place.lineEnd, end: place.lineEnd },
          replacement: `${body}\n`,
          prior: prior * 0.9,
          description: `copy \`${short(d.text.split('\n')[0])}\` after \`${short(placeText.split('\n')[0])}\``,
        });
      }
    }
  }

  // ── delete a statement ──
  for (const place of of('statement')) {
    if (!place.removable) continue;
    const text = textOf(source, place.range);
    out.push({
      template: 'delete-statement',
      range: { start: place.lineStart, end: place.lineEnd },
      replacement: '',
      prior: 1,
      description: `delete \`${short(text.split('\n')[0])}\``,
    });
  }
  return out;
}
