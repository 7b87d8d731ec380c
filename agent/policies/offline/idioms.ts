// Missing-case templates: fixes that add the case the code forgot rather than
// swap a token. Seen on real public bugs (flowfix's own corpus has none):
//   null-check        a truthiness test that also rejects 0 or '' (`if key and …` →
//                     `key is not None`), `typeof x === 'object'` that lets null through
//   case-insensitive  a keyword compared in one letter case (`tok.value == 'AS'` →
//                     `tok.value.upper() == 'AS'`)
//   self-type         a method that builds or tests its own class by name where the
//                     instance's class was meant (`Version(…)` → `type(self)(…)`), so
//                     subclasses keep their type
// Each works on the sites the parsers found (so never inside a string or a
// comment), except self-type, which reads the class name from the source.
import type { Mutation, Range, Site, SiteLanguage } from './model';

const CHAIN = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const NOT_A_VALUE = /^(True|False|None|true|false|null|undefined|this|self|cls|NaN|Infinity)$/;

/** An expression as the receiver of a method call: as it is when a name, access or call; else in parentheses. */
function receiver(expr: string): string {
  return /^[\w$.]+(\([^()]*\)|\[[^[\]]*\])*$/.test(expr) ? expr : `(${expr})`;
}

function nullChecks(text: string, range: Range, lang: SiteLanguage): Mutation[] {
  const out: Mutation[] = [];
  const t = text.trim();
  if (CHAIN.test(t) && !NOT_A_VALUE.test(t)) {
    const to = lang === 'py' ? `${t} is not None` : `${t} != null`;
    out.push({ template: 'null-check', range, replacement: to, prior: 1, description: `\`${t}\` → \`${to}\`: only a missing value fails, not 0 or ''` });
  }
  const neg = lang === 'py' ? /^not\s+([\w.]+)$/.exec(t) : /^!\s*([\w$.]+)$/.exec(t);
  if (neg && CHAIN.test(neg[1]) && !NOT_A_VALUE.test(neg[1])) {
    const to = lang === 'py' ? `${neg[1]} is None` : `${neg[1]} == null`;
    out.push({ template: 'null-check', range, replacement: to, prior: 1, description: `\`${t}\` → \`${to}\`: only a missing value passes, not 0 or ''` });
  }
  return out;
}

function rangesOf(site: Site): Range[] {
  const out: Range[] = [];
  for (const v of Object.values(site)) {
    if (Array.isArray(v)) for (const x of v) if (x && typeof x === 'object' && 'start' in x) out.push(x as Range);
    if (v && typeof v === 'object' && 'start' in v && 'end' in v) out.push(v as Range);
  }
  return out;
}

