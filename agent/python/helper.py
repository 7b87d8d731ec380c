"""flowfix's Python helper: parse and index Python with Python's own `ast`,
`tokenize` and `compile`, never running any of the code it reads.

One long-lived process per busy agent (agent/python/client.ts keeps a small
pool), started with `python3 -I -S` so nothing from the workspace or the
environment is imported. It reads one JSON request per line on stdin and
answers each with one JSON line on stdout: {"ok": result} or {"error": text}.

  {"mode": "index", "sources": [{"file": "pkg/mod.py", "base64": "..."}, ...]}
    -> {"files": {"pkg/mod.py": {"spans": [...], "imports": [...], "calls": [...]}},
        "errors": {"bad.py": "SyntaxError: ..."}}
  {"mode": "sites", "file": "pkg/mod.py", "base64": "...", "start": 10, "end": 20}
    -> {"sites": [...]}  positions are (1-based line, 0-based character column)
  {"mode": "compile", "sources": [{"file": "pkg/mod.py", "base64": "..."}]}
    -> {"errors": [{"file": "pkg/mod.py", "line": 3, "message": "SyntaxError: ..."}]}
  {"mode": "fingerprint", "sources": [{"file": "pkg/mod.py", "base64": "..."}, ...]}
    -> {"hashes": ["<sha1 of the AST>", null, ...]}  null: the source does not parse

Columns are converted from the UTF-8 byte offsets `ast` reports to character
offsets, because the TypeScript side slices JavaScript strings. `compile`
takes the file's bytes (base64) rather than a path, so it honours a coding
declaration; no mode reads anything from disk (the helper runs in the
sandbox and sees no workspace: the client reads the files); like py_compile it builds the code
object (some errors only show there) but writes no .pyc.
"""

import ast
import base64
import builtins
import hashlib
import io
import json
import os
import sys
import tokenize


def char_col(lines, lineno, byte_col):
    if lineno < 1 or lineno > len(lines):
        return byte_col
    raw = lines[lineno - 1].encode("utf-8")
    return len(raw[:byte_col].decode("utf-8", errors="replace"))


class Indexer(ast.NodeVisitor):
    def __init__(self):
        self.spans = []
        self.imports = []
        self.calls = []
        # (name, "class" | "function") of the enclosing definitions
        self.stack = []

    def _qual(self, name):
        return ".".join([n for n, _ in self.stack] + [name])

    def _add_span(self, node, kind):
        # Decorators belong to the definition: an edit there is an edit of it.
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        self.spans.append({
            "symbol": self._qual(node.name), "name": node.name, "kind": kind,
            "startLine": start, "endLine": getattr(node, "end_lineno", node.lineno),
        })

    def visit_ClassDef(self, node):
        self._add_span(node, "class")
        self.stack.append((node.name, "class"))
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node):
        in_class = bool(self.stack) and self.stack[-1][1] == "class"
        self._add_span(node, "method" if in_class else "function")
        self.stack.append((node.name, "function"))
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node):
        for alias in node.names:
            self.imports.append({"module": alias.name, "level": 0, "names": [], "line": node.lineno})

    def visit_ImportFrom(self, node):
        self.imports.append({
            "module": node.module or "", "level": node.level or 0,
            "names": [a.name for a in node.names], "line": node.lineno,
        })

    def visit_Call(self, node):
        name = None
        if isinstance(node.func, ast.Name):
            name = node.func.id
        elif isinstance(node.func, ast.Attribute):
            name = node.func.attr
        if name:
            enclosing = ".".join(n for n, _ in self.stack) or None
            self.calls.append({"from": enclosing, "name": name, "line": node.lineno})
        self.generic_visit(node)


def source_text(source):
    return base64.b64decode(source["base64"]).decode("utf-8", errors="replace")


def index_files(sources):
    out, errors = {}, {}
    for source in sources:
        rel = source["file"]
        try:
            text = source_text(source)
            tree = ast.parse(text, filename=rel)
        except (SyntaxError, ValueError, OSError) as exc:
            errors[rel] = "%s: %s" % (type(exc).__name__, exc)
            continue
        indexer = Indexer()
        indexer.visit(tree)
        out[rel] = {"spans": indexer.spans, "imports": indexer.imports, "calls": indexer.calls}
    return {"files": out, "errors": errors}


def in_range(node, start, end):
    line = getattr(node, "lineno", None)
    return line is not None and start <= line <= end


