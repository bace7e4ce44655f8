"""The Problem object and the problem registry.

A problem is defined once by a vectorised function ``fn(xp, X) -> (n,)`` written against the array
module ``xp`` (NumPy or CuPy), plus its metadata. ``get_problem(name, dim)`` binds a definition to a
dimension and returns a :class:`Problem`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..arrays import array_module
from ..errors import ConfigError, EngineUnavailable

ANY_DIM = None  # a definition that accepts every dimension >= min_dim


@dataclass(frozen=True)
class ProblemDef:
    """A registered benchmark function, not yet bound to a dimension."""

    name: str
    title: str
    group: str  # where it comes from, for grouping in the GUI: "Yao, Liu & Lin 1999", ...
    source: str  # the paper or reference, one line
    fn: Callable  # fn(xp, X) -> (n,), X of shape (n, d)
    bounds: Callable[[int], tuple[np.ndarray, np.ndarray]]
    dims: tuple[int, ...] | None = ANY_DIM  # accepted dimensions; None = any >= min_dim
    min_dim: int = 1
    default_dim: int = 2
    f_min: Callable[[int], float | None] = lambda d: None
    x_min: Callable[[int], np.ndarray | None] = lambda d: None
    # every global minimiser, for functions with several (Himmelblau's four); None: just x_min
    x_mins: Callable[[int], Sequence | None] = lambda d: None
    notes: str = ""
    # An algorithm's parameter defaults on this function, where the algorithm's own fail here:
    # {algorithm: {parameter: value}}. A run takes them unless it is given the parameter (as a
    # function's own default_dim); say why in `notes`. Not hashed (a dict).
    param_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False, compare=False)
    cuda_functor: str | None = None  # name of the device functor in kernels/problems.cuh
    cuda_source: str | None = None  # device source defining cuda_functor, when not in problems.cuh
    no_cuda_reason: str = ""  # why the cuda engine cannot run it (when cuda_functor is None)
    expression: object = None  # the parsed Expression of a user's "expr: ..." problem

    def accepts(self, dim: int) -> bool:
        if self.dims is not None:
            return dim in self.dims
        return dim >= self.min_dim


@dataclass(frozen=True, eq=False)
class Problem:
    """A benchmark function bound to a dimension: evaluate(X) with X of shape (n, dim) -> (n,)."""

    definition: ProblemDef
    dim: int
    lower: np.ndarray
    upper: np.ndarray
    f_min: float | None
    x_min: np.ndarray | None
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def title(self) -> str:
        return self.definition.title

    @property
    def x_mins(self) -> list[np.ndarray]:
        """Every known global minimiser inside the box (x_min alone unless several are known)."""
        if self.x_min is None:
            return []
        many = self.definition.x_mins(self.dim)
        points = [np.asarray(p, dtype=np.float64) for p in many] if many else [self.x_min]
        return [p for p in points if np.all(p >= self.lower) and np.all(p <= self.upper)]

    def evaluate(self, X):
        """Objective values of the rows of X (NumPy or CuPy, float32 or float64), shape (n,)."""
        xp = array_module(X)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(f"{self.name}: expected X of shape (n, {self.dim}), got {X.shape}")
        return self.definition.fn(xp, X)

    def __call__(self, X):
        return self.evaluate(X)

    @staticmethod
    def from_expression(text: str, dim: int | None = None, lower=None, upper=None, f_min=None,
                        x_min=None, name: str | None = None) -> "Problem":
        """A problem typed as an expression (README, "Your own objective"), runnable on every
        engine; its box defaults to [-5, 5] in every coordinate; `name` titles it."""
        from .custom import expression_problem  # noqa: PLC0415 - custom imports this module

        return expression_problem(text, dim, lower, upper, f_min=f_min, x_min=x_min, title=name)

    @staticmethod
    def from_callable(f, lower, upper, f_min=None, name: str | None = None) -> "Problem":
        """A problem from a vectorised ``f(X) -> (n,)`` in NumPy or CuPy (numpy/cupy engines)."""
        from .custom import callable_problem  # noqa: PLC0415

        return callable_problem(f, lower, upper, f_min=f_min, name=name)

    def with_bounds(self, lower, upper) -> "Problem":
        """The same function searched over another box (scalars or arrays of length dim)."""
        lo = np.broadcast_to(np.asarray(lower, dtype=np.float64), (self.dim,)).copy()
        hi = np.broadcast_to(np.asarray(upper, dtype=np.float64), (self.dim,)).copy()
        check_bounds(lo, hi, self.name)
        if np.array_equal(lo, self.lower) and np.array_equal(hi, self.upper):
            return self  # the same box: the same problem, its known minimum with it
        lo.setflags(write=False)
        hi.setflags(write=False)
        # the known minimum still holds only if its minimiser lies inside the new box
        inside = self.x_min is not None and bool(np.all((self.x_min >= lo) & (self.x_min <= hi)))
        return dataclasses.replace(self, lower=lo, upper=hi, f_min=self.f_min if inside else None,
                                   x_min=self.x_min if inside else None)


def check_bounds(lower: np.ndarray, upper: np.ndarray, name: str) -> None:
    """ConfigError unless every bound is finite and lower < upper in every coordinate."""
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ConfigError(f"bounds of '{name}' must be finite numbers (got NaN or inf)")
    if not np.all(lower < upper):
        raise ConfigError(f"bounds of '{name}' are inverted or empty: lower must be < upper")


_REGISTRY: dict[str, ProblemDef] = {}
# callables of this process, by name. A name finds the newest callable given it (a notebook that
# redefines f and runs the cell again gets the new f by name); an older Problem object of that
# name keeps its own function, since a run of an object runs the object (RunConfig.problem_object)
_CUSTOM: dict[str, ProblemDef] = {}


def register(definition: ProblemDef) -> ProblemDef:
    if definition.name in _REGISTRY:
        raise RuntimeError(f"problem '{definition.name}' registered twice")
    _REGISTRY[definition.name] = definition
    return definition


def register_custom(definition: ProblemDef) -> ProblemDef:
    """Make a user's callable problem findable by name in this process (not a built-in)."""
    if definition.name in _REGISTRY:
        raise ConfigError(_builtin_name_taken(definition.name))
    _CUSTOM[definition.name] = definition
    return definition


