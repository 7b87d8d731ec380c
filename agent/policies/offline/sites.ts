// Mutation sites: the places inside a suspect where a repair template can
// apply. Found through the TypeScript parser and Python's tokenize/ast, so an
// operator inside a string, a comment or a generic type is never a site.
import ts from 'typescript';
import { parseTs } from '../../scaffold/typescript';
import { pythonSites } from '../../scaffold/python';
import { builtinSiblings } from './siblings';
import { unquote } from './literals';
import { discardedValueSites, literalConditionSites, missingAwaitSites } from './restore';
import { tsStructuralSites, variablesInScope } from './ts-structure';
import type { Range, Site, SiteLanguage } from './model';

export function siteLanguage(file: string): SiteLanguage | null {
  if (file.endsWith('.d.ts')) return null;
  if (/\.[cm]?[jt]sx?$/.test(file)) return 'ts';
  if (file.endsWith('.py')) return 'py';
  return null;
}

const RELATIONAL = new Set(['<', '<=', '>', '>=']);
const EQUALITY_OPS = new Set(['==', '!=', '===', '!==']);
const NON_COMMUTATIVE = new Set(['-', '/', '//', '%', '**']);

function inTypePosition(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isTypeNode(n) || ts.isImportDeclaration(n) || ts.isExportDeclaration(n) || ts.isEnumMember(n)) return true;
    if (ts.isStatement(n)) return false;
  }
  return false;
}

/** Sites of a TS/JS file within lines start..end (1-based, inclusive). */
export function tsSites({ file, text, start, end }: { file: string; text: string; start: number; end: number }): Site[] {
  const sf = parseTs(file, text);
  const sites: Site[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const range = (node: ts.Node): Range => ({ start: node.getStart(sf), end: node.end });
  const inside = (node: ts.Node) => {
    const l = lineOf(node.getStart(sf));
    return l >= start && l <= end;
  };

  function visit(node: ts.Node): void {
    // Skip whole subtrees that end before or start after the window.
    if (lineOf(node.end) < start || lineOf(node.getStart(sf)) > end) return;
    if (inside(node) && !inTypePosition(node)) collect(node);
    ts.forEachChild(node, visit);
  }

  function collect(node: ts.Node): void {
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.getText(sf);
      sites.push({ kind: 'operator', op, range: range(node.operatorToken), left: range(node.left), right: range(node.right) });
      if (RELATIONAL.has(op)) sites.push({ kind: 'comparison', op, left: range(node.left), right: range(node.right) });
      if (EQUALITY_OPS.has(op)) sites.push({ kind: 'equality', op, left: range(node.left), right: range(node.right) });
      if (NON_COMMUTATIVE.has(op)) sites.push({ kind: 'operands', op, left: range(node.left), right: range(node.right) });
      // `+` does not commute on strings: 'a' + x is not x + 'a'
      else if (op === '+' && (isStringish(node.left) || isStringish(node.right)))
        sites.push({ kind: 'operands', op, left: range(node.left), right: range(node.right) });
    } else if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)
    ) {
      const at = ts.isPrefixUnaryExpression(node) ? node.getStart(sf) : node.operand.end;
      sites.push({ kind: 'operator', op: node.operator === ts.SyntaxKind.PlusPlusToken ? '++' : '--', range: { start: at, end: at + 2 } });
    } else if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) {
      const s = node.getStart(sf);
      sites.push({ kind: 'negation', range: { start: s, end: s + 1 } });
    } else if (ts.isNumericLiteral(node)) {
      sites.push({ kind: 'number', text: node.getText(sf), range: range(node) });
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      // property keys and module names are names, not values
      if (!(node.parent && ts.isPropertyAssignment(node.parent) && node.parent.name === node)) {
        sites.push({ kind: 'string', text: node.getText(sf), range: range(node) });
      }
    } else if (ts.isRegularExpressionLiteral(node)) {
      const at = node.getStart(sf);
      const text = node.getText(sf);
      const close = text.lastIndexOf('/');
      sites.push({ kind: 'regex', pattern: { start: at + 1, end: at + close }, flags: { start: at + close + 1, end: node.end }, doubled: false });
    } else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      sites.push({ kind: 'string', text: node.getText(sf), range: range(node) });
    } else if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) {
      sites.push({ kind: 'boolean', text: node.getText(sf), range: range(node) });
    } else if (ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node)) {
      sites.push({ kind: 'condition', range: range(node.expression) });
    } else if (ts.isConditionalExpression(node)) {
      sites.push({ kind: 'condition', range: range(node.condition) });
    } else if (ts.isForStatement(node) && node.condition) {
      sites.push({ kind: 'condition', range: range(node.condition) });
    } else if (ts.isReturnStatement(node) && node.expression) {
      sites.push({ kind: 'return', range: range(node.expression), literal: isLiteral(node.expression) });
    } else if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) {
      // `(a) => a < b`: the concise body is a return value
      sites.push({ kind: 'return', range: range(node.body), literal: isLiteral(node.body) });
    }
    // `new RegExp('…', 'g')`: the pattern is a string, its backslashes written twice
    if (
      (ts.isCallExpression(node) || ts.isNewExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp' &&
      node.arguments?.[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const [pattern, flags] = node.arguments;
      const inner = (n: ts.Node): Range => ({ start: n.getStart(sf) + 1, end: n.end - 1 });
      sites.push({ kind: 'regex', pattern: inner(pattern), flags: flags && ts.isStringLiteral(flags) ? inner(flags) : null, doubled: true });
    }
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments && node.arguments.length >= 2) {
      if (!node.arguments.some((a) => ts.isSpreadElement(a))) sites.push({ kind: 'call-args', args: node.arguments.map(range) });
    }
  }

  visit(sf);
  sites.push(...tsStructuralSites({ sf, text, start, end }));
  sites.push(...discardedValueSites(sf, inside), ...missingAwaitSites(sf, inside), ...literalConditionSites(sf, inside, (n) => variablesInScope(n, sf)));
  return sites;
}

