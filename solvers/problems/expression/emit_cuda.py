"""Emitter (b): the tree as a CUDA device functor with the interface of kernels/problems.cuh.

    struct MwExpr_<hash> { template <typename T, typename X> __device__ static T eval(const X& x, int d); };

so every fused kernel, instantiated with this functor, runs the expression unchanged. The struct
name is a hash of the expression's canonical C++ body: two expressions never share a name (nor a
compiled module: the loader's cache keys on the source), and the same expression gets the same
source, compiled once per process (and once per machine through CuPy's disk cache).

Code shape: fixed coordinates are read once into locals; each reduction is a loop over j (0-based
i - 1) that reads each x[j + k] of its body once; constants are folded in double and rounded once to
T (the rule of problems.cuh); ``v ** 2`` to ``v ** 4`` become products, other whole powers mwx_powi (a
negative base stays real under fast math), the rest mw_pow.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

from .emit_loops import LoopEmitter, pi_multiple
from .nodes import Binary, Call, Node, Num

_HELPERS = Path(__file__).resolve().parents[3] / "kernels" / "expression.cuh"
_FUNCS = {
    "sin": "mw_sin", "cos": "mw_cos", "tan": "mwx_tan", "asin": "mwx_asin", "acos": "mwx_acos",
    "atan": "mwx_atan", "atan2": "mwx_atan2", "sinh": "mwx_sinh", "cosh": "mwx_cosh",
    "tanh": "mwx_tanh", "exp": "mw_exp", "log": "mw_log", "log10": "mwx_log10", "sqrt": "mw_sqrt",
    "abs": "mw_fabs", "floor": "mw_floor", "ceil": "mwx_ceil", "sign": "mwx_sign",
    "hypot": "mwx_hypot", "min": "mwx_min<T>", "max": "mwx_max<T>",  # NaN-propagating, as NumPy's
}


@dataclass(frozen=True)
class CudaFunctor:
    """A generated functor: its struct name and the device source (helpers + struct)."""

    name: str
    source: str


def cuda_functor(tree: Node) -> CudaFunctor:
    """The functor of a validated tree (see the module docstring)."""
    body = "".join(f"        {line}\n" for line in _Functor().statements(tree))
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
    name = f"MwExpr_{digest}"
    struct = (f"struct {name} {{\n"
              f"    template <typename T, typename X> __device__ static T eval(const X& x, int d) {{\n"
              f"{body}"
              f"    }}\n}};\n")
    return CudaFunctor(name=name, source=f"{helpers_text()}\n// ---- expression functor ----\n{struct}")


def helpers_text() -> str:
    return _HELPERS.read_text(encoding="utf-8")


def _literal(value: float) -> str:
    # repr round-trips a double exactly; T(...) rounds it once to the working type
    text = repr(float(value))
    if "e" not in text and "." not in text and "inf" not in text and "nan" not in text:
        text += ".0"
    return f"T({text})"


class _Functor(LoopEmitter):
    """The statements of eval() in CUDA C++ (T the working type; constants rounded once to T)."""

    FUNCS = _FUNCS
    INIT = {"sum": "T(0)", "mean": "T(0)", "prod": "T(1)", "max": "-mw_inf<T>()", "min": "mw_inf<T>()"}
    DIM, INDEX, ZERO, ONE = "T(d)", "T(j + 1)", "T(0)", "T(1)"

    def number(self, value: float) -> str:
        return _literal(value)

    def assign(self, name: str, value: str, const: bool = False) -> str:
        return f"{'const ' if const else ''}T {name} = {value};"

    def end(self, statement: str) -> str:
        return f"{statement};"

    def for_loop(self, lo: int, hi: int, body: list[str]) -> list[str]:
        return [f"for (int j = {lo}; j < d - {hi}; ++j) {{ {' '.join(body)} }}"]

    def finish(self, r: str, kind: str, span: int) -> list[str]:
        if kind == "mean":
            return [f"{r} = (d - {span} > 0) ? {r} / T(d - {span}) : mwx_nan<T>();"]
        return [f"if (d - {span} <= 0) {r} = mwx_nan<T>();"]

    def returns(self, value: str) -> str:
        return f"return {value};"

    def choose(self, condition: str, then: str, other: str) -> str:
        return f"({condition} ? {then} : {other})"

    def power(self, a: str, b: str) -> str:
        return f"mw_pow({a}, {b})"

    def mod(self, a: str, b: str) -> str:
        return f"mwx_mod<T>({a}, {b})"

    def constant_power(self, a: str, exponent: float) -> str | None:
        if exponent in (1.0, 2.0, 3.0, 4.0):
            power = int(exponent)
            return a if power == 1 else f"mwx_pow{power}<T>({a})"  # products, as NumPy's square
        if exponent == 0.0:
            return self.ONE  # NumPy's v ** 0 is 1 for every v; __powf(0, 0) is exp2(0 * -inf), NaN
        if float(exponent).is_integer():
            # pow of |a| with the sign of an odd power put back: __powf (fast math) is NaN for a < 0
            odd = "true" if math.fmod(exponent, 2.0) != 0.0 else "false"
            return f"mwx_powi<T>({a}, {_literal(exponent)}, {odd})"
        return None

    def special_call(self, node: Call) -> str | None:
        if node.func == "cos" and pi_multiple(node.args[0]) is not None:
            # cos(k pi v) as cospi(k v), as the built-in functors write Rastrigin and Ackley: exact
            # argument reduction, and the fast path of the precise math
            k, operand = pi_multiple(node.args[0])
            return f"mw_cospi({_literal(k)} * {self.expr(operand)})"
        if node.func == "sign":
            return f"mwx_sign<T>({self.expr(node.args[0])})"
        return None