def _builtin_name_taken(name: str) -> str:
    return f"'{name}' is a built-in function's name; give your own function another name"


def is_builtin(problem: "str | ProblemDef | Problem") -> bool:
    """Whether `problem` is a registered built-in function. A name is (get_definition finds the
    registry first and register_custom refuses its names); an object only where it holds the
    registry's own definition, not one of the user's that merely carries a built-in's name."""
    if isinstance(problem, str):
        return problem in _REGISTRY
    definition = problem.definition if isinstance(problem, Problem) else problem
    if not isinstance(definition, ProblemDef):
        return False
    builtin = _REGISTRY.get(definition.name)
    # the registry's own, or a copy of it (copy.deepcopy, a trip through cloudpickle to a worker:
    # a new object holding the same function and device functor)
    return builtin is not None and (builtin is definition or (
        builtin.fn is definition.fn and builtin.cuda_functor == definition.cuda_functor
        and builtin.cuda_source == definition.cuda_source))


def refuse_impostor(problem: Problem) -> None:
    """ConfigError where `problem` carries a name that finds another function: a built-in's name
    (the built-in's defaults, param_defaults, and a file or the CLI would run the built-in) or a
    typed expression's ``"expr: <text>"`` (the compiled engines and every reader of that name run
    the expression), without holding that built-in's or that expression's definition."""
    name = problem.name
    if name in _REGISTRY and not is_builtin(problem):
        raise ConfigError(_builtin_name_taken(name))
    from .custom import expression_name, is_expression  # noqa: PLC0415 - custom imports this module

    expression = problem.definition.expression
    if is_expression(name) and (expression is None or name != expression_name(expression.text)):
        raise ConfigError(f"'{name}' is a typed expression's name; give your own function another "
                          f"name (or make it with Problem.from_expression)")


def refuse_foreign_twin(problem: Problem) -> None:
    """EngineUnavailable where `problem` carries a compiled twin (a built-in's cuda_functor, or an
    expression's text) but a function of its own (copied with another fn): numba and cuda run the
    twin, so they would run another function than numpy and cupy, which run the object's."""
    definition = problem.definition
    if definition.expression is not None:
        from .custom import compiles_its_expression, evaluates_its_expression  # noqa: PLC0415 - custom imports this module

        if not evaluates_its_expression(definition):
            raise EngineUnavailable(
                f"function '{problem.name}' has a Python function of its own, not its expression's "
                f"compiled one: run it on numpy or cupy, or type that function as an expression")
        if not compiles_its_expression(definition):
            raise EngineUnavailable(
                f"function '{problem.name}' carries device code of its own, not its expression's: "
                f"run it on numpy or cupy")
        return
    if not definition.cuda_functor:
        return  # without a twin each engine says why
    owner = next((d for d in _REGISTRY.values() if d.cuda_functor == definition.cuda_functor), None)
    # identity, as is_builtin: a copy (deepcopy, cloudpickle) holds the very same function
    if owner is not None and owner.fn is not definition.fn:
        raise EngineUnavailable(
            f"function '{problem.name}' has a Python function of its own, not built-in "
            f"'{owner.name}''s compiled one: run it on numpy or cupy, or type it as an expression "
            f"('expr: ...') for numba and cuda")


def list_problems() -> list[str]:
    """Canonical names of every registered problem, in registration order."""
    return list(_REGISTRY)


def problem_definitions() -> list[ProblemDef]:
    return list(_REGISTRY.values())


# Names that were split or renamed: a clear message instead of "unknown function".
RENAMED = {"levy_montalvo": "'levy_montalvo' is now two functions: levy_montalvo_1 (LM1 on [-10, 10], "
                            "the annealing suite's F10) and levy_montalvo_2 (LM2 on [-5, 5], the "
                            "former levy_montalvo)"}


