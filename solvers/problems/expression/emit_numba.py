"""Emitter (c): the tree as the Python source of a scalar function of one point, for Numba.

    def mw_expr(p, d):          # p: pointer to d float64 coordinates
        x = carray(p, (d,))
        c0 = x[0]               # fixed coordinates read once
        r0 = 0.0
        for j in range(0, d - 1):
            t0 = x[j + 0]; t1 = x[j + 1]
            r0 += ...           # one loop per reduction range, as the CUDA functor
        return ...

The text is written from the validated tree only: node types map to fixed templates, numbers are
``repr`` of a Python float, indices are Python ints, function names come from a fixed table; the
user's text never reaches the source. solvers/numba/expression.py compiles it (``cfunc``, numpy
error model: 1/0 is inf, 0/0 NaN, as in NumPy).

Semantics follow the NumPy emitter: ``%`` floored, ``min``/``max`` and the max/min reductions
propagate NaN (np.minimum/np.maximum), floor/ceil/sign return floats, an empty max/min/mean
reduction is NaN, ``v ** 2`` is ``v * v`` (NumPy's square), comparisons are 1.0 or 0.0.
"""
from __future__ import annotations

import math

from .nodes import Binary, Call, Compare, Coord, Dim, Index, Node, Num, Reduce, Term, Unary, Where, walk

FUNCTION_NAME = "mw_expr"
# names the source may use: what solvers/numba/expression.py puts in the namespace it runs it in
NAMESPACE_NAMES = ("math", "np", "carray")
_FUNCS = {
    "sin": "math.sin", "cos": "math.cos", "tan": "math.tan", "asin": "math.asin",
    "acos": "math.acos", "atan": "math.atan", "atan2": "math.atan2", "sinh": "math.sinh",
    "cosh": "math.cosh", "tanh": "math.tanh", "exp": "math.exp", "log": "math.log",
    "log10": "math.log10", "sqrt": "math.sqrt", "abs": "abs", "floor": "np.floor", "ceil": "np.ceil",
    "sign": "np.sign", "hypot": "math.hypot", "min": "np.minimum", "max": "np.maximum",
}
_INIT = {"sum": "0.0", "mean": "0.0", "prod": "1.0", "max": "-math.inf", "min": "math.inf"}


def numba_source(tree: Node) -> str:
    """The source of ``mw_expr(p, d) -> float`` for a validated tree (see the module docstring)."""
    return _Body().function(tree)


def _literal(value: float) -> str:
    value = float(value)
    if math.isnan(value):
        return "math.nan"
    if math.isinf(value):
        return "math.inf" if value > 0 else "(-math.inf)"
    text = repr(value)  # round-trips the double exactly
    return f"({text})" if value < 0 else text


class _Body:
    """Statements of the function: coordinate loads, one loop per reduction range, the return.

    Reductions over the same range of i share one loop (Ackley's two sums read x once, as the
    built-in does), and equal reductions share one accumulator."""

    def __init__(self):
        self.lines: list[str] = []
        self.reductions: dict[Node, str] = {}

    def function(self, tree: Node) -> str:
        self.lines.append("x = carray(p, (d,))")
        for k in sorted({n.index for n in walk(tree) if isinstance(n, Coord)}):
            self.lines.append(f"c{int(k)} = x[{int(k)}]")
        groups: dict[tuple[int, int], list[Reduce]] = {}
        for node in walk(tree):
            if isinstance(node, Reduce) and node not in self.reductions:
                self.reductions[node] = f"r{len(self.reductions)}"
                groups.setdefault((node.lo, node.hi), []).append(node)
        for (lo, hi), nodes in groups.items():
            self.loop(int(lo), int(hi), nodes)
        self.lines.append(f"return float({self.expr(tree)})")
        body = "".join(f"    {line}\n" for line in self.lines)
        return f"def {FUNCTION_NAME}(p, d):\n{body}"

    def loop(self, lo: int, hi: int, nodes: list[Reduce]) -> None:
        offsets = sorted({n.offset for r in nodes for n in walk(r.body) if isinstance(n, Term)})
        statements = [f"{_term(k)} = x[j + {int(k)}]" for k in offsets]
        for node in nodes:
            r = self.reductions[node]
            self.lines.append(f"{r} = {_INIT[node.kind]}")
            body = self.expr(node.body)
            statements.append({"sum": f"{r} += {body}", "mean": f"{r} += {body}",
                               "prod": f"{r} *= {body}", "max": f"{r} = np.maximum({r}, {body})",
                               "min": f"{r} = np.minimum({r}, {body})"}[node.kind])
        self.lines.append(f"for j in range({lo}, d - {hi}):")
        self.lines.extend(f"    {s}" for s in statements)
        span = lo + hi
        for node in nodes:
            r = self.reductions[node]
            if node.kind == "mean":
                self.lines.append(f"{r} = {r} / (d - {span}) if d - {span} > 0 else math.nan")
            elif node.kind in ("max", "min"):
                self.lines.append(f"if d - {span} <= 0:")
                self.lines.append(f"    {r} = math.nan")

    def expr(self, node: Node) -> str:
        if isinstance(node, Num):
            return _literal(node.value)
        if isinstance(node, Dim):
            return "float(d)"
        if isinstance(node, Coord):
            return f"c{int(node.index)}"
        if isinstance(node, Term):
            return _term(node.offset)
        if isinstance(node, Index):
            return "float(j + 1)"
        if isinstance(node, Unary):
            return f"(-{self.expr(node.operand)})"
        if isinstance(node, Binary):
            return self.binary(node)
        if isinstance(node, Compare):
            return f"(1.0 if {self.condition(node)} else 0.0)"
        if isinstance(node, Where):
            return (f"({self.expr(node.then)} if {self.condition(node.cond)} "
                    f"else {self.expr(node.other)})")
        if isinstance(node, Call):
            return self.call(node)
        if isinstance(node, Reduce):
            return self.reductions[node]
        raise TypeError(f"unknown node {type(node).__name__}")  # pragma: no cover - parse() makes none

    def binary(self, node: Binary) -> str:
        a = self.expr(node.left)
        if node.op == "**" and isinstance(node.right, Num) and node.right.value == 2.0:
            return f"({a} ** 2)"  # a constant integer power: a product, as NumPy's square (v * v)
        b = self.expr(node.right)
        if node.op == "**":
            return f"({a} ** {b})"
        if node.op == "%":
            return f"({a} % {b})"  # floored, as Python's and NumPy's
        if node.op not in ("+", "-", "*", "/"):
            raise TypeError(f"unknown operator {node.op!r}")  # pragma: no cover
        return f"({a} {node.op} {b})"

    def condition(self, node: Node) -> str:
        if isinstance(node, Compare):
            if node.op not in ("<", "<=", ">", ">=", "==", "!="):
                raise TypeError(f"unknown comparison {node.op!r}")  # pragma: no cover
            return f"({self.expr(node.left)} {node.op} {self.expr(node.right)})"
        return f"({self.expr(node)} != 0.0)"

    def call(self, node: Call) -> str:
        args = [self.expr(a) for a in node.args]
        name = _FUNCS[node.func]
        if node.func in ("min", "max"):
            value = args[0]
            for arg in args[1:]:
                value = f"{name}({value}, {arg})"
            return value
        return f"{name}({', '.join(args)})"


def _term(offset: int) -> str:
    """The local holding x[i + offset] in a reduction loop."""
    offset = int(offset)
    return f"t{offset}" if offset >= 0 else f"tm{-offset}"
