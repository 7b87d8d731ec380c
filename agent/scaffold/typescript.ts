// TypeScript/JavaScript spans through the TypeScript compiler API. Only the
// parser is used (ts.createSourceFile): localisation needs structure, not
// types, and a full Program would cost seconds on a large repository.
import { createHash } from 'node:crypto';
import path from 'node:path';
import ts from 'typescript';
import type { CallRef, FileIndex, ImportRef, IndexedSpan } from './model';
import { isTestPath } from './model';

const TEST_CALLEES = new Set(['test', 'it', 'describe', 'suite']);

function scriptKindOf(file: string): ts.ScriptKind {
  if (file.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (file.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(file)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

export function parseTs(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKindOf(file));
}

function nameText(name: ts.PropertyName | ts.BindingName | undefined): string | null {
  if (!name) return null;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return null;
}

function unwrap(expr: ts.Expression | undefined): ts.Expression | undefined {
  let e = expr;
  while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))) {
    e = e.expression;
  }
  return e;
}

function isFunctionLike(expr: ts.Expression | undefined): expr is ts.ArrowFunction | ts.FunctionExpression {
  return !!expr && (ts.isArrowFunction(expr) || ts.isFunctionExpression(expr));
}

/** `test`, `it.only`, `describe.skip`, `t.test` → the runner verb, else null */
function testVerb(callee: ts.Expression): string | null {
  if (ts.isIdentifier(callee) && TEST_CALLEES.has(callee.text)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) {
    if (ts.isIdentifier(callee.expression) && TEST_CALLEES.has(callee.expression.text)) return callee.expression.text;
    if (TEST_CALLEES.has(callee.name.text)) return callee.name.text;
  }
  return null;
}

function calleeName(callee: ts.Expression): string | null {
  const e = unwrap(callee);
  if (!e) return null;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return null;
}

interface Scope {
  /** fully qualified symbol ("Cart.total"; for a suite, its title) */
  symbol: string;
  name: string;
  kind: 'class' | 'function' | 'object' | 'suite';
}

