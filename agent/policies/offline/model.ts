// The offline tier's vocabulary: where a template can apply (a Site, found by
// sites.ts and its finders), in which language, and what a template proposes
// there (a Mutation). Types only, so every finder and template reads them
// from here and none imports another for its types.

export interface Range {
  start: number;
  end: number;
}

export type Site =
  /** an operator token; left/right are the operand ranges when known */
  | { kind: 'operator'; op: string; range: Range; left?: Range; right?: Range }
  /** `!x` / `not x`: the range covers the negation token (and Python's trailing space) */
  | { kind: 'negation'; range: Range }
  | { kind: 'number'; text: string; range: Range }
  /** a string literal token with its quotes, or a template literal piece */
  | { kind: 'string'; text: string; range: Range }
  | { kind: 'boolean'; text: string; range: Range }
  | { kind: 'condition'; range: Range }
  | { kind: 'return'; range: Range; literal: boolean }
  | { kind: 'call-args'; args: Range[] }
  /** a non-commutative arithmetic expression whose operands may be swapped: `a - b` */
  | { kind: 'operands'; op: string; left: Range; right: Range }
  /** a comparison with its operands: `a < b` */
  | { kind: 'comparison'; op: string; left: Range; right: Range }
  /** an equality test with its operands: `a == b`, `a !== b` */
  | { kind: 'equality'; op: string; left: Range; right: Range }
  /** a variable read or assigned, and the other variables in scope it could have been */
  | { kind: 'identifier'; name: string; range: Range; alternatives: string[] }
  /** the field name of `obj.field`, and the fields the same object (or its type) has elsewhere */
  | { kind: 'member'; name: string; range: Range; alternatives: string[] }
  /** `a.b`, `a.b(…)` or `a[k]` read as written (no `?.`): `dot` is the `.` that `?.` replaces, or the empty range before `[`; `name` is null for a key known only at run time */
  | { kind: 'dereference'; name: string | null; dot: Range }
  /** `v = e` (a reassignment on one line, e an arithmetic value, name, call or access): `range` is e, which a running extremum or a clamp wraps */
  | { kind: 'assigned'; name: string; range: Range }
  /** the called name of `f(…)`/`x.f(…)`, and same-arity siblings: built-ins alike, the file's own functions or methods */
  | { kind: 'callee'; name: string; range: Range; alternatives: string[]; builtin: boolean }
  /** an index, a slice bound or a range bound that is not a literal: `xs[i]`, `s.slice(a, b)`, `range(n)` */
  | { kind: 'index'; range: Range }
  /** the clauses of a condition joined by one logical operator: `a && b && c` */
  | { kind: 'clauses'; op: string; range: Range; clauses: Range[] }
  /** a condition, and the variables it dereferences (`x.y`, `x[i]`): what a null/empty guard clause would test */
  | { kind: 'guardable'; range: Range; receivers: string[] }
  /**
   * A statement inside the suspect: where a copied statement can go before it
   * (`lineStart`, its `indent`, the names visible there) and whether it can be
   * deleted (whole lines `lineStart`..`lineEnd`).
   */
  | {
      kind: 'statement';
      range: Range;
      lineStart: number;
      lineEnd: number;
      indent: string;
      removable: boolean;
      /** the last statement of its block and not a jump: a copy may also go after it */
      last: boolean;
      scope: string[];
    }
  /** a single-line statement anywhere in the file that could be copied elsewhere: its text and the names it needs */
  | { kind: 'donor'; text: string; range: Range; uses: string[] }
  /** an expression statement whose value is discarded in a function that returns values (restore.ts): the range is empty, at its start */
  | { kind: 'discarded-value'; range: Range; pure: boolean; last: boolean; text: string }
  /** a call in an async function whose promise is used as a value or returned, with no `await`, to a callee the file shows async (restore.ts) */
  | { kind: 'missing-await'; range: Range; replacement: string; text: string; how: 'value' | 'return-in-try' | 'return' }
  /** a condition that is a literal `true`/`false`, and the real conditions the code around it suggests (restore.ts) */
  | { kind: 'literal-condition'; range: Range; literal: string; proposals: Array<{ text: string; why: string; prior: number }> }
  /**
   * A regular expression: a TS/JS literal or `new RegExp('…')`, a Python
   * string handed to `re.*`. `pattern` is its body as written in the source,
   * `flags` the literal's flags (empty range when it has none; null where
   * flags are no part of the text); `doubled`: every backslash of the pattern
   * is written twice (a non-raw string).
   */
  | { kind: 'regex'; pattern: Range; flags: Range | null; doubled: boolean }
  /** a function's entry (before its first statement): where a guard or base case goes */
  | {
      kind: 'entry';
      insertAt: number;
      indent: string;
      params: Array<{ name: string; type: 'number' | 'string' | 'collection' | 'unknown' }>;
      /** the function's own return values that would make sense at its entry (literals, parameters) */
      returns: string[];
      /** the empty value of what it returns (`''`, `[]`, `0`), when its type or its returns tell */
      empty?: string;
    };

export type SiteLanguage = 'ts' | 'py';

export type TemplateName =
  | 'relational-operator'
  | 'equality-operator'
  | 'arithmetic-operator'
  | 'logical-operator'
  | 'negate-condition'
  | 'remove-negation'
  | 'boundary-literal'
  | 'boundary-comparison'
  | 'swap-arguments'
  | 'mirror-argument'
  | 'swap-operands'
  | 'boolean-literal'
  | 'evidence-literal'
  | 'return-value'
  | 'stale-expectation'
  // the wider search
  | 'wrong-variable'
  | 'wrong-field'
  | 'wrong-function'
  | 'builtin-function'
  | 'index-off-by-one'
  | 'other-operator'
  | 'remove-clause'
  | 'add-clause'
  | 'guard-clause'
  | 'entry-guard'
  | 'base-case'
  | 'copy-statement'
  | 'delete-statement'
  // missing cases (idioms.ts)
  | 'null-check'
  | 'optional-chain'
  | 'extremum'
  | 'case-insensitive'
  | 'self-type'
  // what the code itself shows missing (restore.ts)
  | 'restore-return'
  | 'restore-await'
  | 'restore-value'
  | 'real-condition'
  // bug shapes real runs needed (shapes.ts)
  | 'value-guard'
  | 'regex-edit'
  | 'pass-argument'
  | 'length-off-by-one'
  | 'two-token';

export interface Mutation {
  template: TemplateName;
  /** the text from range.start to range.end becomes `replacement` (an empty range inserts) */
  range: Range;
  replacement: string;
  /** how this edit ranks among its template's edits at the same site: 1 for the likeliest */
  prior: number;
  /** the replacement is the value the failing test expected (a likelihood, not a prior: candidates.ts) */
  fromEvidence?: boolean;
  /** the edit is at the very read the failure message names as the crash (a property read off undefined): candidates.ts */
  atCrash?: boolean;
  /** how much the failure's evidence favours this edit (a likelihood, 1 when it says nothing): shapes.ts */
  likelihood?: number;
  /** "`<` → `<=`" */
  description: string;
}
