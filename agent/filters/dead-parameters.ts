import ts from 'typescript';

// A plausible fix that stops reading a parameter, or an option of an
// options-like parameter, makes it dead: the tests pass because they never
// exercised it, and every caller that sets it is now silently ignored
// (`options.fast` read as `options.path`, a `windows` option no branch reads).
// For each function the fix touched, the reads before and after are compared
// on the syntax tree (the compiler's parser, no type checker): what was read
// before and is read nowhere in the function after is reported. A read
// swapped for another field while the old one is still read elsewhere in the
// function is left alone: that is how a legitimate wrong-field fix looks. A
// condition whose two branches are the same reads nothing that matters.

export interface DeadParameter {
  file: string;
  /** the function, named by its class or variable (`Matcher.match`, `parse`) */
  fn: string;
  /** `width` (a parameter or a destructured option) or `options.fast` (an option of an options-like parameter) */
  name: string;
  /** another option of the same object the function reads more of after the fix (`options.path`) */
  replacedBy?: string;
  /** one sentence for the filter's finding */
  detail: string;
}

const JS_FILE = /\.(?:[cm]?[jt]sx?)$/;
const OPTIONS_NAME = /^(?:o|opts?|options?|config|cfg|conf|settings|params|flags)$|(?:Options|Opts|Config|Settings|Flags)$/;
const OPTIONS_TYPE = /(?:Options|Opts|Config|Settings|Flags)\b/;

type FunctionNode = ts.SignatureDeclaration & { body?: ts.ConciseBody };

interface Reads {
  /** parameter or destructured-option name → reads in the body */
  names: Map<string, number>;
  /** `param.option` → reads, for options-like parameters */
  options: Map<string, number>;
  /** order of first appearance, parameters first */
  order: string[];
  /** which names are destructured options (their key is the option's own name) */
  destructured: Map<string, string>;
}

function scriptKindOf(file: string): ts.ScriptKind {
  if (/\.tsx$/.test(file)) return ts.ScriptKind.TSX;
  if (/\.[cm]?ts$/.test(file)) return ts.ScriptKind.TS;
  return /\.jsx$/.test(file) ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
}

function parse(file: string, text: string): ts.SourceFile | null {
  if (!JS_FILE.test(file)) return null;
  try {
    return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKindOf(file));
  } catch {
    return null;
  }
}

function nameOf(node: ts.Node): string | undefined {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && node.name) {
    return node.name.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) return node.name?.getText();
  if (ts.isFunctionExpression(node) || ts.isArrowFunction(node)) {
    if (ts.isFunctionExpression(node) && node.name) return node.name.getText();
    const p = node.parent;
    if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
    if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText();
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) return p.left.getText().replace(/^(?:module\.)?exports\.|^this\./, '');
  }
  return undefined;
}

const isFunction = (node: ts.Node): node is FunctionNode => ts.isFunctionLike(node) && 'body' in node && !!(node as FunctionNode).body;

/** Every function with a body, keyed by its name path (anonymous ones by their order within their parent). */
function functionsOf(source: ts.SourceFile): Map<string, FunctionNode> {
  const found = new Map<string, FunctionNode>();
  const visit = (node: ts.Node, prefix: string, anonymous: { n: number }) => {
    let nextPrefix = prefix;
    let nextAnonymous = anonymous;
    if (isFunction(node) || ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const name = nameOf(node) ?? `<anonymous ${anonymous.n++}>`;
      nextPrefix = prefix ? `${prefix}.${name}` : name;
      nextAnonymous = { n: 0 };
      if (isFunction(node) && !found.has(nextPrefix)) found.set(nextPrefix, node);
    }
    ts.forEachChild(node, (child) => visit(child, nextPrefix, nextAnonymous));
  };
  visit(source, '', { n: 0 });
  return found;
}

function bindingNames(name: ts.BindingName, out: string[] = []): string[] {
  if (ts.isIdentifier(name)) out.push(name.text);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
  return out;
}

function optionsLike(param: ts.ParameterDeclaration): boolean {
  if (!ts.isIdentifier(param.name)) return false;
  if (OPTIONS_NAME.test(param.name.text)) return true;
  if (param.type && ts.isTypeReferenceNode(param.type) && OPTIONS_TYPE.test(param.type.typeName.getText())) return true;
  return !!param.initializer && ts.isObjectLiteralExpression(param.initializer);
}

