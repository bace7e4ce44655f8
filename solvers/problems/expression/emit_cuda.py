"""Emitter (b): the tree as a CUDA device functor with the interface of kernels/problems.cuh.

    struct MwExpr_<hash> { template <typename T, typename X> __device__ static T eval(const X& x, int d); };

so every fused kernel, instantiated with this functor, runs the expression unchanged. The struct
name is a hash of the expression's canonical C++ body: two expressions never share a name (nor a
compiled module: the loader's cache keys on the source), and the same expression gets the same
source, compiled once per process (and once per machine through CuPy's disk cache).

Code shape: fixed coordinates are read once into locals; each reduction is a loop over j (0-based
i - 1) that reads each x[j + k] of its body once; constants are folded in double and rounded once to
T (the rule of problems.cuh); ``v ** 2`` and ``v ** 3`` become products, other powers mw_pow.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

from .nodes import Binary, Call, Compare, Coord, Dim, Index, Node, Num, Reduce, Term, Unary, Where, walk

_HELPERS = Path(__file__).resolve().parents[3] / "kernels" / "expression.cuh"
_FUNCS = {
    "sin": "mw_sin", "cos": "mw_cos", "tan": "mwx_tan", "asin": "mwx_asin", "acos": "mwx_acos",
    "atan": "mwx_atan", "atan2": "mwx_atan2", "sinh": "mwx_sinh", "cosh": "mwx_cosh",
    "tanh": "mwx_tanh", "exp": "mw_exp", "log": "mw_log", "log10": "mwx_log10", "sqrt": "mw_sqrt",
    "abs": "mw_fabs", "floor": "mw_floor", "ceil": "mwx_ceil", "sign": "mwx_sign",
    "hypot": "mwx_hypot", "min": "mw_fmin", "max": "mw_fmax",
}


@dataclass(frozen=True)
class CudaFunctor:
    """A generated functor: its struct name and the device source (helpers + struct)."""

    name: str
    source: str


def cuda_functor(tree: Node) -> CudaFunctor:
    """The functor of a validated tree (see the module docstring)."""
    body = _Body().function(tree)
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


class _Body:
    """Statements of eval(): coordinate loads, one loop per reduction range, then the return.

    Reductions over the same range of i share one loop (Ackley's two sums read x once, as the
    built-in functor does), and equal reductions share one accumulator."""

    def __init__(self):
        self.lines: list[str] = []
        self.reductions: dict[Node, str] = {}

    def function(self, tree: Node) -> str:
        coords = sorted({n.index for n in walk(tree) if isinstance(n, Coord)})
        for k in coords:
            self.lines.append(f"const T c{k} = x[{k}];")
        groups: dict[tuple[int, int], list[Reduce]] = {}
        for node in walk(tree):
            if isinstance(node, Reduce) and node not in self.reductions:
                self.reductions[node] = f"r{len(self.reductions)}"
                groups.setdefault((node.lo, node.hi), []).append(node)
        for (lo, hi), nodes in groups.items():
            self.loop(lo, hi, nodes)
        self.lines.append(f"return {self.expr(tree)};")
        return "".join(f"        {line}\n" for line in self.lines)

    def loop(self, lo: int, hi: int, nodes: list[Reduce]) -> None:
        offsets = sorted({n.offset for r in nodes for n in walk(r.body) if isinstance(n, Term)})
        statements = [f"const T {_term(k)} = x[j + {k}];" for k in offsets]
        for node in nodes:
            r = self.reductions[node]
            init = {"sum": "T(0)", "mean": "T(0)", "prod": "T(1)", "max": "-mw_inf<T>()",
                    "min": "mw_inf<T>()"}[node.kind]
            self.lines.append(f"T {r} = {init};")
            body = self.expr(node.body)
            statements.append({"sum": f"{r} += {body};", "mean": f"{r} += {body};",
                               "prod": f"{r} *= {body};", "max": f"{r} = mw_fmax({r}, {body});",
                               "min": f"{r} = mw_fmin({r}, {body});"}[node.kind])
        self.lines.append(f"for (int j = {lo}; j < d - {hi}; ++j) {{ {' '.join(statements)} }}")
        span = lo + hi
        for node in nodes:
            r = self.reductions[node]
            if node.kind == "mean":
                self.lines.append(f"{r} = (d - {span} > 0) ? {r} / T(d - {span}) : mwx_nan<T>();")
            elif node.kind in ("max", "min"):
                self.lines.append(f"if (d - {span} <= 0) {r} = mwx_nan<T>();")

    def expr(self, node: Node) -> str:
        if isinstance(node, Num):
            return _literal(node.value)
        if isinstance(node, Dim):
            return "T(d)"
        if isinstance(node, Coord):
            return f"c{node.index}"
        if isinstance(node, Term):
            return _term(node.offset)
        if isinstance(node, Index):
            return "T(j + 1)"
        if isinstance(node, Unary):
            return f"(-{self.expr(node.operand)})"
        if isinstance(node, Binary):
            return self.binary(node)
        if isinstance(node, Compare):
            return f"({self.condition(node)} ? T(1) : T(0))"
        if isinstance(node, Where):
            return f"({self.condition(node.cond)} ? {self.expr(node.then)} : {self.expr(node.other)})"
        if isinstance(node, Call):
            return self.call(node)
        if isinstance(node, Reduce):
            return self.reductions[node]
        raise TypeError(f"unknown node {type(node).__name__}")  # pragma: no cover

    def binary(self, node: Binary) -> str:
        a = self.expr(node.left)
        if node.op == "**" and isinstance(node.right, Num) and node.right.value in (1.0, 2.0, 3.0, 4.0):
            power = int(node.right.value)
            return a if power == 1 else f"mwx_pow{power}<T>({a})"  # products, as NumPy's square
        b = self.expr(node.right)
        if node.op == "**":
            return f"mw_pow({a}, {b})"
        if node.op == "%":
            return f"mwx_mod<T>({a}, {b})"
        return f"({a} {node.op} {b})"

    def condition(self, node: Node) -> str:
        if isinstance(node, Compare):
            return f"({self.expr(node.left)} {node.op} {self.expr(node.right)})"
        return f"({self.expr(node)} != T(0))"

    def call(self, node: Call) -> str:
        args = [self.expr(a) for a in node.args]
        name = _FUNCS[node.func]
        if node.func in ("min", "max"):
            value = args[0]
            for arg in args[1:]:
                value = f"{name}({value}, {arg})"
            return value
        if node.func == "cos" and _pi_multiple(node.args[0]) is not None:
            # cos(k pi v) as cospi(k v), as the built-in functors write Rastrigin and Ackley: exact
            # argument reduction, and the fast path of the precise math
            k, operand = _pi_multiple(node.args[0])
            return f"mw_cospi({_literal(k)} * {self.expr(operand)})"
        if node.func == "sign":
            return f"mwx_sign<T>({args[0]})"
        return f"{name}({', '.join(args)})"


def _pi_multiple(node: Node):
    """(k, v) when node is c * v with c a folded k * pi (k with at most 6 decimals), else None."""
    if not (isinstance(node, Binary) and node.op == "*" and isinstance(node.left, Num)):
        return None
    k = round(node.left.value / math.pi, 6)
    if k == 0 or node.left.value != k * math.pi:
        return None
    return k, node.right


def _term(offset: int) -> str:
    """The local holding x[i + offset] in a reduction loop."""
    return f"t{offset}" if offset >= 0 else f"tm{-offset}"