/** Occurrences of a class's own name inside its methods that could be the instance's class. */
function selfTypes(sites: Site[], source: string, lang: SiteLanguage): Mutation[] {
  const ranges = sites.flatMap(rangesOf);
  if (ranges.length === 0) return [];
  const from = Math.min(...ranges.map((r) => r.start));
  const to = Math.max(...ranges.map((r) => r.end));
  const window = source.slice(from, to);
  const out: Mutation[] = [];
  const lineHeadAt = (at: number) => source.slice(source.lastIndexOf('\n', at - 1) + 1, at);
  if (lang === 'py') {
    const classes = new Set([...source.matchAll(/^[ \t]*class\s+(\w+)/gm)].map((m) => m[1]));
    if (classes.size === 0) return [];
    const re = new RegExp(`\\b(${[...classes].join('|')})\\b`, 'g');
    for (let m = re.exec(window); m; m = re.exec(window)) {
      const at = from + m.index;
      const cls = m[1];
      const lineHead = lineHeadAt(at);
      const after = source.slice(at + cls.length, at + cls.length + 1);
      // not an attribute, an annotation, the class statement, a comment or inside a string on its line
      if (
        /[.]\s*$/.test(lineHead) ||
        after === '.' ||
        /(:|->)\s*$/.test(lineHead) ||
        /\bclass\s+$/.test(lineHead) ||
        lineHead.includes('#') ||
        (lineHead.split(/['"]/).length - 1) % 2 === 1
      )
        continue;
      // the method around it (its first parameter) and the class around that
      let indent = /^[ \t]*/.exec(lineHead)?.[0].length ?? 0;
      let self: string | null = null;
      let owner: string | null = null;
      for (const line of source.slice(0, at).split('\n').reverse().slice(1)) {
        const lead = /^[ \t]*/.exec(line)?.[0].length ?? 0;
        if (!line.trim() || lead >= indent) continue;
        const def = /^[ \t]*(?:async\s+)?def\s+\w+\s*\(\s*(\w+)?/.exec(line);
        const c = /^[ \t]*class\s+(\w+)/.exec(line);
        if (def && self === null) {
          self = def[1] === 'self' ? 'type(self)' : def[1] === 'cls' ? 'cls' : '';
          indent = lead;
        } else if (c) {
          owner = c[1];
          break;
        } else indent = lead;
      }
      if (!self || owner !== cls) continue;
      out.push({
        template: 'self-type',
        range: { start: at, end: at + cls.length },
        replacement: self,
        prior: 1,
        description: `\`${cls}\` → \`${self}\`: the instance's own class, so subclasses keep their type`,
      });
    }
    return out;
  }
  const re = /\b(new|instanceof)\s+([A-Za-z_$][\w$]*)\b/g;
  for (let m = re.exec(window); m; m = re.exec(window)) {
    const at = from + m.index;
    const cls = m[2];
    // the class declared last before it is the one it names
    if ([...source.slice(0, at).matchAll(/\bclass\s+([A-Za-z_$][\w$]*)/g)].pop()?.[1] !== cls) continue;
    const lineHead = lineHeadAt(at);
    if (lineHead.includes('//') || (lineHead.split(/['"`]/).length - 1) % 2 === 1) continue;
    for (const [ctor, prior] of [
      ['this.constructor', 1],
      [`(this.constructor as typeof ${cls})`, 0.9],
    ] as const) {
      const replacement = `${m[1]} ${ctor}`;
      out.push({
        template: 'self-type',
        range: { start: at, end: at + m[0].length },
        replacement,
        prior,
        description: `\`${m[0]}\` → \`${replacement}\`: the instance's own class, so subclasses keep their type`,
      });
    }
  }
  return out;
}

export function idiomMutations({ sites, source, lang }: { sites: Site[]; source: string; lang: SiteLanguage }): Mutation[] {
  const out: Mutation[] = [];
  const text = (r: Range) => source.slice(r.start, r.end);
  for (const site of sites) {
    if (site.kind === 'clauses') for (const c of site.clauses) out.push(...nullChecks(text(c), c, lang));
    else if (site.kind === 'condition') out.push(...nullChecks(text(site.range), site.range, lang));
    else if (site.kind === 'equality') {
      const left = text(site.left).trim();
      const right = text(site.right).trim();
      const tested = /^typeof\s+([\w$.]+)$/.exec(left);
      if (lang === 'ts' && tested && /^(['"`])object\1$/.test(right)) {
        const x = tested[1];
        const positive = site.op === '===' || site.op === '==';
        const replacement = positive ? `${left} ${site.op} ${right} && ${x} !== null` : `${left} ${site.op} ${right} || ${x} === null`;
        out.push({
          template: 'null-check',
          range: { start: site.left.start, end: site.right.end },
          replacement,
          prior: 1,
          description: `\`typeof ${x}\` is 'object' for null too: ${positive ? 'exclude' : 'include'} null`,
        });
      }
      for (const [lit, other] of [
        [right, site.left],
        [left, site.right],
      ] as const) {
        const word = /^(['"])([A-Za-z_]{2,})\1$/.exec(lit)?.[2];
        const expr = text(other).trim();
        if (!word || /^['"`\d]/.test(expr) || NOT_A_VALUE.test(expr)) continue;
        const upper = word === word.toUpperCase();
        if (!upper && word !== word.toLowerCase()) continue;
        const call = lang === 'py' ? (upper ? 'upper()' : 'lower()') : upper ? 'toUpperCase()' : 'toLowerCase()';
        out.push({
          template: 'case-insensitive',
          range: other,
          replacement: `${receiver(expr)}.${call}`,
          prior: 1,
          description: `compare \`${expr}\` with ${lit} in any letter case`,
        });
      }
    }
  }
  out.push(...selfTypes(sites, source, lang));
  return out;
}