def get_definition(name: str) -> ProblemDef:
    from .custom import expression_definition, expression_text, is_expression  # noqa: PLC0415

    if isinstance(name, Problem):  # its repr (every field) made "unknown function '...'" a page long
        raise ConfigError(f"expected a function's name, got a Problem object ('{name.name}'): give "
                          f"its name here, or run the object itself with solvers.run")
    if is_expression(name):
        return expression_definition(expression_text(name))
    try:
        return _REGISTRY[name] if name in _REGISTRY else _CUSTOM[name]
    except (KeyError, TypeError):
        if name in RENAMED:
            raise ConfigError(f"function {RENAMED[name]}") from None
        raise ConfigError(f"unknown function '{name}' (see 'python main.py list')") from None


# Simulated annealing's own defaults on the functions where sync, the algorithm's default, misses the
# global minimum at the default budget (docs/benchmarks/sa-default-seeds.md): sync restarts every chain
# from the best point after each level, and at the default budget a level is one proposal, so sync is a
# greedy one-coordinate line search from the best point, which stops in the coordinate-wise minima of
# non-separable functions (Shekel's wrong wells, Salomon's and Schaffer F7's rings, Griewank's 0.0037,
# Rosenbrock's curved valley). The hybrid's annealing stage (hybrid_base) runs async there too.
SA_ASYNC_DEFAULTS = {"simulated_annealing": {"variant": "async", "hybrid_base": "async"}}
# Rosenbrock: async finds it at the default budget but not under an evaluation budget (1e4: 2 of 20
# seeds), where sync did (18 of 20); the hybrid with async annealing found it in 20 of 20 at each
SA_HYBRID_DEFAULTS = {"simulated_annealing": {"variant": "hybrid", "hybrid_base": "async"}}


def param_defaults(problem: "str | ProblemDef | Problem", algorithm: str) -> dict[str, Any]:
    """The parameters of `algorithm` that default to other values on built-in function `problem`
    (ProblemDef.param_defaults; a typed, callable or unknown function has none, and so has an
    object that only carries a built-in's name: is_builtin). A run's given parameters override
    them: ``{**param_defaults(problem, algorithm), **given}``."""
    if not is_builtin(problem):
        return {}
    definition = _REGISTRY[problem if isinstance(problem, str) else problem.name]
    return dict(definition.param_defaults.get(algorithm, {}))


# Far above any run that fits in memory with a useful number of walkers (one walker at d = 10^6 is
# 8 MB per array); a bound so that a mistyped dimension fails at once with a clear message.
MAX_DIM = 1_000_000


def get_problem(name: str, dim: int | None = None, bounds=None) -> Problem:
    """Bind problem `name` to dimension `dim` (its default dimension if None), searched over
    `bounds` = (lower, upper) if given. ``"expr: <text>"`` names a typed expression."""
    from .custom import expression_problem, is_expression  # noqa: PLC0415

    if is_expression(name):
        lo, hi = (None, None) if bounds is None else bounds
        return expression_problem(name, dim, lo, hi)
    if bounds is not None:
        return get_problem(name, dim).with_bounds(*bounds)
    definition = get_definition(name)
    if dim is None:
        dim = definition.default_dim
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise ConfigError(f"dimension must be an integer, got {dim!r}")
    dim = int(dim)
    if dim > MAX_DIM:  # before allocating the bounds: d = 1e9 would take minutes, then fail
        raise ConfigError(f"dimension {dim:,} is too large for function '{name}' (at most {MAX_DIM:,})")
    if not definition.accepts(dim):
        if definition.dims is not None:
            allowed = ", ".join(str(d) for d in definition.dims)
            raise ConfigError(f"function '{name}' accepts dimension {allowed} only, got {dim}")
        raise ConfigError(f"function '{name}' needs dimension >= {definition.min_dim}, got {dim}")
    lower, upper = definition.bounds(dim)
    lower = np.broadcast_to(np.asarray(lower, dtype=np.float64), (dim,)).copy()
    upper = np.broadcast_to(np.asarray(upper, dtype=np.float64), (dim,)).copy()
    x_min = definition.x_min(dim)
    if x_min is not None:
        x_min = np.broadcast_to(np.asarray(x_min, dtype=np.float64), (dim,)).copy()
    lower.setflags(write=False)
    upper.setflags(write=False)
    return Problem(definition=definition, dim=dim, lower=lower, upper=upper,
                   f_min=definition.f_min(dim), x_min=x_min)


def box(lo: float, hi: float) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    """Bounds helper: the same interval [lo, hi] in every coordinate."""
    return lambda d: (np.full(d, float(lo)), np.full(d, float(hi)))


def boxes(lows: Sequence[float], highs: Sequence[float]):
    """Bounds helper for fixed-dimension functions with per-coordinate intervals."""
    return lambda d: (np.asarray(lows, dtype=np.float64), np.asarray(highs, dtype=np.float64))