def pos(lines, node):
    return {
        "line": node.lineno, "col": char_col(lines, node.lineno, node.col_offset),
        "endLine": node.end_lineno, "endCol": char_col(lines, node.end_lineno, node.end_col_offset),
    }


# Operators a repair template can replace; brackets and punctuation are not sites.
MUTABLE_OPS = {
    "<", "<=", ">", ">=", "==", "!=", "+", "-", "*", "/", "//", "%", "**",
    "+=", "-=", "*=", "/=", "//=", "&", "|", "^", "<<", ">>",
}


def sites(source, start, end):
    """Mutation sites inside lines start..end: tokens from tokenize, structure from ast."""
    rel = source["file"]
    text = source_text(source)
    lines = text.splitlines(True)
    found = []
    # Tokens: operators, keywords used as operators, literals. tokenize skips
    # comments and string contents, which a regex over the text would not.
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            (sl, sc), (el, ec) = tok.start, tok.end
            if sl < start or sl > end:
                continue
            if tok.type == tokenize.OP and tok.string in MUTABLE_OPS:
                found.append({"kind": "op", "text": tok.string, "line": sl, "col": sc, "endLine": el, "endCol": ec})
            elif tok.type == tokenize.NAME and tok.string in ("and", "or", "not", "True", "False", "None", "is", "in"):
                found.append({"kind": "keyword", "text": tok.string, "line": sl, "col": sc, "endLine": el, "endCol": ec})
            elif tok.type == tokenize.NUMBER:
                found.append({"kind": "number", "text": tok.string, "line": sl, "col": sc, "endLine": el, "endCol": ec})
            elif tok.type == tokenize.STRING:
                found.append({"kind": "string", "text": tok.string, "line": sl, "col": sc, "endLine": el, "endCol": ec})
    except (tokenize.TokenError, IndentationError):
        pass
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {"sites": found}
    for node in ast.walk(tree):
        if not in_range(node, start, end):
            continue
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            found.append(dict(kind="condition", **pos(lines, node.test)))
        elif isinstance(node, ast.Return) and node.value is not None:
            found.append(dict(kind="return", **pos(lines, node.value)))
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            args = [pos(lines, a) for a in node.args if not isinstance(a, ast.Starred)]
            if len(args) == len(node.args):
                found.append(dict(kind="call-args", args=args, **pos(lines, node)))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)):
            found.append(dict(kind="operands", args=[pos(lines, node.left), pos(lines, node.right)], **pos(lines, node)))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            found.append(dict(kind="compare", args=[pos(lines, node.left), pos(lines, node.comparators[0])], **pos(lines, node)))
    found.extend(structural_sites(tree, text, lines, start, end))
    return {"sites": found}


# ── the wider search's sites (agent/policies/offline/sites.ts lists the kinds) ──

# Built-in functions and methods that are each other's usual slip; the same
# groups as agent/policies/offline/siblings.ts, which the TypeScript side uses
# to name them (here only: is this call's name one of them).
SIBLING_NAMES = {
    "min", "max", "floor", "ceil", "trunc", "round", "int", "any", "all", "startswith", "endswith",
    "find", "rfind", "index", "rindex", "upper", "lower", "strip", "lstrip", "rstrip", "ljust", "rjust",
    "split", "rsplit", "partition", "rpartition", "keys", "values", "items", "append", "extend", "sorted",
    "reversed", "isdigit", "isalpha", "isalnum",
}
BUILTIN_NAMES = set(dir(builtins))
MAX_ALTERNATIVES = 6
COLLECTION_TYPES = ("list", "List", "dict", "Dict", "set", "Set", "tuple", "Tuple", "Sequence", "Iterable", "Mapping", "frozenset")


def _parents(tree):
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _target_names(target, out):
    if isinstance(target, ast.Name):
        out.append(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _target_names(elt, out)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, out)


