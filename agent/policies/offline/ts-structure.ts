// The TypeScript/JavaScript sites of the wider search (sites.ts lists the
// kinds): names in scope, fields, callees and their siblings, indices,
// condition clauses, statements, donors and function entries. Structure
// only (the parser, no type checker): "in scope" is what the enclosing
// functions and the module declare before the site, "same arity" is the
// declared parameter count.
import ts from 'typescript';
import type { Range, Site } from './model';
import { builtinSiblings, TS_GLOBALS } from './siblings';

const MAX_ALTERNATIVES = 6;
/** calls whose numeric arguments are positions or bounds: an off-by-one lives there */
const BOUND_CALLS = new Set(['slice', 'substring', 'substr', 'splice', 'at', 'charAt', 'charCodeAt', 'codePointAt', 'fill', 'copyWithin']);

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunctionNode(n: ts.Node): n is FunctionNode {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isFunctionExpression(n) ||
    ts.isArrowFunction(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isGetAccessorDeclaration(n) ||
    ts.isSetAccessorDeclaration(n)
  );
}

function bindingNames(name: ts.BindingName, out: string[]): void {
  if (ts.isIdentifier(name)) out.push(name.text);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
}

interface Variable {
  name: string;
  /** the declared type's text, when written */
  type?: string;
  /** 0: the innermost function's own, larger: further out; module level last */
  depth: number;
}

/** Variables (parameters, let/const/var, loop and catch variables) visible at `node`, innermost first. */
export function variablesInScope(node: ts.Node, sf: ts.SourceFile): Variable[] {
  const out: Variable[] = [];
  const seen = new Set<string>();
  const add = (name: string, depth: number, type?: ts.TypeNode) => {
    if (seen.has(name)) return;
    seen.add(name);
    out.push({ name, depth, ...(type ? { type: type.getText(sf) } : {}) });
  };
  const pos = node.getStart(sf);
  let depth = 0;
  const declarationsIn = (statements: readonly ts.Statement[], d: number) => {
    for (const st of statements) {
      // declared before the site and not the site's own declaration (`const x = f(x)`: x is not in scope yet)
      if (st.end > pos) break;
      if (ts.isVariableStatement(st)) {
        for (const decl of st.declarationList.declarations) {
          // a function or class held in a variable is not a value to swap in
          const init = decl.initializer;
          if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init) || ts.isClassExpression(init))) continue;
          const names: string[] = [];
          bindingNames(decl.name, names);
          for (const n of names) add(n, d, names.length === 1 ? decl.type : undefined);
        }
      }
    }
  };
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isBlock(n) || ts.isSourceFile(n) || ts.isCaseClause(n) || ts.isDefaultClause(n)) declarationsIn(n.statements, ts.isSourceFile(n) ? 99 : depth);
    if ((ts.isForStatement(n) || ts.isForOfStatement(n) || ts.isForInStatement(n)) && n.initializer && ts.isVariableDeclarationList(n.initializer)) {
      for (const decl of n.initializer.declarations) {
        const names: string[] = [];
        bindingNames(decl.name, names);
        for (const name of names) add(name, depth);
      }
    }
    if (ts.isCatchClause(n) && n.variableDeclaration) {
      const names: string[] = [];
      bindingNames(n.variableDeclaration.name, names);
      for (const name of names) add(name, depth);
    }
    if (isFunctionNode(n)) {
      for (const p of n.parameters) {
        const names: string[] = [];
        bindingNames(p.name, names);
        for (const name of names) add(name, depth, names.length === 1 ? p.type : undefined);
      }
      depth += 1;
    }
  }
  return out;
}

/** Every name a statement at `node` can use: variables in scope, the module's declarations and imports, the globals. */
function namesVisible(node: ts.Node, sf: ts.SourceFile, moduleNames: Set<string>): Set<string> {
  const names = new Set(moduleNames);
  for (const v of variablesInScope(node, sf)) names.add(v.name);
  for (const g of TS_GLOBALS) names.add(g);
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) if (ts.isClassLike(n)) names.add('this');
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) if (isFunctionNode(n) && !ts.isArrowFunction(n)) names.add('arguments');
  return names;
}

