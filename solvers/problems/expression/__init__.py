"""User objectives typed as text: one parser, one validated tree, one emitter per engine.

    >>> from solvers.problems.expression import parse, array_function, cuda_functor
    >>> expr = parse("10*n + sum(x[i]**2 - 10*cos(2*pi*x[i]))")
    >>> fn = array_function(expr.tree)          # fn(xp, X) -> (n,), NumPy or CuPy
    >>> functor = cuda_functor(expr.tree)       # .name, .source: a kernels/problems.cuh-style functor
    >>> source = numba_source(expr.tree)        # def mw_expr(p, d): ... (solvers/numba/expression.py)

The language, the tree's node types (for writing another emitter) and the limits are documented in
nodes.py and parse.py; README.md, "Your own objective", is the user's guide.
"""
from .emit_array import array_function  # noqa: F401
from .emit_cuda import CudaFunctor, cuda_functor  # noqa: F401
from .emit_numba import numba_source  # noqa: F401
from .nodes import CONSTANTS, FUNCTIONS, REDUCTIONS  # noqa: F401
from .parse import MAX_DEPTH, MAX_LENGTH, Expression, ExpressionError, parse  # noqa: F401
