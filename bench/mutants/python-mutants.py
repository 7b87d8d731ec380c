# The Python twin of mutate.ts's operators, over Python's own ast: reads a
# source on stdin, writes JSON {mutants, spans} on stdout. Offsets are
# character offsets into the text (ast's columns are UTF-8 bytes), so a
# mutant applies as the same string splice as a TypeScript one. The spans
# name functions, methods and classes the way the product's Python index
# does (agent/python/helper.py: dotted names of the enclosing definitions,
# decorators included), which is what the localisation is scored against.
import ast
import json
import re
import sys

text = sys.stdin.read()
lines = text.split("\n")
starts = [0]
for line in lines[:-1]:
    starts.append(starts[-1] + len(line) + 1)


def off(lineno, byte_col):
    raw = lines[lineno - 1].encode("utf-8")
    return starts[lineno - 1] + len(raw[:byte_col].decode("utf-8", errors="replace"))


def start_of(node):
    return off(node.lineno, node.col_offset)


def end_of(node):
    return off(node.end_lineno, node.end_col_offset)


def line_of(offset):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


out = []


def add(operator, start, end, replacement):
    original = text[start:end]
    if original != replacement:
        out.append({
            "id": "%s@%d-%d:%s" % (operator, start, end, replacement), "operator": operator,
            "start": start, "end": end, "original": original, "replacement": replacement, "line": line_of(start),
        })


def gap_token(a, b, pattern):
    """The operator token between two operands: the text between them is parentheses, blanks and comments only."""
    seg = text[a:b]
    masked = re.sub(r"#[^\n]*", lambda m: " " * len(m.group(0)), seg)
    m = re.search(pattern, masked)
    return (a + m.start(), a + m.end(), m.group(0)) if m else None


COMPARE = {
    "<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="], ">=": [">", "<"],
    "==": ["!="], "!=": ["=="], "is": ["is not"], "is not": ["is"], "in": ["not in"], "not in": ["in"],
}
ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "//": "*", "%": "*"}
AUG = {"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}

tree = ast.parse(text)
parents = {}
for node in ast.walk(tree):
    for child in ast.iter_child_nodes(node):
        parents[child] = node

# attribute names read off each receiver ("self" -> {total, items}): a wrong property is another one
props = {}
for node in ast.walk(tree):
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        props.setdefault(ast.unparse(node.value), set()).add(node.attr)

for node in ast.walk(tree):
    if isinstance(node, ast.Compare):
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            tok = gap_token(end_of(left), start_of(right), r"not\s+in\b|is\s+not\b|<=|>=|==|!=|<|>|\bin\b|\bis\b")
            if tok:
                key = re.sub(r"\s+", " ", tok[2])
                for rep in COMPARE.get(key, []):
                    add("EqualityOperator", tok[0], tok[1], rep)
            left = right
    elif isinstance(node, ast.BoolOp):
        for a, b in zip(node.values, node.values[1:]):
            tok = gap_token(end_of(a), start_of(b), r"\b(and|or)\b")
            if tok:
                add("LogicalOperator", tok[0], tok[1], "or" if tok[2] == "and" else "and")
    elif isinstance(node, ast.BinOp):
        tok = gap_token(end_of(node.left), start_of(node.right), r"//|\*\*|[+\-*/%@]")
        if tok and tok[2] in ARITH:
            add("ArithmeticOperator", tok[0], tok[1], ARITH[tok[2]])
    elif isinstance(node, ast.AugAssign):
        tok = gap_token(end_of(node.target), start_of(node.value), r"\+=|-=|\*=|/=")
        if tok:
            add("AssignmentOperator", tok[0], tok[1], AUG[tok[2]])
    elif isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            add("BooleanLiteral", start_of(node), start_of(node.operand), "")
        elif isinstance(node.op, ast.USub):
            add("UnaryOperator", start_of(node), start_of(node.operand), "+")
    elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
        for rep in ("True", "False"):
            add("ConditionalExpression", start_of(node.test), end_of(node.test), rep)
    elif isinstance(node, ast.Constant):
        if type(node.value) is bool:
            add("BooleanLiteral", start_of(node), end_of(node), "False" if node.value else "True")
        elif type(node.value) is int and re.fullmatch(r"\d+", text[start_of(node):end_of(node)]):
            add("OffByOneConstant", start_of(node), end_of(node), str(node.value + 1))
            if node.value > 0:
                add("OffByOneConstant", start_of(node), end_of(node), str(node.value - 1))
    elif isinstance(node, ast.Call):
        args = node.args
        if len(args) >= 2 and not any(isinstance(a, ast.Starred) for a in args[:2]):
            a, b = text[start_of(args[0]):end_of(args[0])], text[start_of(args[1]):end_of(args[1])]
            if a != b:
                add("SwappedArguments", start_of(args[0]), end_of(args[1]), "%s, %s" % (b, a))
    elif isinstance(node, ast.Return) and node.value is not None:
        # `return x` -> `x`: the function goes on and returns whatever comes after (often None)
        add("RemovedReturn", start_of(node), start_of(node.value), "")
    elif isinstance(node, ast.Await) and not isinstance(parents.get(node), ast.Expr):
        add("RemovedAwait", start_of(node), start_of(node.value), "")
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        parent = parents.get(node)
        if not (isinstance(parent, ast.Call) and parent.func is node):
            others = sorted(props.get(ast.unparse(node.value), set()) - {node.attr})
            if others:
                # the name is the last thing in the node's text
                end = end_of(node)
                add("WrongProperty", end - len(node.attr), end, others[0])

spans = []
stack = []


def walk(node):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            in_class = bool(stack) and stack[-1][1] == "class"
            kind = "class" if isinstance(child, ast.ClassDef) else ("method" if in_class else "function")
            start = min([child.lineno] + [d.lineno for d in child.decorator_list])
            spans.append({"symbol": ".".join([n for n, _ in stack] + [child.name]), "kind": kind, "startLine": start, "endLine": child.end_lineno})
            stack.append((child.name, "class" if kind == "class" else "function"))
            walk(child)
            stack.pop()
        else:
            walk(child)


walk(tree)
json.dump({"mutants": out, "spans": spans}, sys.stdout)