def _bound_before(body_owner, line):
    """Names a function (or the module) binds by assignment, loops, with and except before `line`, in order."""
    out = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if getattr(child, "lineno", 0) >= line and isinstance(child, ast.stmt):
                continue
            if isinstance(child, (ast.Assign,)):
                for t in child.targets:
                    _target_names(t, out)
            elif isinstance(child, (ast.AugAssign, ast.AnnAssign)):
                _target_names(child.target, out)
            elif isinstance(child, (ast.For, ast.AsyncFor)):
                _target_names(child.target, out)
            elif isinstance(child, ast.withitem) and child.optional_vars is not None:
                _target_names(child.optional_vars, out)
            elif isinstance(child, ast.ExceptHandler) and child.name:
                out.append(child.name)
            elif isinstance(child, ast.NamedExpr):
                _target_names(child.target, out)
            if not isinstance(child, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
                visit(child)

    visit(body_owner)
    return out


def _params(fn):
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return names


def _enclosing(node, parents, kinds):
    n = parents.get(node)
    while n is not None and not isinstance(n, kinds):
        n = parents.get(n)
    return n


def _module_names(tree):
    defs, values = set(), []
    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.add(st.name)
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            for alias in st.names:
                defs.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(st, ast.Assign):
            for t in st.targets:
                _target_names(t, values)
        elif isinstance(st, (ast.AnnAssign, ast.AugAssign)):
            _target_names(st.target, values)
    return defs, values


def _variables_at(node, parents, module_values):
    """Variables visible at node, innermost function first: [(name, depth)]; module level has depth 99."""
    out, seen = [], set()
    depth = 0
    fn = _enclosing(node, parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    line = getattr(node, "lineno", 0)
    while fn is not None:
        names = (_params(fn) if not isinstance(fn, ast.Lambda) else [x.arg for x in fn.args.args])
        if not isinstance(fn, ast.Lambda):
            names = names + _bound_before(fn, line)
        for name in names:
            if name not in seen and name not in ("self", "cls"):
                seen.add(name)
                out.append((name, depth))
        depth += 1
        fn = _enclosing(fn, parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    for name in module_values:
        if name not in seen:
            seen.add(name)
            out.append((name, 99))
    return out


def _free_names(node):
    used, bound = [], set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Store):
                bound.add(n.id)
            elif n.id not in used:
                used.append(n.id)
    return [u for u in used if u not in bound and u not in BUILTIN_NAMES]


def _receivers(expr):
    out = []
    for n in ast.walk(expr):
        if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.value, ast.Name) and n.value.id not in out:
            out.append(n.value.id)
    return out


def _type_class(fn, param):
    ann = None
    for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
        if a.arg == param and a.annotation is not None:
            ann = ast.unparse(a.annotation)
    if ann:
        if ann in ("int", "float", "Decimal"):
            return "number"
        if ann == "str":
            return "string"
        if ann.startswith(COLLECTION_TYPES):
            return "collection"
    kind = "unknown"
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == param:
            return "collection"
        if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Name) and n.iter.id == param:
            return "collection"
        if isinstance(n, ast.BinOp) and any(isinstance(x, ast.Name) and x.id == param for x in (n.left, n.right)) and isinstance(n.op, (ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)):
            kind = "number"
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            sides = (n.left, n.comparators[0])
            if any(isinstance(x, ast.Name) and x.id == param for x in sides) and any(isinstance(x, ast.Constant) and isinstance(x.value, (int, float)) for x in sides):
                kind = "number"
    return kind


def _simple_return(value, params):
    if isinstance(value, ast.Constant) and not isinstance(value.value, bytes):
        return True
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and isinstance(value.operand, ast.Constant):
        return True
    if isinstance(value, (ast.List, ast.Tuple, ast.Dict, ast.Set)) and not getattr(value, "elts", getattr(value, "keys", [])):
        return True
    return isinstance(value, ast.Name) and value.id in params


def _empty_of(values):
    """The empty value of what a function returns, judged by its return expressions: \"\", [], {} or 0."""
    def is_str(v):
        if isinstance(v, ast.Constant):
            return isinstance(v.value, str)
        if isinstance(v, ast.JoinedStr):
            return True
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and isinstance(v.func.value, ast.Constant) and isinstance(v.func.value.value, str):
            return True
        return isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add) and (is_str(v.left) or is_str(v.right))
    for v in values:
        if is_str(v):
            return '""'
    for v in values:
        if isinstance(v, (ast.List, ast.ListComp)) or (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("sorted", "list")):
            return "[]"
        if isinstance(v, (ast.Dict, ast.DictComp)):
            return "{}"
    return None


def _own_returns(fn):
    out = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Return):
                out.append(child)
            visit(child)

    visit(fn)
    return out


def _is_docstring(st):
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str)