function moduleDeclarations(sf: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const st of sf.statements) {
    if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) names.add(st.name.text);
    else if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) collect(d.name, names);
    else if (ts.isImportDeclaration(st) && st.importClause) {
      if (st.importClause.name) names.add(st.importClause.name.text);
      const b = st.importClause.namedBindings;
      if (b && ts.isNamedImports(b)) for (const el of b.elements) names.add(el.name.text);
      else if (b && ts.isNamespaceImport(b)) names.add(b.name.text);
    }
  }
  return names;
}

function collect(name: ts.BindingName, into: Set<string>): void {
  const list: string[] = [];
  bindingNames(name, list);
  for (const n of list) into.add(n);
}

/** The names a statement reads and does not declare itself (the first identifier of each property chain). */
function freeNames(node: ts.Node, sf: ts.SourceFile): string[] {
  const used = new Set<string>();
  const declared = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n)) {
      const p = n.parent;
      const isName =
        (ts.isPropertyAccessExpression(p) && p.name === n) ||
        (ts.isPropertyAssignment(p) && p.name === n) ||
        ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isBindingElement(p) || ts.isFunctionDeclaration(p) || ts.isFunctionExpression(p)) &&
          p.name === n);
      if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isBindingElement(p)) && p.name === n) declared.add(n.text);
      if (!isName) used.add(n.text);
    } else if (n.kind === ts.SyntaxKind.ThisKeyword) used.add('this');
    if (!ts.isTypeNode(n)) ts.forEachChild(n, visit);
  };
  visit(node);
  void sf;
  return [...used].filter((u) => !declared.has(u));
}

function typeClass(type: ts.TypeNode | undefined, sf: ts.SourceFile): 'number' | 'string' | 'collection' | 'unknown' {
  if (!type) return 'unknown';
  const t = type.getText(sf);
  if (/^(number|bigint)$/.test(t)) return 'number';
  if (t === 'string') return 'string';
  if (/\[\]$|^(Readonly)?Array<|^ReadonlyArray<|^(Set|Map|ReadonlySet|ReadonlyMap)</.test(t)) return 'collection';
  return 'unknown';
}

/** How a parameter without a telling type is used in the body: `.length` or `for…of` → a collection; arithmetic or a numeric comparison → a number. */
function usageClass(name: string, body: ts.Node): 'number' | 'collection' | 'unknown' {
  let out: 'number' | 'collection' | 'unknown' = 'unknown';
  const isIt = (e: ts.Node) => ts.isIdentifier(e) && e.text === name;
  const visit = (n: ts.Node) => {
    if (out === 'collection') return;
    if (ts.isPropertyAccessExpression(n) && isIt(n.expression) && n.name.text === 'length') out = 'collection';
    else if (ts.isForOfStatement(n) && isIt(n.expression)) out = 'collection';
    else if (ts.isBinaryExpression(n) && (isIt(n.left) || isIt(n.right))) {
      const other = isIt(n.left) ? n.right : n.left;
      const op = n.operatorToken.kind;
      const arithmetic = [ts.SyntaxKind.MinusToken, ts.SyntaxKind.AsteriskToken, ts.SyntaxKind.SlashToken, ts.SyntaxKind.PercentToken].includes(op);
      const relational = [
        ts.SyntaxKind.LessThanToken,
        ts.SyntaxKind.LessThanEqualsToken,
        ts.SyntaxKind.GreaterThanToken,
        ts.SyntaxKind.GreaterThanEqualsToken,
      ].includes(op);
      if (arithmetic || (relational && ts.isNumericLiteral(other))) out = 'number';
    }
    ts.forEachChild(n, visit);
  };
  visit(body);
  return out;
}

function isSimpleReturn(e: ts.Expression, params: Set<string>): boolean {
  if (ts.isNumericLiteral(e) || ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return true;
  if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword || e.kind === ts.SyntaxKind.NullKeyword) return true;
  if (ts.isPrefixUnaryExpression(e) && ts.isNumericLiteral(e.operand)) return true;
  if (ts.isArrayLiteralExpression(e) && e.elements.length === 0) return true;
  if (ts.isObjectLiteralExpression(e) && e.properties.length === 0) return true;
  if (ts.isIdentifier(e)) return params.has(e.text) || e.text === 'undefined';
  return false;
}

