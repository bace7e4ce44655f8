"""The shape shared by the emitters that write a scalar function of one point (CUDA, Numba).

Statements: each fixed coordinate read once into ``c<k>``; one loop over j (0-based i - 1) per
reduction range, reading each ``x[j + k]`` of its bodies once into ``t<k>`` (``tm<k>`` for k < 0), with
one accumulator ``r<m>`` per distinct reduction (Ackley's two sums share a loop, as in the built-ins);
then the return. A subclass supplies the syntax: the hooks below and its tables of names.
"""
from __future__ import annotations

import math

from .nodes import Binary, Call, Compare, Coord, Dim, Index, Node, Num, Reduce, Term, Unary, Where, walk


def term_name(offset: int) -> str:
    """The local holding x[i + offset] in a reduction loop."""
    offset = int(offset)
    return f"t{offset}" if offset >= 0 else f"tm{-offset}"


class LoopEmitter:
    """One emitted function body (see the module docstring); ``statements(tree)`` runs it once."""

    FUNCS: dict[str, str] = {}  # language function -> target function (min/max: the 2-argument one)
    INIT: dict[str, str] = {}  # reduction kind -> the accumulator's first value
    DIM = INDEX = ZERO = ONE = ""  # the dimension, the value of i inside a loop, 0 and 1

    def __init__(self):
        self.lines: list[str] = []
        self.reductions: dict[Node, str] = {}

    def statements(self, tree: Node) -> list[str]:
        for k in sorted({int(n.index) for n in walk(tree) if isinstance(n, Coord)}):
            self.lines.append(self.assign(f"c{k}", f"x[{k}]", const=True))
        groups: dict[tuple[int, int], list[Reduce]] = {}
        for node in walk(tree):
            if isinstance(node, Reduce) and node not in self.reductions:
                self.reductions[node] = f"r{len(self.reductions)}"
                groups.setdefault((int(node.lo), int(node.hi)), []).append(node)
        for (lo, hi), nodes in groups.items():
            self.loop(lo, hi, nodes)
        self.lines.append(self.returns(self.expr(tree)))
        return self.lines

    def loop(self, lo: int, hi: int, nodes: list[Reduce]) -> None:
        offsets = sorted({int(n.offset) for r in nodes for n in walk(r.body) if isinstance(n, Term)})
        body = [self.assign(term_name(k), f"x[j + {k}]", const=True) for k in offsets]
        for node in nodes:
            r = self.reductions[node]
            self.lines.append(self.assign(r, self.INIT[node.kind]))
            value = self.expr(node.body)
            body.append(self.end({"sum": f"{r} += {value}", "mean": f"{r} += {value}",
                                  "prod": f"{r} *= {value}",
                                  "max": f"{r} = {self.FUNCS['max']}({r}, {value})",
                                  "min": f"{r} = {self.FUNCS['min']}({r}, {value})"}[node.kind]))
        self.lines.extend(self.for_loop(lo, hi, body))
        for node in nodes:
            if node.kind in ("mean", "max", "min"):
                self.lines.extend(self.finish(self.reductions[node], node.kind, lo + hi))

    def expr(self, node: Node) -> str:
        if isinstance(node, Num):
            return self.number(node.value)
        if isinstance(node, Dim):
            return self.DIM
        if isinstance(node, Coord):
            return f"c{int(node.index)}"
        if isinstance(node, Term):
            return term_name(node.offset)
        if isinstance(node, Index):
            return self.INDEX
        if isinstance(node, Unary):
            return f"(-{self.expr(node.operand)})"
        if isinstance(node, Binary):
            return self.binary(node)
        if isinstance(node, Compare):
            return self.choose(self.condition(node), self.ONE, self.ZERO)
        if isinstance(node, Where):
            return self.choose(self.condition(node.cond), self.expr(node.then), self.expr(node.other))
        if isinstance(node, Call):
            return self.call(node)
        if isinstance(node, Reduce):
            return self.reductions[node]
        raise TypeError(f"unknown node {type(node).__name__}")  # pragma: no cover - parse() makes none

    def binary(self, node: Binary) -> str:
        a = self.expr(node.left)
        if node.op == "**" and isinstance(node.right, Num):
            special = self.constant_power(a, node.right.value)
            if special is not None:
                return special
        b = self.expr(node.right)
        if node.op == "**":
            return self.power(a, b)
        if node.op == "%":
            return self.mod(a, b)
        if node.op not in ("+", "-", "*", "/"):
            raise TypeError(f"unknown operator {node.op!r}")  # pragma: no cover
        return f"({a} {node.op} {b})"

    def condition(self, node: Node) -> str:
        if isinstance(node, Compare):
            if node.op not in ("<", "<=", ">", ">=", "==", "!="):
                raise TypeError(f"unknown comparison {node.op!r}")  # pragma: no cover
            return f"({self.expr(node.left)} {node.op} {self.expr(node.right)})"
        return f"({self.expr(node)} != {self.ZERO})"

    def call(self, node: Call) -> str:
        args = [self.expr(a) for a in node.args]
        name = self.FUNCS[node.func]
        if node.func in ("min", "max"):
            value = args[0]
            for arg in args[1:]:
                value = f"{name}({value}, {arg})"
            return value
        special = self.special_call(node)
        if special is not None:
            return special
        return f"{name}({', '.join(args)})"

    # --- the syntax: every subclass writes these ---------------------------------------------------
    def number(self, value: float) -> str:
        raise NotImplementedError

    def assign(self, name: str, value: str, const: bool = False) -> str:
        raise NotImplementedError

    def end(self, statement: str) -> str:
        """A statement inside the loop, terminated."""
        raise NotImplementedError

    def for_loop(self, lo: int, hi: int, body: list[str]) -> list[str]:
        raise NotImplementedError

    def finish(self, r: str, kind: str, span: int) -> list[str]:
        """After the loop: a mean divided by its count, an empty max/min/mean made NaN."""
        raise NotImplementedError

    def returns(self, value: str) -> str:
        raise NotImplementedError

    def choose(self, condition: str, then: str, other: str) -> str:
        raise NotImplementedError

    def power(self, a: str, b: str) -> str:
        raise NotImplementedError

    def mod(self, a: str, b: str) -> str:
        raise NotImplementedError

    def constant_power(self, a: str, exponent: float) -> str | None:
        """``a ** exponent`` written another way (products), or None for the general power."""
        return None

    def special_call(self, node: Call) -> str | None:
        """A call written another way (CUDA's cospi), or None for ``name(args)``."""
        return None


def pi_multiple(node: Node):
    """cos(k pi v) is written cospi(k v) by the compiled emitters (as the built-ins write Rastrigin and
    Ackley): (k, v) when node is c * v with c a folded k * pi (k with at most 6 decimals), else None."""
    if not (isinstance(node, Binary) and node.op == "*" and isinstance(node.left, Num)):
        return None
    k = round(node.left.value / math.pi, 6)
    if k == 0 or node.left.value != k * math.pi:
        return None
    return k, node.right
