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

Columns are converted from the UTF-8 byte offsets `ast` reports to character
offsets, because the TypeScript side slices JavaScript strings. `compile`
takes the file's bytes (base64) rather than a path, so it honours a coding
declaration; no mode reads anything from disk (the helper runs in the
sandbox and sees no workspace: the client reads the files); like py_compile it builds the code
object (some errors only show there) but writes no .pyc.
"""

import ast
import base64
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
    return {"sites": found}


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


def handle(request):
    mode = request.get("mode")
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