/** The function's own return statements (not those of functions nested in it). */
function ownReturns(fn: FunctionNode): ts.ReturnStatement[] {
  const out: ts.ReturnStatement[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isReturnStatement(n)) out.push(n);
    if (!isFunctionNode(n) && !ts.isClassLike(n)) ts.forEachChild(n, visit);
  };
  if (fn.body) ts.forEachChild(fn.body, visit);
  return out;
}

function lineStartOf(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

function lineEndOf(text: string, pos: number): number {
  const nl = text.indexOf('\n', pos);
  return nl < 0 ? text.length : nl + 1;
}

function unwrapParens(e: ts.Expression): ts.Expression {
  let x = e;
  while (ts.isParenthesizedExpression(x)) x = x.expression;
  return x;
}

/** The operands of a chain of one logical operator: `a && b && c` → a, b, c. */
function flattenLogical(e: ts.Expression, op: ts.SyntaxKind): ts.Expression[] {
  const x = unwrapParens(e);
  if (ts.isBinaryExpression(x) && x.operatorToken.kind === op) return [...flattenLogical(x.left, op), ...flattenLogical(x.right, op)];
  return [e];
}

/** Receivers of member and element accesses in an expression that are plain names: `x` in `x.y`, `x[i]`. */
function receivers(e: ts.Node): string[] {
  const out = new Set<string>();
  const visit = (n: ts.Node) => {
    if ((ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) && ts.isIdentifier(n.expression) && !n.questionDotToken)
      out.add(n.expression.text);
    if (!isFunctionNode(n)) ts.forEachChild(n, visit);
  };
  visit(e);
  return [...out];
}

export function tsStructuralSites({ sf, text, start, end }: { sf: ts.SourceFile; text: string; start: number; end: number }): Site[] {
  const sites: Site[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const range = (node: ts.Node): Range => ({ start: node.getStart(sf), end: node.end });
  const moduleNames = moduleDeclarations(sf);

  // file-wide facts: the fields seen on each receiver, sibling fields declared together, the file's own functions and their arity
  const fieldsByReceiver = new Map<string, Set<string>>();
  const calledNames = new Set<string>();
  const declaredSiblings = new Map<string, Set<string>>();
  const fileFunctions = new Map<string, number>();
  const methodsByClass = new Map<ts.ClassLikeDeclaration, Map<string, number>>();
  const declareGroup = (names: string[]) => {
    for (const n of names) {
      const set = declaredSiblings.get(n) ?? new Set<string>();
      for (const m of names) if (m !== n) set.add(m);
      declaredSiblings.set(n, set);
    }
  };
  const scan = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) calledNames.add(n.expression.name.text);
    if (ts.isPropertyAccessExpression(n) && !(ts.isCallExpression(n.parent) && n.parent.expression === n)) {
      const key = n.expression.getText(sf);
      const set = fieldsByReceiver.get(key) ?? new Set<string>();
      set.add(n.name.text);
      fieldsByReceiver.set(key, set);
    }
    if (ts.isInterfaceDeclaration(n) || ts.isTypeLiteralNode(n) || ts.isClassLike(n)) {
      const members = (n as ts.InterfaceDeclaration | ts.TypeLiteralNode | ts.ClassLikeDeclaration).members as ts.NodeArray<ts.TypeElement | ts.ClassElement>;
      const props = members
        .filter((m) => (ts.isPropertySignature(m) || ts.isPropertyDeclaration(m)) && m.name && ts.isIdentifier(m.name))
        .map((m) => ((m as ts.PropertySignature).name as ts.Identifier).text);
      declareGroup(props);
      if (ts.isClassLike(n)) {
        const methods = new Map<string, number>();
        for (const m of n.members) if (ts.isMethodDeclaration(m) && ts.isIdentifier(m.name)) methods.set(m.name.text, m.parameters.length);
        methodsByClass.set(n, methods);
      }
    }
    if (ts.isObjectLiteralExpression(n)) {
      declareGroup(
        n.properties
          .filter((p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && ts.isIdentifier(p.name))
          .map((p) => (p.name as ts.Identifier).text),
      );
    }
    ts.forEachChild(n, scan);
  };
  scan(sf);
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name) fileFunctions.set(st.name.text, st.parameters.length);
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        const init = d.initializer && unwrapParens(d.initializer);
        if (ts.isIdentifier(d.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)))
          fileFunctions.set(d.name.text, init.parameters.length);
      }
    }
  }

  // donors: single-line statements anywhere in the file, which a statement elsewhere may have missed
  const donorVisit = (n: ts.Node) => {
    if ((ts.isExpressionStatement(n) || ts.isIfStatement(n)) && (ts.isBlock(n.parent) || ts.isSourceFile(n.parent)) && !ts.isSourceFile(n.parent)) {
      const r = range(n);
      if (lineOf(r.start) === lineOf(r.end) && !(ts.isIfStatement(n) && n.elseStatement)) {
        sites.push({ kind: 'donor', text: text.slice(r.start, r.end), range: r, uses: freeNames(n, sf) });
      }
    }
    ts.forEachChild(n, donorVisit);
  };
  donorVisit(sf);

  const inside = (node: ts.Node) => {
    const l = lineOf(node.getStart(sf));
    return l >= start && l <= end;
  };
  const inType = (node: ts.Node) => {
    for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
      if (ts.isTypeNode(n) || ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) return true;
      if (ts.isStatement(n)) return false;
    }
    return false;
  };

  const visit = (node: ts.Node) => {
    if (lineOf(node.end) < start || lineOf(node.getStart(sf)) > end) return;
    if (inside(node) && !inType(node)) collect(node);
    ts.forEachChild(node, visit);
  };

  function collect(node: ts.Node): void {
    // ── a variable read or assigned ──
    if (ts.isIdentifier(node)) {
      const p = node.parent;
      const notAValue =
        (ts.isPropertyAccessExpression(p) && p.name === node) ||
        (ts.isCallExpression(p) && p.expression === node) ||
        ts.isPropertyAssignment(p) ||
        ts.isShorthandPropertyAssignment(p) ||
        ((ts.isVariableDeclaration(p) ||
          ts.isParameter(p) ||
          ts.isBindingElement(p) ||
          ts.isFunctionDeclaration(p) ||
          ts.isClassLike(p) ||
          isFunctionNode(p)) &&
          (p as { name?: ts.Node }).name === node) ||
        ts.isImportSpecifier(p) ||
        ts.isImportClause(p) ||
        ts.isExportSpecifier(p) ||
        ts.isLabeledStatement(p) ||
        ts.isBreakOrContinueStatement(p) ||
        ts.isPropertyDeclaration(p) ||
        ts.isMethodDeclaration(p) ||
        ts.isTypeReferenceNode(p) ||
        ts.isNewExpression(p);
      if (!notAValue && node.text !== 'undefined') {
        const vars = variablesInScope(node, sf);
        const self = vars.find((v) => v.name === node.text);
        if (self) {
          const alternatives = vars
            .filter((v) => v.name !== self.name && (!v.type || !self.type || v.type === self.type) && (self.depth === 99) === (v.depth === 99))
            .slice(0, MAX_ALTERNATIVES)
            .map((v) => v.name);
          if (alternatives.length) sites.push({ kind: 'identifier', name: node.text, range: range(node), alternatives });
        }
      }
    }
    // ── a field ──
    if (ts.isPropertyAccessExpression(node) && !node.questionDotToken && !(ts.isCallExpression(node.parent) && node.parent.expression === node)) {
      const name = node.name.text;
      const seenOnReceiver = fieldsByReceiver.get(node.expression.getText(sf)) ?? new Set<string>();
      const alternatives = [...new Set([...seenOnReceiver, ...(declaredSiblings.get(name) ?? [])])]
        .filter((a) => a !== name && !calledNames.has(a) && a !== 'length')
        .slice(0, MAX_ALTERNATIVES);
      if (alternatives.length) sites.push({ kind: 'member', name, range: range(node.name), alternatives });
    }
    // ── a property read off a value that may be missing: where `?.` would go ──
    if (ts.isPropertyAccessExpression(node) && !node.questionDotToken && !ts.isNonNullExpression(node.expression)) {
      const at = node.name.getStart(sf) - 1;
      if (text[at] === '.') sites.push({ kind: 'dereference', name: node.name.text, dot: { start: at, end: at + 1 } });
    }
    // `a[k]`: `?.` goes before the bracket; a key known only at run time may be whatever the message names
    if (ts.isElementAccessExpression(node) && !node.questionDotToken && !ts.isNonNullExpression(node.expression)) {
      const at = text.indexOf('[', node.expression.end);
      const key = node.argumentExpression;
      const name = ts.isStringLiteral(key) || ts.isNumericLiteral(key) || ts.isNoSubstitutionTemplateLiteral(key) ? key.text : null;
      if (at >= 0 && at < key.getStart(sf)) sites.push({ kind: 'dereference', name, dot: { start: at, end: at } });
    }
    // ── `v = e`, e a value that can be compared (no literal, object, array or function): a running extremum or a clamp wraps e ──
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isIdentifier(node.left) &&
      (ts.isBinaryExpression(node.right) ||
        ts.isIdentifier(node.right) ||
        ts.isCallExpression(node.right) ||
        ts.isPropertyAccessExpression(node.right) ||
        ts.isElementAccessExpression(node.right) ||
        ts.isPrefixUnaryExpression(node.right) ||
        ts.isConditionalExpression(node.right)) &&
      lineOf(node.right.getStart(sf)) === lineOf(node.right.end)
    ) {
      sites.push({ kind: 'assigned', name: node.left.text, range: range(node.right) });
    }
    // ── a callee ──
    if (ts.isCallExpression(node)) {
      const callee = unwrapParens(node.expression);
      const arity = node.arguments.length;
      const nameNode = ts.isIdentifier(callee) ? callee : ts.isPropertyAccessExpression(callee) ? callee.name : null;
      if (nameNode && ts.isIdentifier(nameNode)) {
        const name = nameNode.text;
        const builtin = builtinSiblings('ts', name);
        const own: string[] = [];
        if (ts.isIdentifier(callee) && fileFunctions.has(name)) {
          for (const [f, n] of fileFunctions) if (f !== name && n === fileFunctions.get(name) && n >= arity) own.push(f);
        } else if (ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.ThisKeyword) {
          let cls: ts.Node | undefined = node.parent;
          while (cls && !ts.isClassLike(cls)) cls = cls.parent;
          const methods = cls ? methodsByClass.get(cls as ts.ClassLikeDeclaration) : undefined;
          if (methods?.has(name)) for (const [m, n] of methods) if (m !== name && n === methods.get(name)) own.push(m);
        }
        const isOwn = own.length > 0;
        const alternatives = (isOwn ? own : ts.isIdentifier(callee) && !['parseInt', 'parseFloat'].includes(name) ? [] : builtin).slice(0, MAX_ALTERNATIVES);
        if (alternatives.length) sites.push({ kind: 'callee', name, range: range(nameNode), alternatives, builtin: !isOwn });
      }
      // bounds of slice-like calls
      if (ts.isPropertyAccessExpression(callee) && BOUND_CALLS.has(callee.name.text)) {
        for (const a of node.arguments) if (!isLiteralish(a)) sites.push({ kind: 'index', range: range(a) });
      }
    }
    // ── an index ──
    if (ts.isElementAccessExpression(node) && !isLiteralish(node.argumentExpression)) {
      sites.push({ kind: 'index', range: range(node.argumentExpression) });
    }
    // ── condition clauses and guards ──
    const condition =
      ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node)
        ? node.expression
        : ts.isConditionalExpression(node)
          ? node.condition
          : ts.isForStatement(node)
            ? node.condition
            : undefined;
    if (condition) {
      for (const op of [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken]) {
        const parts = flattenLogical(condition, op);
        if (parts.length >= 2)
          sites.push({ kind: 'clauses', op: op === ts.SyntaxKind.AmpersandAmpersandToken ? '&&' : '||', range: range(condition), clauses: parts.map(range) });
      }
      const rs = receivers(condition);
      if (rs.length) sites.push({ kind: 'guardable', range: range(condition), receivers: rs });
    }
    // a filter/find/some/every callback's condition: `xs.filter((x) => x.ok)`
    if (
      ts.isArrowFunction(node) &&
      !ts.isBlock(node.body) &&
      ts.isCallExpression(node.parent) &&
      ts.isPropertyAccessExpression(node.parent.expression) &&
      ['filter', 'find', 'some', 'every', 'findIndex'].includes(node.parent.expression.name.text)
    ) {
      const rs = receivers(node.body);
      if (rs.length) sites.push({ kind: 'guardable', range: range(node.body), receivers: rs });
    }
    // ── statements ──
    if (ts.isStatement(node) && !ts.isBlock(node) && (ts.isBlock(node.parent) || ts.isCaseClause(node.parent) || ts.isDefaultClause(node.parent))) {
      const r = range(node);
      const lineStart = lineStartOf(text, r.start);
      const before = text.slice(lineStart, r.start);
      const lineEnd = lineEndOf(text, r.end);
      const after = text.slice(r.end, lineEnd);
      if (/^[ \t]*$/.test(before)) {
        const siblings = (node.parent as ts.Block).statements;
        const isLast = siblings[siblings.length - 1] === node;
        const jump = ts.isReturnStatement(node) || ts.isThrowStatement(node) || ts.isBreakOrContinueStatement(node);
        const fnBody = ts.isBlock(node.parent) && isFunctionNode(node.parent.parent);
        const removable =
          /^\s*$/.test(after) &&
          (ts.isExpressionStatement(node) ||
            ts.isBreakOrContinueStatement(node) ||
            (ts.isIfStatement(node) && !node.elseStatement) ||
            (ts.isReturnStatement(node) && !(isLast && fnBody)));
        sites.push({
          kind: 'statement',
          range: r,
          lineStart,
          lineEnd,
          indent: before,
          removable,
          last: isLast && !jump,
          scope: [...namesVisible(node, sf, moduleNames)],
        });
      }
    }
    // ── a function's entry ──
    if (isFunctionNode(node) && node.body && ts.isBlock(node.body) && node.body.statements.length > 0) {
      const first = node.body.statements[0];
      const firstStart = first.getStart(sf);
      const lineStart = lineStartOf(text, firstStart);
      const indent = text.slice(lineStart, firstStart);
      if (/^[ \t]*$/.test(indent) && lineOf(firstStart) > lineOf(node.body.getStart(sf))) {
        const names = new Set<string>();
        const params = node.parameters
          .filter((p) => ts.isIdentifier(p.name))
          .map((p) => {
            const name = (p.name as ts.Identifier).text;
            names.add(name);
            const declared = typeClass(p.type, sf);
            return { name, type: declared !== 'unknown' ? declared : usageClass(name, node.body as ts.Block) };
          });
        const own = ownReturns(node);
        const returns = [
          ...new Set(own.filter((r) => r.expression && isSimpleReturn(r.expression, names)).map((r) => (r.expression as ts.Expression).getText(sf))),
        ];
        const empty = emptyOf(
          node.type?.getText(sf),
          own.map((r) => r.expression).filter((e): e is ts.Expression => !!e),
        );
        sites.push({ kind: 'entry', insertAt: lineStart, indent, params, returns, ...(empty ? { empty } : {}) });
      }
    }
  }

  visit(sf);
  return sites;
}