function indexSource(file: string, sf: ts.SourceFile): FileIndex {
  const spans: IndexedSpan[] = [];
  const imports: ImportRef[] = [];
  const calls: CallRef[] = [];
  const isTestFile = isTestPath(file);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;

  /** Adds a span and returns the scope its body is visited in. */
  function addSpan(node: ts.Node, name: string, kind: IndexedSpan['kind'], scope: Scope[], isTest = false): Scope[] {
    let symbol: string;
    if (isTest) {
      // Tests are named by their suite chain, the way runners report them.
      const suites = scope.filter((s) => s.kind === 'suite').map((s) => s.name);
      symbol = [...suites, name].join(' > ');
    } else {
      const parent = enclosing(scope);
      symbol = parent ? `${parent}.${name}` : name;
    }
    spans.push({ file, symbol, name, kind, startLine: lineOf(node.getStart(sf)), endLine: lineOf(node.end), isTest });
    const scopeKind: Scope['kind'] = kind === 'class' ? 'class' : 'function';
    return [...scope, { symbol, name, kind: scopeKind }];
  }

  /** qualified symbol of the innermost named definition, suites excluded */
  function enclosing(scope: Scope[]): string | null {
    for (let i = scope.length - 1; i >= 0; i -= 1) if (scope[i].kind !== 'suite') return scope[i].symbol;
    return null;
  }

  function visit(node: ts.Node, scope: Scope[]): void {
    let next = scope;

    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const spec = node.moduleSpecifier;
      if (spec && ts.isStringLiteral(spec)) {
        const names: string[] = [];
        if (ts.isImportDeclaration(node) && node.importClause) {
          if (node.importClause.name) names.push(node.importClause.name.text);
          const bindings = node.importClause.namedBindings;
          if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text);
        }
        imports.push({ specifier: spec.text, level: 0, names, line: lineOf(node.getStart(sf)) });
      }
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteral(e)) imports.push({ specifier: e.text, level: 0, names: [node.name.text], line: lineOf(node.getStart(sf)) });
    } else if (ts.isFunctionDeclaration(node)) {
      next = addSpan(node, node.name?.text ?? 'default', 'function', scope);
    } else if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const name = node.name?.text ?? (ts.isVariableDeclaration(node.parent) ? nameText(node.parent.name) : null) ?? 'default';
      next = addSpan(node, name, 'class', scope);
    } else if (ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) {
      const name = ts.isConstructorDeclaration(node) ? 'constructor' : (nameText(node.name) ?? '[computed]');
      const inClassOrObject = scope.length > 0 && (scope[scope.length - 1].kind === 'class' || scope[scope.length - 1].kind === 'object');
      next = addSpan(node, name, inClassOrObject ? 'method' : 'function', scope);
    } else if ((ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) && isFunctionLike(unwrap(node.initializer))) {
      const name = nameText(node.name) ?? '[computed]';
      next = addSpan(node, name, 'method', scope);
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      isFunctionLike(unwrap(node.right))
    ) {
      // CommonJS: `exports.parse = function …`, `Foo.prototype.bar = …`, `module.exports = function slugify …`
      const fn = unwrap(node.right);
      const own = fn && (ts.isFunctionExpression(fn) || ts.isClassExpression(fn)) && fn.name ? fn.name.text : null;
      const isModule = node.left.name.text === 'exports' && ts.isIdentifier(node.left.expression) && node.left.expression.text === 'module';
      const name = isModule ? (own ?? path.posix.basename(file).replace(/\.[^.]+$/, '')) : node.left.name.text;
      const stmt = ts.isExpressionStatement(node.parent) ? node.parent : node;
      next = addSpan(stmt, name, 'function', scope);
    } else if (ts.isVariableDeclaration(node)) {
      const name = nameText(node.name);
      const init = unwrap(node.initializer);
      if (name && isFunctionLike(init)) {
        // Span the whole statement so `export const f = () => ...` includes its head.
        const list = node.parent;
        const stmt = ts.isVariableDeclarationList(list) && list.declarations.length === 1 && ts.isVariableStatement(list.parent) ? list.parent : node;
        next = addSpan(stmt, name, 'function', scope);
      } else if (name && init && ts.isObjectLiteralExpression(init)) {
        const parent = enclosing(scope);
        next = [...scope, { symbol: parent ? `${parent}.${name}` : name, name, kind: 'object' }];
      }
    } else if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const callee = node.expression;
      const args = node.arguments ?? ts.factory.createNodeArray();
      if (ts.isCallExpression(node) && ts.isIdentifier(callee) && callee.text === 'require' && args.length === 1 && ts.isStringLiteral(args[0])) {
        imports.push({ specifier: args[0].text, level: 0, names: [], line: lineOf(node.getStart(sf)) });
      } else if (ts.isCallExpression(node) && callee.kind === ts.SyntaxKind.ImportKeyword && args.length >= 1 && ts.isStringLiteral(args[0])) {
        imports.push({ specifier: args[0].text, level: 0, names: [], line: lineOf(node.getStart(sf)) });
      }
      const verb = ts.isCallExpression(node) ? testVerb(callee) : null;
      const title = args[0] && (ts.isStringLiteral(args[0]) || ts.isNoSubstitutionTemplateLiteral(args[0])) ? args[0].text : null;
      const body = args.find((a) => isFunctionLike(unwrap(a)));
      if (verb && title !== null && body) {
        const isSuite = verb === 'describe' || verb === 'suite';
        const inner: Scope[] = isSuite ? [...scope, { symbol: title, name: title, kind: 'suite' }] : addSpan(node, title, 'function', scope, true);
        for (const a of args) if (a !== body) visit(a, scope);
        visit(body, inner);
        return;
      }
      const name = calleeName(callee);
      if (name) calls.push({ from: enclosing(scope), name, line: lineOf(node.getStart(sf)) });
    }

    ts.forEachChild(node, (child) => visit(child, next));
  }

  visit(sf, []);
  return { file, language: 'ts', isTestFile, spans, imports, calls };
}

// Parsed indexes keyed by content hash: the bench and a long-lived worker index
// the same files again and again; a changed file gets a new hash.
const cache = new Map<string, FileIndex>();
const CACHE_LIMIT = 5_000;

export function indexTsFile(file: string, text: string): FileIndex {
  const key = `${file}\0${createHash('sha1').update(text).digest('hex')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const index = indexSource(file, parseTs(file, text));
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, index);
  return index;
}
