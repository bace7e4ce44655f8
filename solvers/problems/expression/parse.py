"""Parse and validate the text of an objective into the tree of nodes.py.

Python's ``ast.parse`` reads the text (it builds a syntax tree and runs nothing); every node is
checked against a whitelist and translated, constants are folded in float arithmetic (so ``9**9**9``
is an overflow message, never a huge integer), and any fault raises :class:`ExpressionError` with the
1-based column. Nothing is ever evaluated, compiled to code or executed.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from ...errors import ConfigError
from .nodes import (CONSTANTS, FUNCTIONS, REDUCTIONS, Binary, Call, Compare, Coord, Dim, Index, Node,
                    Num, Reduce, Term, Unary, Where, children, walk)

MAX_LENGTH = 2000
MAX_DEPTH = 64
MAX_COORDINATE = 100_000  # x123456 is refused while parsing; the dimension check comes later
_COORD_NAME = re.compile(r"x([0-9]+)\Z")
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.Mod: "%"}
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
# What a user most likely tried, for the message of a refused node type.
_REFUSED = {
    ast.Attribute: "attribute access ('.')", ast.Lambda: "lambda", ast.ListComp: "comprehensions",
    ast.SetComp: "comprehensions", ast.DictComp: "comprehensions", ast.GeneratorExp: "comprehensions",
    ast.JoinedStr: "format strings", ast.List: "lists", ast.Tuple: "tuples", ast.Dict: "dicts",
    ast.Set: "sets", ast.BoolOp: "'and'/'or' (use where(cond, a, b))", ast.IfExp: "'if ... else' "
    "(use where(cond, a, b))", ast.NamedExpr: "assignment (':=')", ast.Starred: "'*' unpacking",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield", ast.Slice: "slices",
}
if hasattr(ast, "FormattedValue"):
    _REFUSED[ast.FormattedValue] = "format strings"


class ExpressionError(ConfigError):
    """A refused expression: ``column`` (1-based, 0 for the whole text) and a one-line ``reason``."""

    def __init__(self, reason: str, column: int = 0):
        self.reason = reason
        self.column = int(column)
        super().__init__(f"expression, column {self.column}: {reason}" if self.column
                         else f"expression: {reason}")


@dataclass(frozen=True)
class Expression:
    """A parsed, validated objective: its text, its tree, and the least dimension it needs."""

    text: str
    tree: Node
    min_dim: int

    def check_dim(self, dim: int) -> None:
        """ExpressionError (at the column of the offending xk) unless every xk exists in dimension dim."""
        if dim < 1:
            raise ExpressionError(f"the dimension must be >= 1, got {dim}")
        for node in walk(self.tree):
            if isinstance(node, Coord) and node.index >= dim:
                raise ExpressionError(f"x{node.index + 1} is out of range for dimension {dim} "
                                      f"(coordinates are x1..x{dim})", node.col)


def _prescan(text: str) -> str:
    """Refuse by character before ast sees the text: length, NUL and control bytes, non-ASCII
    (look-alikes such as Cyrillic 'х' or fullwidth 'ｘ', which Python would normalise into names),
    and parenthesis depth. Newlines and tabs become spaces so that columns stay character positions."""
    if not isinstance(text, str):
        raise ExpressionError(f"the expression must be text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the text is {len(text):,} characters long; at most {MAX_LENGTH:,} "
                              f"are allowed (use sum(...) over x[i] for many terms)")
    depth = 0
    signs = 0  # a run of unary signs nests too: refuse it before ast builds a 1,000-deep tree
    for k, ch in enumerate(text):
        if ch in "+-~":
            signs += 1
            if signs > MAX_DEPTH:
                raise ExpressionError(f"more than {MAX_DEPTH} signs in a row", k + 1)
        elif ch not in " \t\r\n":
            signs = 0
        if ch == "\0":
            raise ExpressionError("NUL byte in the text", k + 1)
        if ord(ch) > 126:
            raise ExpressionError(f"character {ch!r} (U+{ord(ch):04X}) is not allowed: use plain "
                                  f"ASCII letters, digits and operators", k + 1)
        if ord(ch) < 32 and ch not in "\t\n\r":
            raise ExpressionError(f"control character U+{ord(ch):04X} is not allowed", k + 1)
        if ch in "'\"":
            raise ExpressionError("strings are not allowed", k + 1)
        if ch in "([":
            depth += 1
            if depth > MAX_DEPTH:
                raise ExpressionError(f"brackets nested deeper than {MAX_DEPTH}", k + 1)
        elif ch in ")]":
            depth -= 1
    text = text.replace("\t", " ").replace("\r", " ").replace("\n", " ")
    if not text.strip():
        raise ExpressionError("the expression is empty")
    return text


def parse(text: str) -> Expression:
    """Parse `text` into a validated :class:`Expression`, or raise :class:`ExpressionError`."""
    clean = _prescan(text)
    # eval mode refuses leading blanks ("unexpected indent"): a pasted " x1**2" or an indented
    # triple-quoted string. Parse from the first character and add the blanks back to every column.
    body = clean.lstrip()
    lead = len(clean) - len(body)
    try:
        root = ast.parse(body, mode="eval")
    except SyntaxError as exc:
        # Python reports an unexpected end of text at offset 0: point just past the text instead
        column = exc.offset + lead if exc.offset else len(clean.rstrip()) + 1
        reason = (exc.msg or "invalid syntax").replace("(<unknown>, line 1)", "").strip()
        if reason == "invalid syntax" and not exc.offset:
            reason = "the expression ends too early"
        raise ExpressionError(f"syntax error: {reason}", column) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ExpressionError(f"the expression is too complex to read ({type(exc).__name__})") from None
    tree = _Translator(lead).node(root.body, depth=1, reduction=None)
    coords = [n.index for n in walk(tree) if isinstance(n, Coord)]
    return Expression(text=text.strip(), tree=tree, min_dim=max(coords, default=0) + 1)


class _Translator:
    """ast -> nodes, with whitelist checks and constant folding; ``shift`` is added to every column
    (the blanks parse() took off the front of the text)."""

    def __init__(self, shift: int = 0):
        self.shift = shift

    def node(self, a: ast.AST, depth: int, reduction: list | None) -> Node:
        col = getattr(a, "col_offset", -1) + 1 + self.shift
        if depth > MAX_DEPTH:
            raise ExpressionError(f"the expression is nested deeper than {MAX_DEPTH} levels", col)
        d = depth + 1
        if isinstance(a, ast.Constant):
            return self.constant(a, col)
        if isinstance(a, ast.Name):
            return self.name(a, col, reduction)
        if isinstance(a, ast.UnaryOp):
            if isinstance(a.op, ast.UAdd):
                return self.node(a.operand, d, reduction)
            if not isinstance(a.op, ast.USub):
                raise ExpressionError(f"operator {_op_text(a.op)} is not allowed", col)
            return _fold(Unary("-", self.node(a.operand, d, reduction), col))
        if isinstance(a, ast.BinOp):
            op = _BINARY.get(type(a.op))
            if op is None:
                raise ExpressionError(f"operator {_op_text(a.op)} is not allowed "
                                      f"(use + - * / ** %)", col)
            left = self.node(a.left, d, reduction)
            right = self.node(a.right, d, reduction)
            return _fold(Binary(op, left, right, col), op_col=_op_col(a) + self.shift)
        if isinstance(a, ast.Compare):
            if len(a.ops) != 1:
                raise ExpressionError("chained comparisons are not allowed: compare two values, "
                                      "e.g. where(x1 < x2, a, b)", col)
            op = _COMPARE.get(type(a.ops[0]))
            if op is None:
                raise ExpressionError(f"comparison {_op_text(a.ops[0])} is not allowed", col)
            return _fold(Compare(op, self.node(a.left, d, reduction),
                                 self.node(a.comparators[0], d, reduction), col))
        if isinstance(a, ast.Call):
            return self.call(a, col, d, reduction)
        if isinstance(a, ast.Subscript):
            return self.subscript(a, col, reduction)
        what = _REFUSED.get(type(a), f"'{type(a).__name__}'")
        raise ExpressionError(f"{what} not allowed in an expression", col)

    def constant(self, a: ast.Constant, col: int) -> Node:
        value = a.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            kind = "strings" if isinstance(value, (str, bytes)) else f"{type(value).__name__} values"
            raise ExpressionError(f"{kind} are not allowed (numbers only)", col)
        try:
            number = float(value)
        except OverflowError:
            raise ExpressionError("number too large", col) from None
        if not math.isfinite(number):
            raise ExpressionError("number too large", col)
        return Num(number, col)

    def name(self, a: ast.Name, col: int, reduction: list | None) -> Node:
        name = a.id
        if name in CONSTANTS:
            return Num(CONSTANTS[name], col)
        if name == "n":
            return Dim(col)
        if name == "i":
            if reduction is None:
                raise ExpressionError("'i' is the index of a reduction: use it inside sum(...), "
                                      "prod(...), max(...), min(...) or mean(...)", col)
            return Index(col)
        match = _COORD_NAME.match(name)
        if match:
            return self.coordinate(int(match.group(1)) if len(match.group(1)) < 7 else 10**7, col,
                                   name)
        if name == "x":
            raise ExpressionError("'x' is the whole vector: write x1..xn, x[k] with a number k, or "
                                  "x[i] inside sum(...)", col)
        if name in FUNCTIONS or name in REDUCTIONS or name == "where":
            raise ExpressionError(f"'{name}' is a function: call it, e.g. {name}(...)", col)
        raise ExpressionError(f"unknown name '{name}' (allowed: x1..xn, x[i], i, n, pi, e and the "
                              f"listed functions)", col)

    @staticmethod
    def coordinate(k: int, col: int, written: str) -> Node:
        if k < 1:
            raise ExpressionError(f"{written}: coordinates count from 1 (x1 is the first)", col)
        if k > MAX_COORDINATE:
            raise ExpressionError(f"{written}: coordinate index too large", col)
        return Coord(k - 1, col)

    def subscript(self, a: ast.Subscript, col: int, reduction: list | None) -> Node:
        if not (isinstance(a.value, ast.Name) and a.value.id == "x"):
            raise ExpressionError("only x can be indexed (x[i] or x[k] with a number k)", col)
        index = a.slice
        if isinstance(index, ast.Index):  # pragma: no cover - Python < 3.9
            index = index.value
        if isinstance(index, ast.Constant) and isinstance(index.value, int) \
                and not isinstance(index.value, bool):
            return self.coordinate(index.value, col, f"x[{index.value}]")
        offset = _index_offset(index)
        if offset is None:
            raise ExpressionError("an index must be i, i+k, i-k or a whole number k", col)
        if reduction is None:
            raise ExpressionError("x[i] needs a reduction around it: sum(...), prod(...), max(...), "
                                  "min(...) or mean(...)", col)
        if abs(offset) > MAX_COORDINATE:
            raise ExpressionError("index offset too large", col)
        reduction.append(offset)
        return Term(offset, col)

    def call(self, a: ast.Call, col: int, depth: int, reduction: list | None) -> Node:
        if not isinstance(a.func, ast.Name):
            what = _REFUSED.get(type(a.func), "this call")
            raise ExpressionError(f"{what} not allowed: call a listed function by name", col)
        name = a.func.id
        if a.keywords:
            raise ExpressionError(f"{name}(): keyword arguments are not allowed", col)
        if any(isinstance(arg, ast.Starred) for arg in a.args):
            raise ExpressionError(f"{name}(): '*' unpacking is not allowed", col)
        nargs = len(a.args)
        if name in REDUCTIONS and nargs == 1:
            if reduction is not None:
                raise ExpressionError(f"{name}(...) inside another reduction: reductions cannot be "
                                      f"nested", col)
            offsets: list[int] = []
            body = self.node(a.args[0], depth, offsets)
            lo = max([-k for k in offsets] + [0])
            hi = max(offsets + [0])
            return Reduce(name, body, lo, hi, col)
        if name == "where":
            if nargs != 3:
                raise ExpressionError(f"where(cond, a, b) takes 3 arguments, got {nargs}", col)
            cond, then, other = (self.node(arg, depth, reduction) for arg in a.args)
            return _fold(Where(cond, then, other, col))
        if name not in FUNCTIONS:
            if name in REDUCTIONS:
                raise ExpressionError(f"{name}() takes one argument (a reduction over i) or, for "
                                      f"min/max, two or more", col)
            raise ExpressionError(f"unknown function '{name}' (allowed: "
                                  f"{', '.join(sorted(FUNCTIONS))}, where, sum, prod, mean)", col)
        least, most = FUNCTIONS[name]
        if nargs < least or (most is not None and nargs > most):
            wanted = str(least) if least == most else f"{least} or more"
            raise ExpressionError(f"{name}() takes {wanted} argument{'s' if wanted != '1' else ''}, "
                                  f"got {nargs}", col)
        args = tuple(self.node(arg, depth, reduction) for arg in a.args)
        return _fold(Call(name, args, col))


def _index_offset(index: ast.AST) -> int | None:
    """i -> 0, i+k -> k, i-k -> -k (k a whole-number literal); None for anything else."""
    if isinstance(index, ast.Name) and index.id == "i":
        return 0
    if isinstance(index, ast.BinOp) and isinstance(index.op, (ast.Add, ast.Sub)) \
            and isinstance(index.left, ast.Name) and index.left.id == "i" \
            and isinstance(index.right, ast.Constant) and type(index.right.value) is int:
        return index.right.value if isinstance(index.op, ast.Add) else -index.right.value
    return None


def _op_text(op: ast.AST) -> str:
    symbols = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
               ast.FloorDiv: "//", ast.MatMult: "@", ast.Invert: "~", ast.Not: "not", ast.Is: "is",
               ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
    return f"'{symbols.get(type(op), type(op).__name__)}'"


def _op_col(a: ast.BinOp) -> int:
    # the operator sits between the operands; the right operand's column is close enough and exact
    # for the message "division by zero" that points at the divisor
    return getattr(a.right, "col_offset", a.col_offset) + 1


_FOLD_FUNCTIONS = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
    "exp": math.exp, "log": math.log, "log10": math.log10, "sqrt": math.sqrt, "abs": abs,
    "floor": lambda v: float(math.floor(v)), "ceil": lambda v: float(math.ceil(v)),
    "sign": lambda v: (v > 0) - (v < 0) + 0.0, "hypot": math.hypot, "min": min, "max": max,
}


def _fold(node: Node, op_col: int = 0) -> Node:
    """Replace a node whose operands are all numbers by its value (float arithmetic only), and
    refuse division by a literal zero. Values that overflow or leave the real numbers are refused
    at the node's column: a typed constant must be a finite number."""
    if isinstance(node, Binary) and node.op in ("/", "%") and isinstance(node.right, Num) \
            and node.right.value == 0.0:
        raise ExpressionError("division by zero" if node.op == "/" else "modulo by zero",
                              op_col or node.col)
    operands = children(node) if not isinstance(node, Reduce) else ()
    if not operands or not all(isinstance(c, Num) for c in operands):
        return node
    v = [c.value for c in operands]
    try:
        if isinstance(node, Unary):
            value = -v[0]
        elif isinstance(node, Binary):
            value = _fold_binary(node.op, v[0], v[1])
        elif isinstance(node, Compare):
            value = float({"<": v[0] < v[1], "<=": v[0] <= v[1], ">": v[0] > v[1],
                           ">=": v[0] >= v[1], "==": v[0] == v[1], "!=": v[0] != v[1]}[node.op])
        elif isinstance(node, Where):
            value = v[1] if v[0] != 0.0 else v[2]
        else:
            value = float(_FOLD_FUNCTIONS[node.func](*v))
    except (OverflowError, ValueError, ZeroDivisionError):
        value = math.nan
    if not isinstance(value, float) or not math.isfinite(value):
        raise ExpressionError("this constant part is not a finite real number (overflow or a value "
                              "outside the function's domain)", node.col)
    return Num(value, node.col)


def _fold_binary(op: str, a: float, b: float) -> float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a / b
    if op == "%":
        return a % b  # floored, as NumPy's % and the CUDA functor's
    return math.pow(a, b)  # float pow: 9.0 ** 387420489.0 raises OverflowError at once

