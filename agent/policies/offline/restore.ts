// Two defects the code itself shows, whatever the change was (TypeScript and
// JavaScript; structure only, no type checker):
//
// - a value computed and thrown away (an expression statement that is not a
//   call, an assignment or an update: `x + 1;`), or a call's value dropped in
//   a function whose other paths return a value or whose declared return type
//   is not void: the `return` in front of it is missing (restore-return);
// - a condition that is a literal (`if (true)`, `while (false)`,
//   `true ? a : b`, `false && x`): the real test is missing (real-condition).
//   What it could have been comes from the code around it, never from another
//   revision: the conditions of its sibling branches and of the rest of the
//   function (and their negations), the function's boolean parameters and
//   locals, and the variables the guarded code uses (a truthiness guard).
//
// - an `await` missing before a call whose promise the async function then
//   uses as a value (`const u = load(id); u.name`, `(db.get(k)).n`, `x + f()`)
//   or returns from inside a `try` (restore-await). Which callees give a
//   promise comes from the file alone: an async function or method declared
//   there, or a callee the file awaits somewhere else.
//
// - restore-value, the one that reads the change: where its own diff replaced
//   a whole value (an expression, a block) by a literal (`""`, `true`/`false`,
//   `[]`, `{}`, `0`, `undefined`/`null`/`None`), the value it removed, put back
//   (restoreValueMutations, called by candidates.ts when the change did not
//   mean its new behaviour).
//
// The first two are what linters flag (no-unused-expressions, no-constant-condition):
// a site here is rare in finished code and likely the defect when the tests
// fail near it, so its edits get a high within-template preference.
import ts from 'typescript';
import type { Mutation, Site } from './model';

type SiteOf<K extends Site['kind']> = Extract<Site, { kind: K }>;

/** proposals kept per literal condition */
const MAX_PROPOSALS = 8;
/** the within-template preference of the best proposal: the site itself is a lint error (see above) */
const LITERAL_SITE_PRIOR = 6;
const DISCARDED_PURE_PRIOR = 8;
const DISCARDED_CALL_PRIOR = 4;

type FunctionLike = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration | ts.GetAccessorDeclaration;

function enclosingFunction(node: ts.Node): FunctionLike | ts.ConstructorDeclaration | ts.SetAccessorDeclaration | null {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n) || ts.isGetAccessorDeclaration(n))
      return n;
    if (ts.isConstructorDeclaration(n) || ts.isSetAccessorDeclaration(n)) return n;
    if (ts.isClassLike(n) || ts.isSourceFile(n)) return null;
  }
  return null;
}

/** Calls `fn` on each node of the function's own body (nested functions left out). */
function ownNodes(fn: ts.Node, visit: (n: ts.Node) => void): void {
  const body = (fn as FunctionLike).body;
  if (!body) return;
  const walk = (n: ts.Node) => {
    visit(n);
    if (ts.isFunctionLike(n) || ts.isClassLike(n)) return;
    ts.forEachChild(n, walk);
  };
  walk(body);
}

function isVoidType(type: ts.TypeNode, sf: ts.SourceFile): boolean {
  const t = type.getText(sf).replace(/\s+/g, '');
  return /^(void|undefined|never|Promise<(void|undefined)>|PromiseLike<void>)$/.test(t) || t.startsWith('asserts');
}

/** The function returns a value: a return type that is not void, or a `return <expr>` of its own. */
function returnsValue(fn: ts.Node, sf: ts.SourceFile): boolean {
  if (ts.isConstructorDeclaration(fn) || ts.isSetAccessorDeclaration(fn)) return false;
  const f = fn as FunctionLike;
  if (ts.isArrowFunction(f) && !ts.isBlock(f.body)) return false;
  if (f.type) return !isVoidType(f.type, sf);
  let found = false;
  ownNodes(fn, (n) => {
    if (ts.isReturnStatement(n) && n.expression) found = true;
  });
  return found;
}

