"""Emitter (c): the tree as the Python source of a scalar function of one point, for Numba.

    def mw_expr(p, d):          # p: pointer to d float64 coordinates
        x = carray(p, (d,))
        c0 = x[0]               # fixed coordinates read once
        r0 = 0.0
        for j in range(0, d - 1):
            t0 = x[j + 0]; t1 = x[j + 1]
            r0 += ...           # one loop per reduction range, as the CUDA functor
        return ...

``cos(k pi v)`` is written ``cospi(k v)`` (the numba built-ins' vectorising cosine of Rastrigin and
Ackley, given to the namespace by solvers/numba/expression.py).

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

from .emit_loops import LoopEmitter, pi_multiple
from .nodes import Call, Node

FUNCTION_NAME = "mw_expr"
_FUNCS = {
    "sin": "math.sin", "cos": "math.cos", "tan": "math.tan", "asin": "math.asin",
    "acos": "math.acos", "atan": "math.atan", "atan2": "math.atan2", "sinh": "math.sinh",
    "cosh": "math.cosh", "tanh": "math.tanh", "exp": "math.exp", "log": "math.log",
    "log10": "math.log10", "sqrt": "math.sqrt", "abs": "abs", "floor": "np.floor", "ceil": "np.ceil",
    "sign": "np.sign", "hypot": "math.hypot", "min": "np.minimum", "max": "np.maximum",
}


def numba_source(tree: Node) -> str:
    """The source of ``mw_expr(p, d) -> float`` for a validated tree (see the module docstring)."""
    lines = ["x = carray(p, (d,))", *_Function().statements(tree)]
    body = "".join(f"    {line}\n" for line in lines)
    return f"def {FUNCTION_NAME}(p, d):\n{body}"


def _literal(value: float) -> str:
    value = float(value)
    if math.isnan(value):
        return "math.nan"
    if math.isinf(value):
        return "math.inf" if value > 0 else "(-math.inf)"
    text = repr(value)  # round-trips the double exactly
    # parenthesised when negative, -0.0 included: '-0.0 ** c0' would read -(0.0 ** c0), -1 at c0 = 0
    return f"({text})" if math.copysign(1.0, value) < 0 else text


class _Function(LoopEmitter):
    """The statements of the function in Python (float64 throughout, as the kernels' point)."""

    FUNCS = _FUNCS
    INIT = {"sum": "0.0", "mean": "0.0", "prod": "1.0", "max": "-math.inf", "min": "math.inf"}
    DIM, INDEX, ZERO, ONE = "float(d)", "float(j + 1)", "0.0", "1.0"

    def number(self, value: float) -> str:
        return _literal(value)

    def assign(self, name: str, value: str, const: bool = False) -> str:
        return f"{name} = {value}"

    def end(self, statement: str) -> str:
        return statement

    def for_loop(self, lo: int, hi: int, body: list[str]) -> list[str]:
        return [f"for j in range({lo}, d - {hi}):", *(f"    {s}" for s in body)]

    def finish(self, r: str, kind: str, span: int) -> list[str]:
        if kind == "mean":
            return [f"{r} = {r} / (d - {span}) if d - {span} > 0 else math.nan"]
        return [f"if d - {span} <= 0:", f"    {r} = math.nan"]

    def returns(self, value: str) -> str:
        return f"return float({value})"

    def choose(self, condition: str, then: str, other: str) -> str:
        return f"({then} if {condition} else {other})"

    def power(self, a: str, b: str) -> str:
        return f"({a} ** {b})"

    def mod(self, a: str, b: str) -> str:
        return f"({a} % {b})"  # floored, as Python's and NumPy's

    def constant_power(self, a: str, exponent: float) -> str | None:
        # a constant integer power: a product, as NumPy's square (and the built-ins' v * v)
        return f"({a} ** 2)" if exponent == 2.0 else None

    def special_call(self, node: Call) -> str | None:
        if node.func == "cos" and pi_multiple(node.args[0]) is not None:
            # cos(k pi v) as cospi(k v), as the numba built-ins (and CUDA) write Rastrigin and
            # Ackley: a polynomial that vectorises (solvers/numba/functions.py), exact reduction
            k, operand = pi_multiple(node.args[0])
            return f"cospi({_literal(k)} * {self.expr(operand)})"
        return None