function isStringish(e: ts.Expression): boolean {
  return ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isTemplateExpression(e);
}

function isLiteral(e: ts.Expression): boolean {
  return (
    ts.isNumericLiteral(e) ||
    ts.isStringLiteral(e) ||
    ts.isNoSubstitutionTemplateLiteral(e) ||
    e.kind === ts.SyntaxKind.TrueKeyword ||
    e.kind === ts.SyntaxKind.FalseKeyword ||
    e.kind === ts.SyntaxKind.NullKeyword ||
    (ts.isPrefixUnaryExpression(e) && ts.isNumericLiteral(e.operand))
  );
}

/** Character offset of the start of each line (index 0 is line 1). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

const PY_LITERAL_RETURN = /^(-?\d[\d_.eE+-]*|True|False|None|'[^']*'|"[^"]*")$/;

/** Sites of a Python file within lines start..end, from the Python helper's tokenize + ast pass (agent/python/helper.py). */
export async function pySites({ root, file, text, start, end }: { root: string; file: string; text: string; start: number; end: number }): Promise<Site[]> {
  const raw = await pythonSites({ root, file, start, end });
  const starts = lineStarts(text);
  const off = (line: number, col: number) => (starts[line - 1] ?? text.length) + col;
  const rangeOf = (p: { line: number; col: number; endLine: number; endCol: number }): Range => ({ start: off(p.line, p.col), end: off(p.endLine, p.endCol) });
  const sites: Site[] = [];
  for (const s of raw) {
    const r = rangeOf(s);
    switch (s.kind) {
      case 'op':
        sites.push({ kind: 'operator', op: s.text ?? '', range: r });
        break;
      case 'keyword':
        if (s.text === 'and' || s.text === 'or') sites.push({ kind: 'operator', op: s.text, range: r });
        else if (s.text === 'True' || s.text === 'False') sites.push({ kind: 'boolean', text: s.text, range: r });
        else if (s.text === 'not') {
          // `not x` → `x`: take the space after `not` too; `is not`/`not in` are operators, left alone
          const before = text.slice(Math.max(0, r.start - 3), r.start);
          const after = text.slice(r.end, r.end + 3);
          if (!/is\s$/.test(before) && !/^\s+in\b/.test(after)) {
            const spaces = /^\s*/.exec(text.slice(r.end))?.[0].length ?? 0;
            sites.push({ kind: 'negation', range: { start: r.start, end: r.end + spaces } });
          }
        }
        break;
      case 'number':
        sites.push({ kind: 'number', text: s.text ?? '', range: r });
        break;
      case 'string': {
        sites.push({ kind: 'string', text: s.text ?? '', range: r });
        // a pattern handed to `re.*` is a regular expression too
        const literal = s.text ?? '';
        const parts = unquote(literal);
        if (
          parts &&
          parts.quote.length === 1 &&
          /\bre\.(compile|match|fullmatch|search|sub|subn|split|findall|finditer)\(\s*$/.test(text.slice(Math.max(0, r.start - 40), r.start))
        ) {
          const raw = /^[a-zA-Z]*[rR]/.test(literal);
          sites.push({
            kind: 'regex',
            pattern: { start: r.start + parts.bodyStart, end: r.start + parts.bodyStart + parts.body.length },
            flags: null,
            doubled: !raw,
          });
        }
        break;
      }
      case 'condition':
        sites.push({ kind: 'condition', range: r });
        break;
      case 'return':
        sites.push({ kind: 'return', range: r, literal: PY_LITERAL_RETURN.test(text.slice(r.start, r.end).trim()) });
        break;
      case 'call-args':
        sites.push({ kind: 'call-args', args: (s.args ?? []).map(rangeOf) });
        break;
      case 'operands': {
        // non-commutative arithmetic: operands known, operator between them
        const [left, right] = (s.args ?? []).map(rangeOf);
        if (!left || !right) break;
        const op = text.slice(left.end, right.start).replace(/[()\s]/g, '');
        if (NON_COMMUTATIVE.has(op)) sites.push({ kind: 'operands', op, left, right });
        break;
      }
      case 'compare': {
        const [left, right] = (s.args ?? []).map(rangeOf);
        if (!left || !right) break;
        const between = text.slice(left.end, right.start);
        const op = between.replace(/[()\s]/g, '');
        if (RELATIONAL.has(op)) sites.push({ kind: 'comparison', op, left, right });
        if (EQUALITY_OPS.has(op)) sites.push({ kind: 'equality', op, left, right });
        // membership and identity: `in`/`not in`, `is`/`is not`
        const word = /\b(not\s+in|is\s+not|in|is)\b/.exec(between);
        if (word && /^(in|notin|is|isnot)$/.test(op)) {
          const at = left.end + word.index;
          sites.push({ kind: 'operator', op: word[1].replace(/\s+/, ' '), range: { start: at, end: at + word[0].length } });
        }
        break;
      }
      case 'name':
        if (s.text && s.alternatives?.length) sites.push({ kind: 'identifier', name: s.text, range: r, alternatives: s.alternatives });
        break;
      case 'assigned':
        if (s.text) sites.push({ kind: 'assigned', name: s.text, range: r });
        break;
      case 'attribute':
        if (s.text && s.alternatives?.length) sites.push({ kind: 'member', name: s.text, range: r, alternatives: s.alternatives });
        break;
      case 'callee': {
        const name = s.text ?? '';
        const alternatives = s.builtin ? builtinSiblings('py', name) : (s.alternatives ?? []);
        if (name && alternatives.length) sites.push({ kind: 'callee', name, range: r, alternatives, builtin: !!s.builtin });
        break;
      }
      case 'index':
        sites.push({ kind: 'index', range: r });
        break;
      case 'clauses': {
        const clauses = (s.args ?? []).map(rangeOf);
        if (clauses.length >= 2) sites.push({ kind: 'clauses', op: s.text ?? 'and', range: r, clauses });
        break;
      }
      case 'guardable':
        if (s.receivers?.length) sites.push({ kind: 'guardable', range: r, receivers: s.receivers });
        break;
      case 'statement': {
        const lineStart = starts[s.line - 1] ?? 0;
        const indent = text.slice(lineStart, r.start);
        const lineEnd = s.endLine < starts.length ? starts[s.endLine] : text.length;
        if (!/^[ \t]*$/.test(indent) || !/^[ \t]*(#.*)?\r?\n?$/.test(text.slice(r.end, lineEnd))) break;
        sites.push({ kind: 'statement', range: r, lineStart, lineEnd, indent, removable: !!s.removable, last: !!s.last, scope: s.scope ?? [] });
        break;
      }
      case 'donor': {
        // a guard over two or three lines is re-indented where it goes: keep it relative to its first line
        const lineStart = starts[s.line - 1] ?? 0;
        const base = text.slice(lineStart, r.start);
        if (!/^[ \t]*$/.test(base)) break;
        const body = text
          .slice(r.start, r.end)
          .split('\n')
          .map((l, i) => (i === 0 ? l : l.startsWith(base) ? l.slice(base.length) : l))
          .join('\n');
        sites.push({ kind: 'donor', text: body, range: r, uses: s.uses ?? [] });
        break;
      }
      case 'entry': {
        const lineStart = starts[s.line - 1] ?? 0;
        const indent = text.slice(lineStart, r.start);
        if (!/^[ \t]*$/.test(indent)) break;
        sites.push({ kind: 'entry', insertAt: lineStart, indent, params: s.params ?? [], returns: s.returns ?? [], ...(s.text ? { empty: s.text } : {}) });
        break;
      }
    }
  }
  return sites;
}
