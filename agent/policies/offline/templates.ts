// Repair templates: the classic mutation operators of generate-and-validate
// repair and the wider fix patterns of template-based repair (TBar's fix
// patterns; the plastic-surgery hypothesis: a fix's ingredients are usually
// already in the code). Each mutation carries a within-template preference
// (1 = that template's likeliest edit); how likely the template itself is
// comes from the corpus as a whole (priors.ts). The gates decide.
import { escapeRegExp } from '../../../common/text';
import type { ExpectedActual } from '../../types';
import { differingMiddle, escapeFor, evidenceValue, renderLiteral, unquote } from './literals';
import type { Mutation, Range, Site, SiteLanguage, TemplateName } from './model';
import { idiomMutations } from './idioms';
import { restoreMutations } from './restore';
import { structuralMutations } from './structural';
import { usageKinds } from './shapes';

/** an identifier with member reads, calls and indexing after it, and nothing else at the top level */
const SIMPLE_OPERAND = /^[A-Za-z_$][\w$]*(\??\.[A-Za-z_$][\w$]*|\([^()]*\)|\[[^[\]]*\])*$/;

// op → [replacement, preference]; boundary swaps first: off-by-one is the commonest slip
const RELATIONAL: Record<string, Array<[string, number]>> = {
  '<': [
    ['<=', 1],
    ['>', 0.6],
    ['>=', 0.55],
  ],
  '<=': [
    ['<', 1],
    ['>=', 0.6],
    ['>', 0.55],
  ],
  '>': [
    ['>=', 1],
    ['<', 0.6],
    ['<=', 0.55],
  ],
  '>=': [
    ['>', 1],
    ['<=', 0.6],
    ['<', 0.55],
  ],
};
const EQUALITY: Record<string, Array<[string, number]>> = {
  '===': [['!==', 1]],
  '!==': [['===', 1]],
  '==': [['!=', 1]],
  '!=': [['==', 1]],
};
const LOGICAL: Record<string, Array<[string, number]>> = {
  '&&': [['||', 1]],
  '||': [['&&', 1]],
  '??': [['||', 0.6]],
  and: [['or', 1]],
  or: [['and', 1]],
};
const ARITHMETIC_TS: Record<string, Array<[string, number]>> = {
  '+': [
    ['-', 1],
    ['*', 0.45],
  ],
  '-': [
    ['+', 1],
    ['*', 0.45],
  ],
  '*': [
    ['/', 0.95],
    ['+', 0.55],
  ],
  '/': [['*', 0.95]],
  '%': [['/', 0.55]],
  '**': [['*', 0.65]],
  '+=': [['-=', 0.95]],
  '-=': [['+=', 0.95]],
  '*=': [['/=', 0.8]],
  '/=': [['*=', 0.8]],
};
const ARITHMETIC_PY: Record<string, Array<[string, number]>> = {
  ...ARITHMETIC_TS,
  '/': [
    ['//', 0.8],
    ['*', 0.95],
  ],
  '//': [
    ['/', 0.8],
    ['*', 0.65],
  ],
};
/** Operators beyond comparisons and arithmetic: bitwise, shifts, steps, membership, identity, assignment. */
const OTHER_TS: Record<string, Array<[string, number]>> = {
  '&': [
    ['|', 1],
    ['&&', 0.5],
  ],
  '|': [
    ['&', 1],
    ['||', 0.5],
  ],
  '^': [
    ['|', 0.7],
    ['&', 0.6],
  ],
  '<<': [['>>', 1]],
  '>>': [
    ['<<', 1],
    ['>>>', 0.6],
  ],
  '>>>': [['>>', 1]],
  '++': [['--', 1]],
  '--': [['++', 1]],
  '=': [['+=', 0.5]],
  '+=': [['=', 0.6]],
  '-=': [['=', 0.5]],
};
const OTHER_PY: Record<string, Array<[string, number]>> = {
  '&': [['|', 1]],
  '|': [['&', 1]],
  '^': [['|', 0.7]],
  '<<': [['>>', 1]],
  '>>': [['<<', 1]],
  in: [['not in', 1]],
  'not in': [['in', 1]],
  is: [['is not', 1]],
  'is not': [['is', 1]],
  '+=': [['=', 0.6]],
  '-=': [['=', 0.5]],
};

function fromTable(table: Record<string, Array<[string, number]>>, template: TemplateName, site: { op: string; range: Range }): Mutation[] {
  return (table[site.op] ?? []).map(([to, prior]) => ({ template, range: site.range, replacement: to, prior, description: `\`${site.op}\` → \`${to}\`` }));
}