def structural_sites(tree, text, lines, start, end):
    parents = _parents(tree)
    module_defs, module_values = _module_names(tree)
    functions = {}  # module-level function name -> arity
    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[st.name] = len(st.args.args)
    methods = {}  # class node -> {name: arity without self}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            methods[node] = {m.name: max(0, len(m.args.args) - 1) for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    # fields seen per receiver (not called), and names called as methods
    fields, called = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            called.add(node.func.attr)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr not in called:
            fields.setdefault(ast.unparse(node.value), []).append(node.attr)
    found = []

    def seg(node):
        return pos(lines, node)

    def name_pos(node, name):
        # the trailing name of an Attribute: it ends the node
        p = seg(node)
        return {"line": p["endLine"], "col": p["endCol"] - len(name), "endLine": p["endLine"], "endCol": p["endCol"]}

    # donors: small statements anywhere in the file
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(parents.get(node), ast.Module) and not _is_docstring(node):
            simple = isinstance(node, (ast.Expr, ast.AugAssign)) or (isinstance(node, ast.Assign) and all(isinstance(t, (ast.Attribute, ast.Subscript)) for t in node.targets))
            guard = isinstance(node, ast.If) and not node.orelse and len(node.body) == 1 and isinstance(node.body[0], (ast.Return, ast.Continue, ast.Break, ast.Raise, ast.Expr, ast.AugAssign))
            if (simple and node.lineno == node.end_lineno) or (guard and node.end_lineno - node.lineno <= 2):
                found.append(dict(kind="donor", uses=_free_names(node), **seg(node)))

    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if line is None or line < start or line > end:
            continue
        parent = parents.get(node)
        # a variable read or assigned
        if isinstance(node, ast.Name) and not (isinstance(parent, ast.Call) and parent.func is node):
            variables = _variables_at(node, parents, module_values)
            me = [d for n, d in variables if n == node.id]
            if me and node.id not in module_defs:
                alts = [n for n, d in variables if n != node.id and (d == 99) == (me[0] == 99)][:MAX_ALTERNATIVES]
                if alts:
                    found.append(dict(kind="name", text=node.id, alternatives=alts, **seg(node)))
        # `v = e` on one line, e a value that can be compared (no literal, collection or comprehension): a running extremum or a clamp wraps e
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, (ast.BinOp, ast.Name, ast.Call, ast.Attribute, ast.Subscript, ast.UnaryOp, ast.IfExp)) and node.lineno == node.end_lineno:
            found.append(dict(kind="assigned", text=node.targets[0].id, **seg(node.value)))
        # a field
        if isinstance(node, ast.Attribute) and not (isinstance(parent, ast.Call) and parent.func is node):
            receiver = ast.unparse(node.value)
            alts = []
            for a in fields.get(receiver, []):
                if a != node.attr and a not in alts and a not in called:
                    alts.append(a)
            if alts:
                found.append(dict(kind="attribute", text=node.attr, alternatives=alts[:MAX_ALTERNATIVES], **name_pos(node, node.attr)))
        # a callee
        if isinstance(node, ast.Call):
            func = node.func
            arity = len(node.args) + len(node.keywords)
            if isinstance(func, ast.Name):
                own = []
                if func.id in functions:
                    own = [f for f, n in functions.items() if f != func.id and n == functions[func.id]]
                if own:
                    found.append(dict(kind="callee", text=func.id, alternatives=own[:MAX_ALTERNATIVES], **seg(func)))
                elif func.id in SIBLING_NAMES:
                    found.append(dict(kind="callee", text=func.id, builtin=True, **seg(func)))
                if func.id == "range":
                    for a in node.args:
                        if not isinstance(a, ast.Constant):
                            found.append(dict(kind="index", **seg(a)))
            elif isinstance(func, ast.Attribute):
                own = []
                if isinstance(func.value, ast.Name) and func.value.id == "self":
                    cls = _enclosing(node, parents, (ast.ClassDef,))
                    ms = methods.get(cls, {})
                    if func.attr in ms:
                        own = [m for m, n in ms.items() if m != func.attr and n == ms[func.attr] and not m.startswith("__")]
                if own:
                    found.append(dict(kind="callee", text=func.attr, alternatives=own[:MAX_ALTERNATIVES], **name_pos(func, func.attr)))
                elif func.attr in SIBLING_NAMES:
                    found.append(dict(kind="callee", text=func.attr, builtin=True, **name_pos(func, func.attr)))
        # an index or a slice bound
        if isinstance(node, ast.Subscript):
            sl = node.slice
            if isinstance(sl, ast.Slice):
                for b in (sl.lower, sl.upper):
                    if b is not None and not isinstance(b, ast.Constant) and not (isinstance(b, ast.UnaryOp) and isinstance(b.operand, ast.Constant)):
                        found.append(dict(kind="index", **seg(b)))
            elif not isinstance(sl, (ast.Constant, ast.Tuple)) and not (isinstance(sl, ast.UnaryOp) and isinstance(sl.operand, ast.Constant)):
                found.append(dict(kind="index", **seg(sl)))
        # conditions: clauses and guards (comprehension filters count as conditions)
        tests = []
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            tests.append(node.test)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for gen in node.generators:
                for cond in gen.ifs:
                    tests.append(cond)
                    found.append(dict(kind="condition", **seg(cond)))
        for t in tests:
            if isinstance(t, ast.BoolOp) and len(t.values) >= 2:
                found.append(dict(kind="clauses", text="and" if isinstance(t.op, ast.And) else "or", args=[seg(v) for v in t.values], **seg(t)))
            rs = _receivers(t)
            if rs:
                found.append(dict(kind="guardable", receivers=rs, **seg(t)))
        # statements
        if isinstance(node, ast.stmt) and not isinstance(parent, ast.Module) and not _is_docstring(node):
            body = None
            for field in ("body", "orelse", "finalbody"):
                stmts = getattr(parent, field, None)
                if isinstance(stmts, list) and any(x is node for x in stmts):
                    body = stmts
            if body is None and isinstance(parent, ast.ExceptHandler):
                body = parent.body
            if body is not None:
                fn = parent if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
                is_last = body[-1] is node
                jump = isinstance(node, (ast.Return, ast.Raise, ast.Continue, ast.Break))
                removable = (
                    isinstance(node, (ast.Expr, ast.AugAssign, ast.Continue, ast.Break))
                    or (isinstance(node, ast.Assign) and all(isinstance(t, (ast.Attribute, ast.Subscript)) for t in node.targets))
                    or (isinstance(node, ast.If) and not node.orelse)
                    or (isinstance(node, ast.Return) and not (is_last and fn is not None))
                ) and len(body) > 1
                variables = [n for n, _ in _variables_at(node, parents, module_values)]
                scope = variables + sorted(module_defs) + (["self"] if _enclosing(node, parents, (ast.ClassDef,)) is not None else [])
                found.append(dict(kind="statement", removable=removable, last=is_last and not jump, scope=scope, **seg(node)))
        # a function's entry
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            body = node.body[1:] if _is_docstring(node.body[0]) and len(node.body) > 1 else node.body
            first = body[0]
            if not _is_docstring(first) and first.lineno > node.lineno:
                params = [p for p in _params(node) if p not in ("self", "cls")]
                returns = []
                for r in _own_returns(node):
                    if r.value is not None and _simple_return(r.value, params):
                        t = ast.get_source_segment(text, r.value)
                        if t and t not in returns:
                            returns.append(t)
                entry = dict(kind="entry", params=[{"name": p, "type": _type_class(node, p)} for p in params], returns=returns, **seg(first))
                empty = _empty_of([r.value for r in _own_returns(node) if r.value is not None])
                if empty is not None:
                    entry["text"] = empty
                found.append(entry)
    return found


