"""The built-in functions as the numba engine's tests visit them: each at some dimensions, with its
problem and its compiled function id (solvers/numba/functions.py)."""
from __future__ import annotations

from solvers.numba import functions
from solvers.problems import get_problem


def builtin_at(definition, dims):
    """(dim, problem, function id) of `definition` at each of `dims`."""
    for dim in dims:
        problem = get_problem(definition.name, dim)
        yield dim, problem, functions.function_id(problem)