/** The empty value of a function's result, by its declared type or else by what it returns. */
function emptyOf(type: string | undefined, returns: ts.Expression[]): string | undefined {
  if (type === 'string') return "''";
  if (type === 'number') return '0';
  if (type === 'boolean') return 'false';
  if (type && /\[\]$|^(Readonly)?Array</.test(type)) return '[]';
  if (type) return undefined;
  const stringy = (e: ts.Expression): boolean => {
    const x = unwrapParens(e);
    return (
      ts.isStringLiteral(x) ||
      ts.isNoSubstitutionTemplateLiteral(x) ||
      ts.isTemplateExpression(x) ||
      (ts.isBinaryExpression(x) && x.operatorToken.kind === ts.SyntaxKind.PlusToken && (stringy(x.left) || stringy(x.right)))
    );
  };
  if (returns.some(stringy)) return "''";
  if (returns.some((e) => ts.isArrayLiteralExpression(unwrapParens(e)))) return '[]';
  return undefined;
}

function isLiteralish(e: ts.Expression): boolean {
  const x = unwrapParens(e);
  return (
    ts.isNumericLiteral(x) ||
    ts.isStringLiteral(x) ||
    ts.isNoSubstitutionTemplateLiteral(x) ||
    (ts.isPrefixUnaryExpression(x) && ts.isNumericLiteral(x.operand))
  );
}
