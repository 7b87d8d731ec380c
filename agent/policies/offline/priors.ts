// How candidates are ordered: suspiciousness × pattern prior × edit size
// (× the change's edited lines, × the failing test's expected value).
//
// The pattern priors are one fixed table derived from the bug corpus as a
// whole (bench/agent/corpus, every bug's `fix`: the template that expresses
// its correct fix, or none), never from the bug at hand: for each template,
//
//   prior(t) = (bugs fixed by t + α) / (bugs fixed by the commonest template + α),  α = LAPLACE
//
// so the commonest pattern has prior 1 and a pattern the corpus never needed
// keeps a floor (α / (max + α)): rare is not impossible. The fixes real runs
// needed that the corpus has none of (REAL_RUN_FIX_COUNTS) are added to the
// counts before the priors are taken. `node --import tsx
// bench/agent/priors.ts` prints the table from the corpus (61 bugs: 7
// relational-operator fixes are the most, so it scores 1 and an unseen
// pattern 0.125), and test/unit/agent/offline/priors.test.ts fails when this
// copy disagrees.
import type { TemplateName } from './model';

/** The Laplace smoothing count: how much an unseen pattern is still believed. */
export const LAPLACE = 1;

/** Bugs in the corpus whose correct fix each template expresses (stale expectations excluded: they have their own order). */
export const CORPUS_FIX_COUNTS: Record<Exclude<TemplateName, 'stale-expectation'>, number> = {
  'relational-operator': 7,
  'equality-operator': 0,
  'arithmetic-operator': 4,
  'logical-operator': 4,
  'negate-condition': 1,
  'remove-negation': 5,
  'boundary-literal': 4,
  'boundary-comparison': 0,
  'swap-arguments': 5,
  'mirror-argument': 0,
  'swap-operands': 1,
  'boolean-literal': 0,
  'evidence-literal': 2,
  'return-value': 0,
  'wrong-variable': 1,
  'wrong-field': 2,
  'wrong-function': 1,
  'builtin-function': 2,
  'index-off-by-one': 2,
  'other-operator': 1,
  'remove-clause': 1,
  'add-clause': 0,
  'guard-clause': 1,
  'entry-guard': 1,
  'base-case': 0,
  'copy-statement': 1,
  'delete-statement': 1,
  'null-check': 0,
  'optional-chain': 0,
  extremum: 0,
  'case-insensitive': 0,
  'self-type': 0,
  'restore-return': 0,
  'restore-await': 0,
  'restore-value': 0,
  'real-condition': 0,
  'value-guard': 0,
  'regex-edit': 0,
  'pass-argument': 0,
  'length-off-by-one': 0,
  'two-token': 0,
};

/**
 * Fixes real runs on public bugs needed that the corpus has none of (issue
 * 32): a regular expression's character class (content-type), a length off by
 * one outside an index (next_palindrome), an equality and its constant
 * together (mergesort), an option passed on to a call (camelcase, dotenv), a
 * guard for a missing or non-finite value. Counted beside the corpus so a
 * shape seen in the wild is not ranked as if never seen.
 */
export const REAL_RUN_FIX_COUNTS: Partial<Record<TemplateName, number>> = {
  'regex-edit': 1,
  'length-off-by-one': 1,
  'two-token': 1,
  'pass-argument': 2,
  'value-guard': 2,
  extremum: 1,
};

export function priorsFromCounts(counts: Record<string, number>, laplace = LAPLACE): Record<string, number> {
  const max = Math.max(...Object.values(counts));
  return Object.fromEntries(Object.entries(counts).map(([t, n]) => [t, (n + laplace) / (max + laplace)]));
}

const COUNTS: Record<string, number> = Object.fromEntries(
  Object.entries(CORPUS_FIX_COUNTS).map(([t, n]) => [t, n + (REAL_RUN_FIX_COUNTS[t as TemplateName] ?? 0)]),
);
const PRIORS = priorsFromCounts(COUNTS);

export function templatePrior(template: TemplateName): number {
  return template === 'stale-expectation' ? 1 : (PRIORS[template] ?? LAPLACE / (Math.max(...Object.values(COUNTS)) + LAPLACE));
}

/**
 * Edit size: tokens deleted plus tokens inserted (a longest-common-subsequence
 * diff of the two token lists). One token replaced costs 2, swapping `a, b`
 * costs 4, a guard statement about 11.
 */
export function editSize(before: string, after: string): number {
  const a = tokens(before);
  const b = tokens(after);
  if (a.length * b.length > 250_000) return a.length + b.length;
  const prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i += 1) {
    let diag = 0;
    for (let j = 1; j <= b.length; j += 1) {
      const up = prev[j];
      prev[j] = a[i - 1] === b[j - 1] ? diag + 1 : Math.max(prev[j], prev[j - 1]);
      diag = up;
    }
  }
  const lcs = prev[b.length];
  return a.length - lcs + (b.length - lcs);
}

export function tokens(text: string): string[] {
  return (
    text.match(
      /[A-Za-z_$][\w$]*|\d[\w.]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`|===|!==|\*\*=?|\/\/=?|>>>|<<=?|>>=?|[=!<>+\-*/%&|^]=|&&|\|\||\?\?|\?\.|=>|\+\+|--|\S/g,
    ) ?? []
  );
}

/** Per token beyond a one-token replacement, an edit is this much less likely (a swap: ×0.83, a guard of 11 tokens: ×0.53). */
export const SIZE_PENALTY = 0.1;

export function sizeFactor(size: number): number {
  return 1 / (1 + SIZE_PENALTY * Math.max(0, size - 2));
}

/** A replacement that is the failing test's expected value is this much likelier (a likelihood from the evidence). */
export const EVIDENCE_FACTOR = 2;

/**
 * An edit at the very read the failure message names as the crash ("Cannot
 * read properties of undefined (reading 'x')" and `?.` at `.x`) is this much
 * likelier: the message gives the failure's kind and its site, which no other
 * template's edit there answers. Stronger than the whole spread of the
 * pattern priors (the commonest template is 8× an unseen one).
 */
export const CRASH_SITE_FACTOR = 10;
