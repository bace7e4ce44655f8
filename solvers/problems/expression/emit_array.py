"""Emitter (a): the tree as a vectorised array function ``fn(xp, X) -> (n,)`` for NumPy or CuPy.

The tree is turned once into nested Python closures (no text is generated or executed); calling the
result runs whole-array operations on X of shape (n, d). Inside a reduction a term ``x[i+k]`` is the
(n, m) slice of the m coordinates the reduction runs over, a fixed coordinate is an (n, 1) column and
``i`` an (m,) row, so the body broadcasts to (n, m) and is reduced along axis 1. Constants are Python
floats (weak scalars: float32 input stays float32), as in the built-in problems.
"""
from __future__ import annotations

from typing import Callable

from .nodes import Binary, Call, Compare, Coord, Dim, Index, Node, Num, Reduce, Term, Unary, Where

_FUNCS = {
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
    "atan2": "arctan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "exp": "exp", "log": "log",
    "log10": "log10", "sqrt": "sqrt", "abs": "abs", "floor": "floor", "ceil": "ceil", "sign": "sign",
    "hypot": "hypot", "min": "minimum", "max": "maximum",
}
_REDUCE = {"sum": "sum", "prod": "prod", "max": "max", "min": "min", "mean": "mean"}
_COMPARE = {"<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal",
            "!=": "not_equal"}


def array_function(tree: Node) -> Callable:
    """``fn(xp, X)`` evaluating the tree on the rows of X (n, d), returning (n,) in X's dtype."""
    run = _compile(tree, inside=False)

    def fn(xp, X):
        ctx = _Context(xp, X)
        value = run(ctx)
        out = xp.broadcast_to(xp.asarray(value, dtype=X.dtype), (X.shape[0],))
        return xp.ascontiguousarray(out)

    return fn


class _Context:
    """The arrays of one call: X, its dtype, and the running reduction's range."""

    __slots__ = ("xp", "X", "start", "m")

    def __init__(self, xp, X):
        self.xp, self.X, self.start, self.m = xp, X, 0, 0


def _compile(node: Node, inside: bool) -> Callable:
    """A closure ctx -> value (a Python float or an array broadcastable to (n,) or (n, m))."""
    if isinstance(node, Num):
        value = node.value
        return lambda ctx: value
    if isinstance(node, Dim):
        return lambda ctx: float(ctx.X.shape[1])
    if isinstance(node, Coord):
        k = node.index
        if inside:
            return lambda ctx: ctx.X[:, k:k + 1]
        return lambda ctx: ctx.X[:, k]
    if isinstance(node, Term):
        off = node.offset
        return lambda ctx: ctx.X[:, ctx.start + off:ctx.start + off + ctx.m]
    if isinstance(node, Index):
        return lambda ctx: ctx.xp.arange(ctx.start + 1, ctx.start + 1 + ctx.m, dtype=ctx.X.dtype)
    if isinstance(node, Unary):
        operand = _compile(node.operand, inside)
        return lambda ctx: -operand(ctx)
    if isinstance(node, Binary):
        return _binary(node, inside)
    if isinstance(node, Compare):
        test = _compare(node, inside)
        return lambda ctx: _as_number(ctx, test(ctx))
    if isinstance(node, Where):
        cond = _condition(node.cond, inside)
        then, other = _compile(node.then, inside), _compile(node.other, inside)
        return lambda ctx: ctx.xp.where(cond(ctx), then(ctx), other(ctx))
    if isinstance(node, Call):
        return _call(node, inside)
    if isinstance(node, Reduce):
        return _reduce(node)
    raise TypeError(f"unknown node {type(node).__name__}")  # pragma: no cover - parse() makes none


def _binary(node: Binary, inside: bool) -> Callable:
    left, right = _compile(node.left, inside), _compile(node.right, inside)
    op = node.op
    if op == "+":
        return lambda ctx: left(ctx) + right(ctx)
    if op == "-":
        return lambda ctx: left(ctx) - right(ctx)
    if op == "*":
        return lambda ctx: left(ctx) * right(ctx)
    if op == "/":
        return lambda ctx: left(ctx) / right(ctx)
    if op == "%":
        return lambda ctx: ctx.xp.mod(left(ctx), right(ctx))
    if isinstance(node.right, Num) and node.right.value == 2.0:
        return lambda ctx: ctx.xp.square(left(ctx))  # what NumPy's ** 2 does, without the dispatch
    return lambda ctx: ctx.xp.power(left(ctx), right(ctx))


def _compare(node: Compare, inside: bool) -> Callable:
    left, right = _compile(node.left, inside), _compile(node.right, inside)
    name = _COMPARE[node.op]
    return lambda ctx: getattr(ctx.xp, name)(left(ctx), right(ctx))


def _condition(node: Node, inside: bool) -> Callable:
    if isinstance(node, Compare):
        return _compare(node, inside)
    value = _compile(node, inside)
    return lambda ctx: ctx.xp.not_equal(value(ctx), 0.0)


def _as_number(ctx, test):
    return ctx.xp.asarray(test).astype(ctx.X.dtype)


def _call(node: Call, inside: bool) -> Callable:
    args = [_compile(a, inside) for a in node.args]
    name = _FUNCS[node.func]
    if node.func in ("min", "max"):
        def fold(ctx):
            f = getattr(ctx.xp, name)
            value = args[0](ctx)
            for arg in args[1:]:
                value = f(value, arg(ctx))
            return value
        return fold
    if len(args) == 1:
        (arg,) = args
        return lambda ctx: getattr(ctx.xp, name)(arg(ctx))
    first, second = args
    return lambda ctx: getattr(ctx.xp, name)(first(ctx), second(ctx))


def _reduce(node: Reduce) -> Callable:
    body = _compile(node.body, inside=True)
    name = _REDUCE[node.kind]
    lo, hi = node.lo, node.hi

    def reduce(ctx):
        n, d = ctx.X.shape
        ctx.start, ctx.m = lo, max(0, d - lo - hi)
        value = body(ctx)
        xp = ctx.xp
        if ctx.m == 0 and node.kind in ("max", "min", "mean"):
            return xp.full(n, xp.nan, dtype=ctx.X.dtype)  # no terms: a NaN, i.e. a very bad point
        full = xp.broadcast_to(xp.asarray(value, dtype=ctx.X.dtype), (n, ctx.m))
        return getattr(xp, name)(full, axis=1)

    return reduce