/** Is this identifier a reference (a read), not a declaration, a property name or an assignment's target? */
function isRead(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p)) && p.name === id) return false;
  if (ts.isBindingElement(p) && (p.propertyName === id || p.name === id)) return false;
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p)) && p.name === id) return false;
  if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && p.left === id) return false;
  if (ts.isTypeReferenceNode(p) || ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isLabeledStatement(p)) return false;
  return true;
}

/** The condition of a choice whose two branches are the same: what it reads decides nothing. */
function idleCondition(node: ts.Node): ts.Expression | undefined {
  if (ts.isConditionalExpression(node) && node.whenTrue.getText() === node.whenFalse.getText()) return node.condition;
  if (ts.isIfStatement(node) && node.elseStatement && node.thenStatement.getText() === node.elseStatement.getText()) return node.expression;
  return undefined;
}

/**
 * Reads of `name` in `root`, not counting nested functions whose own
 * parameters shadow it, nor a condition whose branches are the same.
 */
function forEachRead(root: ts.Node, name: string, onRead: (id: ts.Identifier) => void): void {
  const visit = (node: ts.Node) => {
    if (node !== root && isFunction(node) && node.parameters.some((p) => bindingNames(p.name).includes(name))) return;
    if (ts.isIdentifier(node) && node.text === name && isRead(node)) onRead(node);
    const idle = idleCondition(node);
    ts.forEachChild(node, (child) => {
      if (child !== idle) visit(child);
    });
  };
  visit(root);
}

const bump = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

function countReads(fn: FunctionNode): Reads {
  const reads: Reads = { names: new Map(), options: new Map(), order: [], destructured: new Map() };
  const body = fn.body;
  if (!body) return reads;
  const note = (key: string) => {
    if (!reads.order.includes(key)) reads.order.push(key);
  };
  const localReads = (local: string) => {
    let n = 0;
    forEachRead(body, local, () => n++);
    return n;
  };
  for (const param of fn.parameters) {
    if (!ts.isIdentifier(param.name)) {
      // a destructured parameter: each option is read through its own local name
      for (const el of param.name.elements) {
        if (ts.isOmittedExpression(el) || !ts.isIdentifier(el.name)) continue;
        const option = el.propertyName?.getText() ?? el.name.text;
        note(option);
        reads.destructured.set(option, el.name.text);
        bump(reads.names, option, localReads(el.name.text));
      }
      continue;
    }
    const p = param.name.text;
    note(p);
    reads.names.set(p, 0);
    const options = optionsLike(param);
    forEachRead(body, p, (id) => {
      bump(reads.names, p);
      if (!options) return;
      const parent = id.parent;
      let option: string | undefined;
      if (ts.isPropertyAccessExpression(parent) && parent.expression === id) option = parent.name.text;
      else if (ts.isElementAccessExpression(parent) && parent.expression === id && ts.isStringLiteralLike(parent.argumentExpression)) {
        option = parent.argumentExpression.text;
      }
      if (option !== undefined) {
        const use = parent.parent;
        // a method call on the object or an assignment to the option is not reading it
        if (ts.isCallExpression(use) && use.expression === parent) return;
        if (ts.isBinaryExpression(use) && use.operatorToken.kind === ts.SyntaxKind.EqualsToken && use.left === parent) return;
        note(`${p}.${option}`);
        bump(reads.options, `${p}.${option}`);
        return;
      }
      // `const { fast, path: file } = options`: an option is read while its local name is
      if (ts.isVariableDeclaration(parent) && parent.initializer === id && ts.isObjectBindingPattern(parent.name)) {
        for (const el of parent.name.elements) {
          if (!ts.isIdentifier(el.name)) continue;
          const key = `${p}.${el.propertyName?.getText() ?? el.name.text}`;
          note(key);
          bump(reads.options, key, localReads(el.name.text));
        }
      }
    });
  }
  return reads;
}

function describe(fn: string, name: string, file: string, replacedBy?: string): string {
  return replacedBy
    ? `${fn} no longer reads ${name}: it reads ${replacedBy} instead, so a caller's ${name} is silently ignored (${file})`
    : `${fn} no longer reads ${name}, so a caller's ${name} is silently ignored (${file})`;
}

