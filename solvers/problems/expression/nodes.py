"""The validated expression tree: the one representation every emitter reads.

Node types (frozen dataclasses; ``col`` is the 1-based column of the node in the text, for messages):

- ``Num(value)``: a number, already a Python float; constant sub-expressions are folded into one.
- ``Coord(index)``: a fixed coordinate, 0-based: ``x1`` and ``x[1]`` are ``Coord(0)``.
- ``Term(offset)``: inside a reduction, coordinate ``i + offset`` of the index variable (``x[i]`` is
  ``Term(0)``, ``x[i+1]`` is ``Term(1)``), i counted 1..n as in the papers.
- ``Index()``: the value of the reduction's index variable ``i`` (1-based).
- ``Dim()``: the dimension ``n``.
- ``Unary(op, operand)``: op is ``"-"``.
- ``Binary(op, left, right)``: op in ``+ - * / ** %``; ``%`` is the floored modulo (Python's, NumPy's).
- ``Compare(op, left, right)``: op in ``< <= > >= == !=``; as a value it is 1.0 or 0.0.
- ``Where(cond, then, other)``: ``then`` where ``cond`` is true (a comparison, or any value != 0).
- ``Call(func, args)``: an element-wise function of FUNCTIONS (``min``/``max`` with 2+ arguments).
- ``Reduce(kind, body, lo, hi)``: kind in ``sum prod max min mean`` over i with ``Term``/``Index`` in
  ``body``; i runs over every value for which each ``x[i+k]`` of the body exists, i.e.
  i = 1 + ``lo`` .. n - ``hi`` (``lo``/``hi`` are the largest negative/positive offsets). Reductions do
  not nest.

An emitter walks the tree over these classes; solvers/problems/expression/emit_array.py (NumPy/CuPy),
emit_cuda.py (a CUDA functor) and emit_numba.py (a Python scalar function for Numba) are the shipped
ones; the last two share the shape of emit_loops.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# name -> (minimum arguments, maximum arguments or None for any)
FUNCTIONS = {
    "sin": (1, 1), "cos": (1, 1), "tan": (1, 1), "asin": (1, 1), "acos": (1, 1), "atan": (1, 1),
    "atan2": (2, 2), "sinh": (1, 1), "cosh": (1, 1), "tanh": (1, 1), "exp": (1, 1), "log": (1, 1),
    "log10": (1, 1), "sqrt": (1, 1), "abs": (1, 1), "floor": (1, 1), "ceil": (1, 1), "sign": (1, 1),
    "hypot": (2, 2), "min": (2, None), "max": (2, None),
}
REDUCTIONS = ("sum", "prod", "max", "min", "mean")
CONSTANTS = {"pi": 3.141592653589793, "e": 2.718281828459045}


class Node:
    """Base of every tree node."""


@dataclass(frozen=True)
class Num(Node):
    value: float
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Coord(Node):
    index: int
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Term(Node):
    offset: int
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Index(Node):
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Dim(Node):
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Unary(Node):
    op: str
    operand: Node
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Binary(Node):
    op: str
    left: Node
    right: Node
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Compare(Node):
    op: str
    left: Node
    right: Node
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Where(Node):
    cond: Node
    then: Node
    other: Node
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Call(Node):
    func: str
    args: tuple
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Reduce(Node):
    kind: str
    body: Node
    lo: int  # largest negative offset, as a positive count (x[i-2] -> 2)
    hi: int  # largest positive offset (x[i+1] -> 1)
    col: int = field(default=0, compare=False)


def children(node: Node) -> tuple:
    """The direct sub-nodes of a node, in evaluation order."""
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, (Binary, Compare)):
        return (node.left, node.right)
    if isinstance(node, Where):
        return (node.cond, node.then, node.other)
    if isinstance(node, Call):
        return tuple(node.args)
    if isinstance(node, Reduce):
        return (node.body,)
    return ()


def walk(node: Node):
    """Every node of a tree, parents first."""
    yield node
    for child in children(node):
        yield from walk(child)