def compile_sources(sources):
    errors = []
    for item in sources:
        rel = item["file"]
        try:
            compile(base64.b64decode(item["base64"]), rel, "exec", dont_inherit=True)
        except SyntaxError as exc:  # IndentationError and TabError included
            errors.append({"file": rel, "line": exc.lineno, "message": "%s: %s" % (type(exc).__name__, exc.msg)})
        except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
            # source with NUL bytes, nesting too deep for the compiler
            errors.append({"file": rel, "line": None, "message": "%s: %s" % (type(exc).__name__, exc)})
    return {"errors": errors}


def fingerprints(sources):
    """One hash per source of its AST (formatting and comments do not count); None when it does not parse."""
    out = []
    for item in sources:
        try:
            tree = ast.parse(base64.b64decode(item["base64"]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            out.append(None)
            continue
        out.append(hashlib.sha1(ast.dump(tree).encode("utf-8")).hexdigest())
    return {"hashes": out}


def handle(request):
    mode = request.get("mode")
    if mode == "fingerprint":
        return fingerprints(request["sources"])
    if mode == "index":
        return index_files(request["sources"])
    if mode == "sites":
        return sites(request, int(request["start"]), int(request["end"]))
    if mode == "compile":
        return compile_sources(request["sources"])
    raise ValueError("unknown mode: %r" % (mode,))


def main():
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = {"ok": handle(json.loads(line))}
        except Exception as exc:  # one bad request must not end the helper
            reply = {"error": "%s: %s" % (type(exc).__name__, exc)}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