const ASSIGNMENT = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.AsteriskEqualsToken,
  ts.SyntaxKind.SlashEqualsToken,
  ts.SyntaxKind.PercentEqualsToken,
  ts.SyntaxKind.AsteriskAsteriskEqualsToken,
  ts.SyntaxKind.AmpersandEqualsToken,
  ts.SyntaxKind.BarEqualsToken,
  ts.SyntaxKind.CaretEqualsToken,
  ts.SyntaxKind.LessThanLessThanEqualsToken,
  ts.SyntaxKind.GreaterThanGreaterThanEqualsToken,
  ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

function stripParens(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

/** What an expression statement does beside its value: null when it only computes one (pure), else 'call' or 'effect'. */
function effectOf(e: ts.Expression): 'pure' | 'call' | 'effect' {
  const x = stripParens(e);
  if (ts.isCallExpression(x) || ts.isNewExpression(x) || ts.isTaggedTemplateExpression(x)) return 'call';
  if (ts.isAwaitExpression(x)) return effectOf(x.expression) === 'pure' ? 'pure' : 'call';
  if (ts.isBinaryExpression(x)) {
    if (ASSIGNMENT.has(x.operatorToken.kind)) return 'effect';
    // `a && f()`, `a, b()`: a short-circuit or comma with a side effect is used as a statement on purpose
    if (
      x.operatorToken.kind === ts.SyntaxKind.CommaToken ||
      x.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken ||
      x.operatorToken.kind === ts.SyntaxKind.BarBarToken ||
      x.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken
    ) {
      return effectOf(x.left) === 'pure' && effectOf(x.right) === 'pure' ? 'pure' : 'effect';
    }
    return effectOf(x.left) === 'pure' && effectOf(x.right) === 'pure' ? 'pure' : 'effect';
  }
  if (ts.isPrefixUnaryExpression(x) || ts.isPostfixUnaryExpression(x)) {
    if (x.operator === ts.SyntaxKind.PlusPlusToken || x.operator === ts.SyntaxKind.MinusMinusToken) return 'effect';
    return effectOf(x.operand);
  }
  if (ts.isDeleteExpression(x) || ts.isVoidExpression(x) || ts.isYieldExpression(x)) return 'effect';
  if (ts.isConditionalExpression(x)) return [x.whenTrue, x.whenFalse, x.condition].every((y) => effectOf(y) === 'pure') ? 'pure' : 'effect';
  // identifiers, property reads, literals, templates, arrays, objects: a value nobody reads
  return 'pure';
}

/** Expression statements whose value is discarded where a `return` of it is likely missing. */
export function discardedValueSites(sf: ts.SourceFile, inside: (n: ts.Node) => boolean): Array<SiteOf<'discarded-value'>> {
  const out: Array<SiteOf<'discarded-value'>> = [];
  const visit = (n: ts.Node) => {
    if (ts.isExpressionStatement(n) && inside(n)) {
      const e = n.expression;
      // directives ('use strict') are string statements on purpose
      const directive = ts.isStringLiteral(e) && (ts.isSourceFile(n.parent) || ts.isBlock(n.parent));
      const kind = effectOf(e);
      const fn = enclosingFunction(n);
      if (!directive && kind !== 'effect' && fn && returnsValue(fn, sf)) {
        const block = n.parent;
        const last = (ts.isBlock(block) || ts.isCaseClause(block) || ts.isDefaultClause(block)) && block.statements[block.statements.length - 1] === n;
        out.push({ kind: 'discarded-value', range: { start: n.getStart(sf), end: n.getStart(sf) }, pure: kind === 'pure', last, text: e.getText(sf) });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function isBooleanLiteral(e: ts.Expression): boolean {
  const x = stripParens(e);
  return x.kind === ts.SyntaxKind.TrueKeyword || x.kind === ts.SyntaxKind.FalseKeyword;
}

const LOGICAL = new Set([ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken]);

/** A test-like expression: a comparison, a negation, a logical combination, a call's truth, a name. */
function isTestLike(e: ts.Expression): boolean {
  const x = stripParens(e);
  if (ts.isBinaryExpression(x)) {
    const k = x.operatorToken.kind;
    return (
      LOGICAL.has(k) ||
      (k >= ts.SyntaxKind.LessThanToken && k <= ts.SyntaxKind.ExclamationEqualsEqualsToken) ||
      k === ts.SyntaxKind.InstanceOfKeyword ||
      k === ts.SyntaxKind.InKeyword
    );
  }
  return ts.isPrefixUnaryExpression(x) && x.operator === ts.SyntaxKind.ExclamationToken;
}

function negation(text: string, e: ts.Expression, sf: ts.SourceFile): string {
  const x = stripParens(e);
  if (ts.isPrefixUnaryExpression(x) && x.operator === ts.SyntaxKind.ExclamationToken) {
    const inner = x.operand.getText(sf);
    return ts.isParenthesizedExpression(x.operand) ? inner.slice(1, -1) : inner;
  }
  if (ts.isBinaryExpression(x)) {
    const flip: Partial<Record<ts.SyntaxKind, string>> = {
      [ts.SyntaxKind.EqualsEqualsEqualsToken]: '!==',
      [ts.SyntaxKind.ExclamationEqualsEqualsToken]: '===',
      [ts.SyntaxKind.EqualsEqualsToken]: '!=',
      [ts.SyntaxKind.ExclamationEqualsToken]: '==',
      [ts.SyntaxKind.LessThanToken]: '>=',
      [ts.SyntaxKind.GreaterThanEqualsToken]: '<',
      [ts.SyntaxKind.GreaterThanToken]: '<=',
      [ts.SyntaxKind.LessThanEqualsToken]: '>',
    };
    const op = flip[x.operatorToken.kind];
    if (op) return `${x.left.getText(sf)} ${op} ${x.right.getText(sf)}`;
  }
  return ts.isIdentifier(x) || ts.isPropertyAccessExpression(x) || ts.isCallExpression(x) ? `!${text}` : `!(${text})`;
}

/** The literal conditions (`if (true)`, `while (false)`, `true ? a : b`, `false && x`) and what they could have been, from the code around them. */
export function literalConditionSites(
  sf: ts.SourceFile,
  inside: (n: ts.Node) => boolean,
  variablesAt: (n: ts.Node) => Array<{ name: string; type?: string; depth: number }>,
): Array<SiteOf<'literal-condition'>> {
  const out: Array<SiteOf<'literal-condition'>> = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;

  const propose = (cond: ts.Expression, guarded: ts.Node | undefined) => {
    const literal = stripParens(cond).getText(sf);
    const fn = enclosingFunction(cond);
    const proposals = new Map<string, { text: string; why: string; prior: number }>();
    const offer = (text: string, why: string, prior: number) => {
      const t = text.trim();
      if (!t || /\n/.test(t) || t === 'true' || t === 'false' || t.length > 120) return;
      const had = proposals.get(t);
      if (!had || had.prior < prior) proposals.set(t, { text: t, why, prior });
    };
    const condLine = lineOf(cond.getStart(sf));
    const near = (n: ts.Node) => 1 / (1 + 0.1 * Math.abs(lineOf(n.getStart(sf)) - condLine));

    // 1. the conditions of the same function: sibling branches (else-if chains) first, then the rest, nearest first
    const siblings = new Set<ts.Node>();
    for (let p: ts.Node = cond.parent; ts.isIfStatement(p);) {
      // up the chain `if (a) … else if (true)` and down `if (true) … else if (b)`
      if (ts.isIfStatement(p.parent) && p.parent.elseStatement === p) {
        siblings.add(p.parent.expression);
        p = p.parent;
      } else break;
    }
    if (ts.isIfStatement(cond.parent)) {
      for (let e = cond.parent.elseStatement; e && ts.isIfStatement(e); e = e.elseStatement) siblings.add(e.expression);
    }
    const scope = fn ?? sf;
    const conditions: ts.Expression[] = [];
    const collect = (n: ts.Node) => {
      if (n !== scope && (ts.isFunctionLike(n) || ts.isClassLike(n))) return;
      const push = (e: ts.Expression) => {
        if (e !== cond && !isBooleanLiteral(e)) conditions.push(e);
      };
      if (ts.isIfStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n)) push(n.expression);
      else if (ts.isForStatement(n) && n.condition) push(n.condition);
      else if (ts.isConditionalExpression(n)) push(n.condition);
      else if (ts.isBinaryExpression(n) && LOGICAL.has(n.operatorToken.kind)) {
        for (const side of [n.left, n.right]) if (isTestLike(side) || ts.isIdentifier(stripParens(side))) push(side);
      } else if (ts.isExpression(n) && isTestLike(n)) push(n);
      ts.forEachChild(n, collect);
    };
    ts.forEachChild(scope, collect);
    for (const c of conditions) {
      const text = c.getText(sf);
      const sib = siblings.has(c);
      offer(text, sib ? 'the condition of a sibling branch' : 'a condition of the same function', (sib ? 0.9 : 0.75) * near(c));
      offer(
        negation(text, c, sf),
        sib ? 'the negated condition of a sibling branch' : 'a negated condition of the same function',
        (sib ? 0.85 : 0.6) * near(c),
      );
    }

    // 2. boolean parameters and locals, and the variables the guarded code reads (a truthiness guard)
    const vars = variablesAt(cond);
    const inScope = new Set(vars.map((v) => v.name));
    for (const v of vars) {
      if (v.depth > 1) continue;
      if (v.type === 'boolean') {
        offer(v.name, 'a boolean variable in scope', 0.8);
        offer(`!${v.name}`, 'a boolean variable in scope, negated', 0.7);
      }
    }
    if (guarded) {
      const read: string[] = [];
      const walk = (n: ts.Node) => {
        if (ts.isIdentifier(n) && inScope.has(n.text) && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n) && !read.includes(n.text))
          read.push(n.text);
        ts.forEachChild(n, walk);
      };
      walk(guarded);
      read.slice(0, 4).forEach((name, i) => {
        offer(name, 'a variable the guarded code uses', 0.55 - 0.05 * i);
        offer(`!${name}`, 'a variable the guarded code uses, negated', 0.45 - 0.05 * i);
      });
    }
    const ranked = [...proposals.values()].sort((a, b) => b.prior - a.prior).slice(0, MAX_PROPOSALS);
    if (ranked.length) out.push({ kind: 'literal-condition', range: { start: cond.getStart(sf), end: cond.end }, literal, proposals: ranked });
  };

  const visit = (n: ts.Node) => {
    if (inside(n)) {
      // `while (true) { … break; }` is an idiom, not a missing test: loops only when forced false
      const isTrue = (e: ts.Expression) => stripParens(e).kind === ts.SyntaxKind.TrueKeyword;
      if (ts.isIfStatement(n) && isBooleanLiteral(n.expression)) propose(n.expression, n.thenStatement);
      else if ((ts.isWhileStatement(n) || ts.isDoStatement(n)) && isBooleanLiteral(n.expression) && !isTrue(n.expression)) propose(n.expression, n.statement);
      else if (ts.isForStatement(n) && n.condition && isBooleanLiteral(n.condition) && !isTrue(n.condition)) propose(n.condition, n.statement);
      else if (ts.isConditionalExpression(n) && isBooleanLiteral(n.condition)) propose(n.condition, n.whenTrue);
      else if (ts.isBinaryExpression(n) && LOGICAL.has(n.operatorToken.kind)) {
        if (isBooleanLiteral(n.left)) propose(n.left, n.right);
        else if (isBooleanLiteral(n.right)) propose(n.right, undefined);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const AWAIT_VALUE_PRIOR = 6;
const AWAIT_RETURN_IN_TRY_PRIOR = 3;
const AWAIT_RETURN_PRIOR = 0.5;

function isAsync(n: ts.Node): boolean {
  return ts.canHaveModifiers(n) && !!ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
}

function calleeName(call: ts.CallExpression): string | undefined {
  const e = stripParens(call.expression);
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

/** Calls in async functions whose promise is used as a value (or returned from a `try`) without `await`, to callees the file shows async. */
export function missingAwaitSites(sf: ts.SourceFile, inside: (n: ts.Node) => boolean): Array<SiteOf<'missing-await'>> {
  const asyncNames = new Set<string>();
  const collect = (n: ts.Node) => {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name && isAsync(n) && (ts.isIdentifier(n.name) || ts.isPrivateIdentifier(n.name)))
      asyncNames.add(n.name.text);
    if ((ts.isVariableDeclaration(n) || ts.isPropertyAssignment(n) || ts.isPropertyDeclaration(n)) && ts.isIdentifier(n.name) && n.initializer) {
      const init = stripParens(n.initializer);
      if ((ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && isAsync(init)) asyncNames.add(n.name.text);
    }
    if (ts.isAwaitExpression(n)) {
      const e = stripParens(n.expression);
      if (ts.isCallExpression(e)) {
        const name = calleeName(e);
        if (name) asyncNames.add(name);
      }
    }
    ts.forEachChild(n, collect);
  };
  collect(sf);
  const out: Array<SiteOf<'missing-await'>> = [];
  if (!asyncNames.size) return out;
  const inTry = (n: ts.Node, fn: ts.Node) => {
    for (let p: ts.Node = n; p.parent && p !== fn; p = p.parent) if (ts.isTryStatement(p.parent) && p.parent.tryBlock === p) return true;
    return false;
  };
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && inside(n)) {
      const name = calleeName(n);
      const fn = enclosingFunction(n);
      let up: ts.Node = n.parent;
      while (ts.isParenthesizedExpression(up)) up = up.parent;
      if (name && asyncNames.has(name) && fn && isAsync(fn) && !ts.isAwaitExpression(up)) {
        const text = n.getText(sf);
        const direct = n.parent;
        // `f().x` / `f()[0]` / `f()()`: the await needs parentheses to apply to the call alone
        const tight = (ts.isPropertyAccessExpression(direct) || ts.isElementAccessExpression(direct) || ts.isCallExpression(direct)) && direct.expression === n;
        const edit = tight
          ? { range: { start: n.getStart(sf), end: n.end }, replacement: `(await ${text})` }
          : { range: { start: n.getStart(sf), end: n.getStart(sf) }, replacement: 'await ' };
        let how: 'value' | 'return-in-try' | 'return' | undefined;
        if (ts.isReturnStatement(up)) how = inTry(up, fn) ? 'return-in-try' : 'return';
        else if (
          (ts.isVariableDeclaration(up) && up.initializer !== undefined) ||
          ((ts.isPropertyAccessExpression(up) || ts.isElementAccessExpression(up)) && stripParens(up.expression) === n) ||
          (ts.isBinaryExpression(up) && up.operatorToken.kind !== ts.SyntaxKind.CommaToken && !ASSIGNMENT.has(up.operatorToken.kind)) ||
          ts.isTemplateSpan(up) ||
          ts.isPrefixUnaryExpression(up) ||
          ((ts.isIfStatement(up) || ts.isWhileStatement(up)) && stripParens(up.expression) === n) ||
          (ts.isConditionalExpression(up) && stripParens(up.condition) === n) ||
          ts.isSpreadElement(up) ||
          ts.isSpreadAssignment(up)
        )
          how = 'value';
        if (how) out.push({ kind: 'missing-await', ...edit, text, how });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

export function restoreMutations(sites: Site[]): Mutation[] {
  const out: Mutation[] = [];
  for (const site of sites) {
    if (site.kind === 'discarded-value') {
      const prior = site.pure ? DISCARDED_PURE_PRIOR : site.last ? DISCARDED_CALL_PRIOR : DISCARDED_CALL_PRIOR / 3;
      const shown = site.text.length > 40 ? `${site.text.slice(0, 40)}…` : site.text;
      out.push({ template: 'restore-return', range: site.range, replacement: 'return ', prior, description: `return \`${shown}\` (its value was discarded)` });
    } else if (site.kind === 'missing-await') {
      const prior = site.how === 'value' ? AWAIT_VALUE_PRIOR : site.how === 'return-in-try' ? AWAIT_RETURN_IN_TRY_PRIOR : AWAIT_RETURN_PRIOR;
      const shown = site.text.length > 40 ? `${site.text.slice(0, 40)}…` : site.text;
      out.push({
        template: 'restore-await',
        range: site.range,
        replacement: site.replacement,
        prior,
        description: `await \`${shown}\` (${site.how === 'value' ? 'its promise is used as a value' : 'returned from an async function'})`,
      });
    } else if (site.kind === 'literal-condition') {
      site.proposals.forEach((p, i) => {
        out.push({
          template: 'real-condition',
          range: site.range,
          replacement: p.text,
          prior: LITERAL_SITE_PRIOR * p.prior * (1 - 0.02 * i),
          description: `the literal condition \`${site.literal}\` → \`${p.text.length > 40 ? `${p.text.slice(0, 40)}…` : p.text}\` (${p.why})`,
        });
      });
    }
  }
  return out;
}

/**
 * The literals a whole value is replaced by (Stryker's mutators, a stub left
 * in): strings, booleans, an empty array or object (an emptied block), zero,
 * undefined/null/None.
 */
const STUB_LITERALS = ['""', "''", '``', 'true', 'false', 'True', 'False', '[]', '{}', '0', 'undefined', 'null', 'None'];
const RESTORE_VALUE_PRIOR = 6;
const identChar = (c: string | undefined) => c !== undefined && /[\w$]/.test(c);

/**
 * restore-value: where the change's own diff replaced a whole value (an
 * expression, a block) by a literal, the value it removed, put back at that
 * place in the head file. One change block (removed lines, then added lines)
 * at a time: the literal covers everything the two sides do not share. Only
 * blocks on the head lines `start`..`end` of `file`.
 */
export function restoreValueMutations(input: { diff: string; file: string; source: string; start: number; end: number }): Mutation[] {
  const { diff, file, source, start, end } = input;
  const starts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') starts.push(i + 1);
  const out: Mutation[] = [];
  let current = '';
  let headLine = 0;
  let removed: string[] = [];
  let added: string[] = [];
  let blockLine = 0;
  const flush = () => {
    if (removed.length && added.length && current === file && blockLine <= end && blockLine + added.length - 1 >= start)
      propose(removed.join('\n'), added.join('\n'), blockLine);
    removed = [];
    added = [];
  };
  const propose = (r: string, a: string, line: number) => {
    let p = 0;
    while (p < r.length && p < a.length && r[p] === a[p]) p++;
    let s = 0;
    while (s < r.length - p && s < a.length - p && r[r.length - 1 - s] === a[a.length - 1 - s]) s++;
    for (const lit of STUB_LITERALS) {
      for (let i = a.indexOf(lit); i >= 0; i = a.indexOf(lit, i + 1)) {
        const after = a.length - i - lit.length;
        // the literal covers the whole difference, and stands alone as a token
        if (i > p || after > s || identChar(a[i - 1]) || identChar(a[i + lit.length])) continue;
        const original = r.slice(i, r.length - after);
        if (!original.trim() || STUB_LITERALS.includes(original.trim())) continue;
        const lineStart = starts[line - 1];
        if (lineStart === undefined) continue;
        const at = lineStart + i;
        if (source.slice(at, at + lit.length) !== lit) continue;
        const shown = original.trim().replace(/\s+/g, ' ');
        out.push({
          template: 'restore-value',
          range: { start: at, end: at + lit.length },
          replacement: original,
          prior: RESTORE_VALUE_PRIOR,
          description: `the literal \`${lit}\` the change put in → the value it replaced, \`${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}\``,
        });
        return;
      }
    }
  };
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) {
      flush();
      current = line.slice(4).replace(/^b\//, '').trim();
    } else if (line.startsWith('--- ')) {
      flush();
    } else if (line.startsWith('@@')) {
      flush();
      headLine = Number(/\+(\d+)/.exec(line)?.[1] ?? 0);
    } else if (line.startsWith('-')) {
      if (added.length) flush();
      if (!removed.length) blockLine = headLine;
      removed.push(line.slice(1));
    } else if (line.startsWith('+')) {
      if (!removed.length && !added.length) blockLine = headLine;
      added.push(line.slice(1));
      headLine++;
    } else {
      flush();
      if (line.startsWith(' ')) headLine++;
    }
  }
  flush();
  return out;
}