function integerValue(text: string): number | null {
  if (!/^\d+$/.test(text)) return null; // hex, floats, bigints, separators: leave them
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

function textOf(source: string, r: Range): string {
  return source.slice(r.start, r.end);
}

/** An expression as an operand of `+`/`-`: in parentheses unless it is a name, a call, an access or a literal. */
function asOperand(expr: string): string {
  return /^[\w$.]+(\([^()]*\)|\[[^[\]]*\])*$/.test(expr) ? expr : `(${expr})`;
}

/** Names that are values of their own, never a variable to reshape. */
const NOT_A_VARIABLE = new Set(['None', 'True', 'False', 'self', 'cls', 'null', 'undefined', 'true', 'false', 'this', 'NaN', 'Infinity']);

/**
 * An argument made of one variable read first and then moved (`a[1:]`,
 * `i + 1`, `node.next`, `s.slice(1)`): the variable and what follows it.
 * Members after a `.` are no variables; anything with a second variable, a
 * string, or text before the variable is no simple move.
 */
function movedVariable(arg: string): { name: string; rest: string } | null {
  if (arg.length > 40 || /[\n'"`]/.test(arg)) return null;
  const m = /^([A-Za-z_$][\w$]*)(\S.*|\s.+)$/.exec(arg);
  if (!m || NOT_A_VARIABLE.has(m[1])) return null;
  // a second variable: a name that does not follow a `.` or another name's characters
  return /(^|[^.\w$])[A-Za-z_$]/.test(m[2]) ? null : { name: m[1], rest: m[2] };
}

/**
 * Every template applied to every site. `evidence` lets the literal templates
 * aim at the value the failing assertion expected instead of guessing.
 */
export function mutationsForSites({
  sites,
  source,
  lang,
  evidence,
  missingReads = [],
}: {
  sites: Site[];
  source: string;
  lang: SiteLanguage;
  evidence: ExpectedActual[];
  /** properties the failure read off a missing value (propertiesReadOffMissing) */
  missingReads?: string[];
}): Mutation[] {
  const out: Mutation[] = [];
  // a name, a member chain or a call (`ok`, `fs.existsSync(f)`) is negated as written: `!(fs.existsSync(f))` is the same code, less readable
  const negate = (expr: string) => (lang === 'py' ? `not (${expr})` : SIMPLE_OPERAND.test(expr) ? `!${expr}` : `!(${expr})`);
  const pairs = evidence.map((ea) => ({ expected: evidenceValue(ea.expected), actual: evidenceValue(ea.actual) }));
  let usage: ReturnType<typeof usageKinds> | null = null;
  const kinds = () => (usage ??= usageKinds(source, lang));

  for (const site of sites) {
    switch (site.kind) {
      case 'operator': {
        out.push(...fromTable(RELATIONAL, 'relational-operator', site));
        out.push(...fromTable(EQUALITY, 'equality-operator', site));
        out.push(...fromTable(LOGICAL, 'logical-operator', site));
        out.push(...fromTable(lang === 'py' ? ARITHMETIC_PY : ARITHMETIC_TS, 'arithmetic-operator', site));
        out.push(...fromTable(lang === 'py' ? OTHER_PY : OTHER_TS, 'other-operator', site));
        break;
      }
      case 'identifier': {
        // never a list where the code counts with an integer, nor the other way round
        const mine = kinds().get(site.name);
        const fitting = mine ? site.alternatives.filter((alt) => (kinds().get(alt) ?? mine) === mine) : site.alternatives;
        fitting.forEach((alt, i) =>
          out.push({
            template: 'wrong-variable',
            range: site.range,
            replacement: alt,
            prior: 1 - 0.1 * i,
            description: `\`${site.name}\` → \`${alt}\`, another variable in scope`,
          }),
        );
        break;
      }
      case 'member':
        site.alternatives.forEach((alt, i) =>
          out.push({ template: 'wrong-field', range: site.range, replacement: alt, prior: 1 - 0.1 * i, description: `field \`${site.name}\` → \`${alt}\`` }),
        );
        break;
      case 'assigned': {
        const e = textOf(source, site.range);
        if (/\b(Math\.)?(max|min)\(/.test(e) || /\n/.test(e)) break;
        const max = lang === 'py' ? 'max' : 'Math.max';
        const min = lang === 'py' ? 'min' : 'Math.min';
        // an accumulator (`run = run + x`) is clamped; a fresh value (`best = run`) keeps the best so far
        const accumulates = new RegExp(`(^|[^\\w$.])${site.name.replace(/\$/g, '\\$')}([^\\w$]|$)`).test(e);
        const proposals: Array<[string, number, string]> = accumulates
          ? [
              [`${max}(0, ${e})`, 1, 'never below 0'],
              [`${max}(${site.name}, ${e})`, 0.7, `the larger of \`${site.name}\` and the new value`],
              [`${min}(${site.name}, ${e})`, 0.6, `the smaller of \`${site.name}\` and the new value`],
            ]
          : [
              [`${max}(${site.name}, ${e})`, 1, `keep the largest \`${site.name}\` so far`],
              [`${min}(${site.name}, ${e})`, 0.9, `keep the smallest \`${site.name}\` so far`],
              [`${max}(0, ${e})`, 0.5, 'never below 0'],
            ];
        // a result below the expected one is what a lost maximum gives, above it a lost minimum
        const numeric = pairs.filter((p) => p.expected.kind === 'number' && p.actual.kind === 'number');
        const tooSmall = numeric.some((p) => Number(p.expected.value) > Number(p.actual.value));
        const tooLarge = numeric.some((p) => Number(p.expected.value) < Number(p.actual.value));
        for (const [replacement, prior, why] of proposals) {
          const fits = replacement.startsWith(max) ? tooSmall && !tooLarge : tooLarge && !tooSmall;
          out.push({
            template: 'extremum',
            range: site.range,
            replacement,
            prior,
            ...(fits ? { likelihood: 2 } : {}),
            description: `\`${site.name} = ${e.length > 30 ? `${e.slice(0, 30)}…` : e}\` → \`${site.name} = ${replacement.length > 40 ? `${replacement.slice(0, 40)}…` : replacement}\`: ${why}`,
          });
        }
        break;
      }
      case 'dereference': {
        // a key known only at run time may be the one the message names: likely, not certain
        const named = site.name !== null && missingReads.includes(site.name);
        if (!named && !(site.name === null && missingReads.length > 0)) break;
        const bracket = site.dot.start === site.dot.end;
        const read = bracket ? `[${site.name === null ? '…' : site.name}]` : `.${site.name}`;
        out.push({
          template: 'optional-chain',
          range: site.dot,
          replacement: '?.',
          prior: named ? 1 : 0.5,
          atCrash: true,
          description: `\`${read}\` → \`?.${bracket ? read : site.name}\`: the test read ${site.name === null ? 'a key' : `\`${site.name}\``} off a missing value`,
        });
        break;
      }
      case 'callee':
        site.alternatives.forEach((alt, i) =>
          out.push({
            template: site.builtin ? 'builtin-function' : 'wrong-function',
            range: site.range,
            replacement: alt,
            prior: 1 - 0.1 * i,
            description: `call \`${alt}\` instead of \`${site.name}\`${site.builtin ? '' : ' (same arity)'}`,
          }),
        );
        break;
      case 'index': {
        const expr = textOf(source, site.range);
        if (/\n/.test(expr)) break;
        for (const [delta, undoes] of [
          ['+ 1', /-\s*1$/],
          ['- 1', /\+\s*1$/],
        ] as const) {
          if (undoes.test(expr)) continue;
          out.push({
            template: 'index-off-by-one',
            range: site.range,
            replacement: `${asOperand(expr)} ${delta}`,
            prior: 1,
            description: `index \`${expr}\` → \`${asOperand(expr)} ${delta}\``,
          });
        }
        break;
      }
      case 'comparison': {
        const right = textOf(source, site.right);
        if (integerValue(right) === null) {
          for (const [delta, prior] of [
            ['+ 1', 1],
            ['- 1', 1],
          ] as const) {
            out.push({
              template: 'boundary-comparison',
              range: site.right,
              replacement: `${right} ${delta}`,
              prior,
              description: `\`${right}\` → \`${right} ${delta}\` in a comparison`,
            });
          }
        }
        break;
      }
      case 'operands': {
        const left = textOf(source, site.left);
        const right = textOf(source, site.right);
        const between = source.slice(site.left.end, site.right.start);
        out.push({
          template: 'swap-operands',
          range: { start: site.left.start, end: site.right.end },
          replacement: `${right}${between}${left}`,
          prior: 1,
          description: `swap the operands of \`${site.op}\``,
        });
        break;
      }
      case 'negation':
        out.push({ template: 'remove-negation', range: site.range, replacement: '', prior: 1, description: 'drop the negation' });
        break;
      case 'condition': {
        const expr = textOf(source, site.range);
        // `!(true)` is `false`: a literal condition is the boolean-literal's and real-condition's (restore.ts)
        if (/^\(*\s*(true|false|True|False)\s*\)*$/.test(expr)) break;
        out.push({
          template: 'negate-condition',
          range: site.range,
          replacement: negate(expr),
          prior: 1,
          description: `negate the condition \`${expr.length > 40 ? `${expr.slice(0, 40)}…` : expr}\``,
        });
        break;
      }
      case 'number': {
        const n = integerValue(site.text);
        if (n !== null) {
          out.push({ template: 'boundary-literal', range: site.range, replacement: String(n + 1), prior: 1, description: `\`${n}\` → \`${n + 1}\`` });
          if (n > 0)
            out.push({ template: 'boundary-literal', range: site.range, replacement: String(n - 1), prior: 1, description: `\`${n}\` → \`${n - 1}\`` });
        }
        for (const { expected, actual } of pairs) {
          if (expected.kind === 'number' && actual.kind === 'number' && Number(site.text) === Number(actual.value) && expected.value !== site.text) {
            out.push({
              template: 'evidence-literal',
              range: site.range,
              replacement: expected.value,
              prior: 1,
              fromEvidence: true,
              description: `\`${site.text}\` → \`${expected.value}\`, the value the test expected`,
            });
          }
        }
        break;
      }
      case 'string': {
        const parts = unquote(site.text);
        if (!parts) break;
        for (const { expected, actual } of pairs) {
          if (expected.kind !== 'string' || actual.kind !== 'string') continue;
          const mid = differingMiddle(actual.value, expected.value);
          // The literal must hold the wrong part (and not hold it ambiguously).
          if (!mid.a || parts.body.split(mid.a).length !== 2) continue;
          const body = parts.body.replace(mid.a, escapeFor(parts.quote, mid.b));
          const next = site.text.slice(0, parts.bodyStart) + body + site.text.slice(parts.bodyStart + parts.body.length);
          out.push({
            template: 'evidence-literal',
            range: site.range,
            replacement: next,
            prior: 1,
            fromEvidence: true,
            description: `\`${mid.a}\` → \`${mid.b}\` in a string, from the test's expected value`,
          });
        }
        break;
      }
      case 'boolean': {
        const flipped = lang === 'py' ? (site.text === 'True' ? 'False' : 'True') : site.text === 'true' ? 'false' : 'true';
        out.push({ template: 'boolean-literal', range: site.range, replacement: flipped, prior: 1, description: `\`${site.text}\` → \`${flipped}\`` });
        break;
      }
      case 'return': {
        const expr = textOf(source, site.range);
        if (site.literal) {
          for (const { expected } of pairs) {
            const lit = renderLiteral(expected, lang, expr);
            if (lit && lit !== expr)
              out.push({
                template: 'return-value',
                range: site.range,
                replacement: lit,
                prior: 1,
                fromEvidence: true,
                description: `return \`${lit}\` instead of \`${expr}\``,
              });
          }
        } else if (!/\n/.test(expr)) {
          out.push({
            template: 'return-value',
            range: site.range,
            replacement: negate(expr),
            prior: 0.8,
            description: `return the negation of \`${expr.length > 40 ? `${expr.slice(0, 40)}…` : expr}\``,
          });
        }
        break;
      }
      case 'call-args': {
        for (let i = 0; i + 1 < site.args.length; i += 1) {
          const a = site.args[i];
          const b = site.args[i + 1];
          const between = source.slice(a.end, b.start);
          out.push({
            template: 'swap-arguments',
            range: { start: a.start, end: b.end },
            replacement: `${textOf(source, b)}${between}${textOf(source, a)}`,
            prior: 1,
            description: `swap arguments ${i + 1} and ${i + 2}`,
          });
        }
        // an argument that should have moved like its sibling: `f(a[1:], b)` →
        // `f(a[1:], b[1:])` (a recursion that shrinks both inputs), `g(i + 1, j)`
        // → `g(i + 1, j + 1)`; only to a shape the file itself gives that
        // name elsewhere, the fix's ingredient already in the code
        const texts = site.args.map((r) => textOf(source, r));
        for (const [i, moved] of texts.entries()) {
          const shape = movedVariable(moved);
          if (!shape) continue;
          for (const [j, bare] of texts.entries()) {
            if (j === i || bare === shape.name || NOT_A_VARIABLE.has(bare) || !/^[A-Za-z_$][\w$]*$/.test(bare)) continue;
            const replacement = bare + shape.rest;
            const elsewhere = new RegExp(`(^|[^.\\w$])${escapeRegExp(replacement)}`).test(source);
            if (!elsewhere) continue;
            out.push({
              template: 'mirror-argument',
              range: site.args[j],
              replacement,
              prior: 1,
              description: `argument \`${bare}\` → \`${replacement}\`, moved like \`${moved}\` beside it`,
            });
          }
        }
        break;
      }
    }
  }
  out.push(...structuralMutations({ sites, source, lang, evidence: pairs.map((p) => p.expected) }));
  out.push(...idiomMutations({ sites, source, lang }));
  out.push(...restoreMutations(sites));
  return out;
}