/**
 * The named functions present before and after whose text the fix changed.
 * An anonymous function (a callback) is known only by its order within its
 * parent, which a fix that reorders or rewrites callbacks changes: comparing
 * them would pair different functions, so they are left out.
 */
function touched(before: ts.SourceFile, after: ts.SourceFile): Array<[string, FunctionNode, FunctionNode]> {
  const afterFns = functionsOf(after);
  const out: Array<[string, FunctionNode, FunctionNode]> = [];
  for (const [key, fn] of functionsOf(before)) {
    if (key.includes('<anonymous')) continue;
    const other = afterFns.get(key);
    if (other && other.getText() !== fn.getText()) out.push([key, fn, other]);
  }
  return out;
}

/**
 * Whether the parameter in the place of `name` (the same position) is read
 * after the fix under another name: renamed (`preferred` → `opts`) or
 * destructured (`{ preferred } = {}`) there, what a caller passes still counts.
 */
function readInItsPlace(oldFn: FunctionNode, newFn: FunctionNode, now: Reads, name: string): boolean {
  const index = oldFn.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === name);
  const param = index >= 0 ? newFn.parameters[index] : undefined;
  if (!param) return false;
  if (ts.isIdentifier(param.name)) return param.name.text !== name && (now.names.get(param.name.text) ?? 0) > 0;
  return param.name.elements.some((el) => {
    if (ts.isOmittedExpression(el)) return false;
    const option = el.propertyName?.getText() ?? (ts.isIdentifier(el.name) ? el.name.text : undefined);
    return option !== undefined && (now.names.get(option) ?? 0) > 0;
  });
}

/** What a fix stops reading, function by function (empty for a file that is not JavaScript or TypeScript). */
export function findDeadParameters(file: string, before: string, after: string): DeadParameter[] {
  const a = parse(file, before);
  const b = parse(file, after);
  if (!a || !b) return [];
  const found: DeadParameter[] = [];
  for (const [fn, oldFn, newFn] of touched(a, b)) {
    const was = countReads(oldFn);
    const now = countReads(newFn);
    for (const key of was.order) {
      if (key.includes('.')) {
        if ((was.options.get(key) ?? 0) === 0 || (now.options.get(key) ?? 0) > 0) continue;
        const object = key.slice(0, key.indexOf('.') + 1);
        const replacedBy = [...now.options].find(([k, n]) => k.startsWith(object) && k !== key && n > (was.options.get(k) ?? 0))?.[0];
        found.push({ file, fn, name: key, ...(replacedBy ? { replacedBy } : {}), detail: describe(fn, key, file, replacedBy) });
        continue;
      }
      // a parameter the fix removed from the signature is as dead as one it stopped reading;
      // an options object is named by the options it stopped reading
      const viaOptions = was.order.some((k) => k.startsWith(`${key}.`) && (was.options.get(k) ?? 0) > 0 && (now.options.get(k) ?? 0) === 0);
      if ((was.names.get(key) ?? 0) > 0 && (now.names.get(key) ?? 0) === 0 && !viaOptions && !readInItsPlace(oldFn, newFn, now, key))
        found.push({ file, fn, name: key, detail: describe(fn, key, file) });
    }
  }
  return found;
}

/**
 * The options the named functions read (`options.windows` → `windows`,
 * destructured `{ fast }` → `fast`), in order of appearance: what the fix's
 * evidence checks the tests for.
 */
export function optionsReadBy(file: string, text: string, functions: string[]): string[] {
  const source = parse(file, text);
  if (!source) return [];
  const out: string[] = [];
  for (const [key, fn] of functionsOf(source)) {
    if (!functions.includes(key)) continue;
    const reads = countReads(fn);
    for (const k of reads.order) {
      const option = k.includes('.') ? k.slice(k.indexOf('.') + 1) : reads.destructured.has(k) ? k : undefined;
      const count = k.includes('.') ? reads.options.get(k) : reads.names.get(k);
      if (option && (count ?? 0) > 0 && !out.includes(option)) out.push(option);
    }
  }
  return out;
}

/** The functions (name paths) whose text differs between before and after. */
export function touchedFunctions(file: string, before: string, after: string): string[] {
  const a = parse(file, before);
  const b = parse(file, after);
  return a && b ? touched(a, b).map(([key]) => key) : [];
}
